#include "csv.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "errors.h"
#include "files.h"
#include "output.h"

namespace ldp::tools {
namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  if (e - b >= 2 && s[b] == '"' && s[e - 1] == '"') {
    ++b;
    --e;
  }
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

bool parse_number(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// Lines of a file, each at most limits.max_line_bytes, at most limits.max_bytes in all.
class line_reader {
 public:
  line_reader(const std::string& path, const csv_limits& limits) : in_(path, limits.what), limits_(limits) {}

  // The next line without its '\n'; false at the end of the file.
  bool next(std::string& line, uint64_t number) {
    line.clear();
    for (;;) {
      if (at_ == buffer_.size()) {
        buffer_.clear();
        at_ = 0;
        if (in_.read_append(1 << 16, buffer_) == 0) return !line.empty();
        if (in_.position() > limits_.max_bytes) {
          fail("{} {} is larger than {} bytes (the limit of docs/cli.md)", limits_.what, in_.path(), limits_.max_bytes);
        }
      }
      const auto start = buffer_.begin() + static_cast<std::ptrdiff_t>(at_);
      const auto newline = std::find(start, buffer_.end(), static_cast<unsigned char>('\n'));
      line.append(start, newline);
      at_ = static_cast<std::size_t>(newline - buffer_.begin());
      if (line.size() > limits_.max_line_bytes) {
        fail("{} {} line {} is too long: more than {} bytes (the limit of docs/cli.md)", limits_.what, in_.path(),
             number, limits_.max_line_bytes);
      }
      if (newline != buffer_.end()) {
        ++at_;
        return true;
      }
    }
  }

 private:
  input_file in_;
  csv_limits limits_;
  std::vector<unsigned char> buffer_;
  std::size_t at_ = 0;
};

}  // namespace

void split_csv_spec(const std::string& spec, std::string* path, std::string* column) {
  const std::size_t colon = spec.rfind(':');
  if (colon != std::string::npos && spec.find('/', colon) == std::string::npos) {
    *path = spec.substr(0, colon);
    *column = spec.substr(colon + 1);
  } else {
    *path = spec;
    column->clear();
  }
  if (path->empty()) fail("--data csv: needs a file name (csv:<path>[:<column>])");
}

void read_csv(const std::string& path, const std::string& column, std::size_t width,
              const std::function<void(span<const double> values, uint64_t line)>& row, const csv_limits& limits,
              std::string* header_line) {
  line_reader in(path, limits);
  if (header_line != nullptr) header_line->clear();
  std::size_t first = 0;  // 0-based column index
  bool numbered = !column.empty() && column.find_first_not_of("0123456789") == std::string::npos;
  if (numbered) {
    first = static_cast<std::size_t>(std::strtoull(column.c_str(), nullptr, 10));
    if (first == 0) fail("CSV file {}: column numbers start at 1, got {}", path, column);
    --first;
  }
  std::vector<double> values(width);
  std::string line;
  uint64_t number = 0;
  bool seen_first = false;
  while (in.next(line, number + 1)) {
    ++number;
    if (trim(line).empty()) continue;
    const std::vector<std::string> fields = split(line);
    if (!seen_first) {
      seen_first = true;
      double probe = 0;
      const bool header =
          column.empty() || numbered ? (first < fields.size() && !parse_number(fields[first], &probe)) : true;
      if (!column.empty() && !numbered) {
        std::size_t i = 0;
        while (i < fields.size() && fields[i] != column) ++i;
        if (i == fields.size()) fail("CSV file {}: no column named '{}' in the header line", path, escaped(column, 40));
        first = i;
      }
      if (header) {
        if (header_line != nullptr) *header_line = line;
        continue;
      }
    }
    if (fields.size() < first + width) {
      fail("CSV file {} line {}: needs {} field(s) from column {}, has {}", path, number, width, first + 1,
           fields.size());
    }
    for (std::size_t j = 0; j < width; ++j) {
      if (!parse_number(fields[first + j], &values[j])) {
        fail("CSV file {} line {} column {}: '{}' is not a number", path, number, first + j + 1,
             escaped(fields[first + j], 40));
      }
    }
    row(span<const double>(values.data(), width), number);
  }
}

}  // namespace ldp::tools
