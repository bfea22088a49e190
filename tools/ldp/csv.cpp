#include "csv.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "errors.h"
#include "files.h"
#include "output.h"

namespace ldp::tools {
namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// A field without surrounding blanks and one pair of surrounding double quotes (docs/cli.md "Data").
// Views into the reader's buffer: no allocation per field.
struct field_view {
  const char* begin;
  const char* end;
  std::string str() const { return std::string(begin, end); }
};

field_view trim(const char* b, const char* e) {
  while (b < e && blank(*b)) ++b;
  while (e > b && blank(e[-1])) --e;
  if (e - b >= 2 && *b == '"' && e[-1] == '"') {
    ++b;
    --e;
  }
  return {b, e};
}

// The fields of a line, split at every comma.
std::vector<field_view> split(const char* b, const char* e) {
  std::vector<field_view> fields;
  for (;;) {
    const char* comma = static_cast<const char*>(std::memchr(b, ',', static_cast<std::size_t>(e - b)));
    fields.push_back(trim(b, comma == nullptr ? e : comma));
    if (comma == nullptr) return fields;
    b = comma + 1;
  }
}

// strtod's answer, finite and in range, for the whole field. std::from_chars (correctly rounded,
// like glibc's strtod, and locale-free) takes the plain decimal numbers of real data; everything it
// does not take whole, or gives as subnormal (where strtod reports ERANGE), goes to strtod, so the
// accepted set and every value are exactly strtod's.
bool parse_number(field_view f, double* out) {
  if (f.begin == f.end) return false;
  double v = 0;
  const std::from_chars_result r = std::from_chars(f.begin, f.end, v);
  if (r.ec == std::errc() && r.ptr == f.end && std::isfinite(v) && (v == 0 || std::isnormal(v))) {
    *out = v;
    return true;
  }
  const std::string text = f.str();
  char* end = nullptr;
  errno = 0;
  v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// Lines of a file, each at most limits.max_line_bytes, at most limits.max_bytes in all. A line is
// handed out in place in the read buffer; only a line that spans two reads is moved.
class line_reader {
 public:
  line_reader(const std::string& path, const csv_limits& limits)
      : in_(path, limits.what),
        limits_(limits),
        // Large reads for data files; a file with a byte limit (a truth file) keeps 64 KiB reads,
        // so which limit a too-large file breaks first stays as documented.
        chunk_(limits.max_bytes == UINT64_MAX ? std::size_t{1} << 20 : std::size_t{1} << 16) {}

  // The next line [*begin, *end) without its '\n'; false at the end of the file.
  bool next(const char** begin, const char** end, uint64_t number) {
    for (;;) {
      const char* data = reinterpret_cast<const char*>(buffer_.data());
      const std::size_t size = buffer_.size();
      const void* newline = std::memchr(data + scanned_, '\n', size - scanned_);
      if (newline != nullptr) {
        *begin = data + at_;
        *end = static_cast<const char*>(newline);
        check_length(static_cast<uint64_t>(*end - *begin), number);
        at_ = scanned_ = static_cast<std::size_t>(*end - data) + 1;
        return true;
      }
      check_length(size - at_, number);
      if (eof_) {
        if (at_ == size) return false;
        *begin = data + at_;
        *end = data + size;
        at_ = scanned_ = size;
        return true;
      }
      // Keep the partial line, then read behind it.
      buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(at_));
      scanned_ = buffer_.size();
      at_ = 0;
      if (in_.read_append(chunk_, buffer_) == 0) {
        eof_ = true;
      } else if (in_.position() > limits_.max_bytes) {
        fail("{} {} is larger than {} bytes (the limit of docs/cli.md)", limits_.what, in_.path(), limits_.max_bytes);
      }
    }
  }

 private:
  void check_length(uint64_t length, uint64_t number) const {
    if (length > limits_.max_line_bytes) {
      fail("{} {} line {} is too long: more than {} bytes (the limit of docs/cli.md)", limits_.what, in_.path(), number,
           limits_.max_line_bytes);
    }
  }

  input_file in_;
  csv_limits limits_;
  std::size_t chunk_;
  std::vector<unsigned char> buffer_;
  std::size_t at_ = 0;       // the start of the next line
  std::size_t scanned_ = 0;  // buffer_[at_, scanned_) holds no '\n'
  bool eof_ = false;
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
  const char *begin = nullptr, *end = nullptr;
  uint64_t number = 0;
  bool seen_first = false;
  while (in.next(&begin, &end, number + 1)) {
    ++number;
    const field_view whole = trim(begin, end);
    if (whole.begin == whole.end) continue;
    if (!seen_first) {
      seen_first = true;
      const std::vector<field_view> fields = split(begin, end);
      double probe = 0;
      const bool header =
          column.empty() || numbered ? (first < fields.size() && !parse_number(fields[first], &probe)) : true;
      if (!column.empty() && !numbered) {
        std::size_t i = 0;
        while (i < fields.size() && fields[i].str() != column) ++i;
        if (i == fields.size()) fail("CSV file {}: no column named '{}' in the header line", path, escaped(column, 40));
        first = i;
      }
      if (header) {
        if (header_line != nullptr) header_line->assign(begin, end);
        continue;
      }
    }
    // Walk to the selected fields; the rest of the line is not looked at. A line with too few
    // fields is reported as such before any of its fields as not a number.
    const auto fail_short_line = [&] {
      const std::size_t has = split(begin, end).size();
      if (has < first + width) {
        fail("CSV file {} line {}: needs {} field(s) from column {}, has {}", path, number, width, first + 1, has);
      }
    };
    const char* at = begin;
    std::size_t index = 0;
    while (index < first + width) {
      const char* comma = static_cast<const char*>(std::memchr(at, ',', static_cast<std::size_t>(end - at)));
      const char* field_end = comma == nullptr ? end : comma;
      if (index >= first) {
        const field_view f = trim(at, field_end);
        if (!parse_number(f, &values[index - first])) {
          fail_short_line();
          fail("CSV file {} line {} column {}: '{}' is not a number", path, number, index + 1, escaped(f.str(), 40));
        }
      }
      ++index;
      if (comma == nullptr) break;
      at = comma + 1;
    }
    if (index < first + width) fail_short_line();
    row(span<const double>(values.data(), width), number);
  }
}

}  // namespace ldp::tools
