#include "csv.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "errors.h"

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
              const std::function<void(span<const double> values, uint64_t line)>& row) {
  std::ifstream in(path);
  if (!in) fail("cannot open CSV file {}", path);
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
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty()) continue;
    const std::vector<std::string> fields = split(line);
    if (!seen_first) {
      seen_first = true;
      double probe = 0;
      const bool header = column.empty() || numbered
                              ? (first < fields.size() && !parse_number(fields[first], &probe))
                              : true;
      if (!column.empty() && !numbered) {
        std::size_t i = 0;
        while (i < fields.size() && fields[i] != column) ++i;
        if (i == fields.size()) fail("CSV file {}: no column named '{}' in the header line", path, column);
        first = i;
      }
      if (header) continue;
    }
    if (fields.size() < first + width) {
      fail("CSV file {} line {}: needs {} field(s) from column {}, has {}", path, number, width, first + 1,
           fields.size());
    }
    for (std::size_t j = 0; j < width; ++j) {
      if (!parse_number(fields[first + j], &values[j])) {
        fail("CSV file {} line {} column {}: '{}' is not a number", path, number, first + j + 1, fields[first + j]);
      }
    }
    row(span<const double>(values.data(), width), number);
  }
  if (in.bad()) fail("cannot read CSV file {}", path);
}

}  // namespace ldp::tools
