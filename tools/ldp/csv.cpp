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

// std::from_chars (correctly rounded, like glibc's strtod, and locale-free) for the whole of
// [begin, end), when its answer is finite and not subnormal (where strtod reports ERANGE).
bool from_chars_whole(const char* begin, const char* end, double* out) {
  double v = 0;
  const std::from_chars_result r = std::from_chars(begin, end, v);
  if (r.ec != std::errc() || r.ptr != end || !std::isfinite(v) || (v != 0 && !std::isnormal(v))) return false;
  *out = v;
  return true;
}

// strtod's answer, finite and in range, for the whole field: from_chars takes the plain decimal
// numbers of real data; everything it does not take whole goes to strtod, so the accepted set and
// every value are exactly strtod's.
bool parse_number(field_view f, double* out) {
  if (f.begin == f.end) return false;
  if (from_chars_whole(f.begin, f.end, out)) return true;
  const std::string text = f.str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// The commonest field, [-]digits[.digits] ended by ',' or the line's end, read in one pass: returns
// where it ends (the comma or `end`), or nullptr for any other field (blanks, quotes, an exponent,
// ...), which parse_number then reads. Clinger's fast path: when the digits as an integer m are at
// most 2^53 and at most 22 of them follow the point, m and 10^k are exact doubles, so m / 10^k, one
// correctly rounded division, is the correctly rounded value strtod gives; longer numbers go to
// from_chars_whole.
const char* parse_plain_field(const char* p, const char* end, double* out) {
  static constexpr double powers_of_ten[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  constexpr uint64_t max_exact = uint64_t{1} << 53;
  const char* const begin = p;
  const bool negative = p != end && *p == '-';
  if (negative) ++p;
  uint64_t m = 0;
  int fraction = -1;  // digits after the point, -1 before it
  bool digits = false, exact = true;
  for (; p != end && *p != ','; ++p) {
    const auto digit = static_cast<unsigned>(*p - '0');
    if (digit < 10) {
      digits = true;
      if (exact) {
        m = m * 10 + digit;
        exact = m <= max_exact;
      }
      if (fraction >= 0) ++fraction;
    } else if (*p == '.' && fraction < 0) {
      fraction = 0;
    } else {
      return nullptr;
    }
  }
  if (!digits) return nullptr;
  if (exact && fraction <= 22) {
    const double v = fraction > 0 ? static_cast<double>(m) / powers_of_ten[fraction] : static_cast<double>(m);
    *out = negative ? -v : v;
    return p;
  }
  return from_chars_whole(begin, p, out) ? p : nullptr;
}

}  // namespace

line_reader::line_reader(const std::string& path, const csv_limits& limits)
    : in_(path, limits.what, limits.gunzip),
      limits_(limits),
      // Large reads for data files; a file with a byte limit (a truth file) keeps 64 KiB reads,
      // so which limit a too-large file breaks first stays as documented.
      chunk_(limits.max_bytes == UINT64_MAX ? std::size_t{1} << 20 : std::size_t{1} << 16) {}

bool line_reader::next(const char** begin, const char** end, uint64_t number) {
  for (;;) {
    const char* data = reinterpret_cast<const char*>(buffer_.data());
    const std::size_t size = buffer_.size();
    // An empty buffer's data() may be null, which memchr must not get even for 0 bytes.
    const void* newline = scanned_ < size ? std::memchr(data + scanned_, '\n', size - scanned_) : nullptr;
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

void line_reader::check_length(uint64_t length, uint64_t number) const {
  if (length > limits_.max_line_bytes) {
    fail("{} {} line {} is too long: more than {} bytes (the limit of docs/cli.md)", limits_.what, in_.path(), number,
         limits_.max_line_bytes);
  }
}

namespace {

// The lines of a CSV file that hold more than blanks, with their 1-based numbers: the loop of
// read_csv, read_csv_columns and csv_first_line.
class csv_lines {
 public:
  csv_lines(const std::string& path, const csv_limits& limits) : in_(path, limits) {}

  bool next(const char** begin, const char** end) {
    while (in_.next(begin, end, number_ + 1)) {
      ++number_;
      const field_view whole = trim(*begin, *end);
      if (whole.begin != whole.end) {
        ++handed_;
        return true;
      }
    }
    return false;
  }
  uint64_t number() const { return number_; }
  bool first() const { return handed_ == 1; }  // the line handed out is the first non-blank one

 private:
  line_reader in_;
  uint64_t number_ = 0;
  uint64_t handed_ = 0;
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
  csv_lines in(path, limits);
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
  while (in.next(&begin, &end)) {
    const uint64_t number = in.number();
    if (in.first()) {
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
      const char* stop = index >= first ? parse_plain_field(at, end, &values[index - first]) : nullptr;
      const char* comma = stop != nullptr
                              ? (stop == end ? nullptr : stop)
                              : static_cast<const char*>(std::memchr(at, ',', static_cast<std::size_t>(end - at)));
      if (index >= first && stop == nullptr) {
        const field_view f = trim(at, comma == nullptr ? end : comma);
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

namespace {

bool is_column_number(const std::string& column) {
  return !column.empty() && column.find_first_not_of("0123456789") == std::string::npos;
}

// The 0-based indices of `columns` in a line of `fields` (names looked up in the header line).
std::vector<std::size_t> column_indices(const std::string& path, const std::vector<std::string>& columns,
                                        const std::vector<field_view>* header) {
  std::vector<std::size_t> out;
  for (const std::string& column : columns) {
    if (is_column_number(column)) {
      const unsigned long long number = std::strtoull(column.c_str(), nullptr, 10);
      if (number == 0 || number > (uint64_t{1} << 32)) {
        fail("CSV file {}: column numbers start at 1, got {}", path, escaped(column, 40));
      }
      out.push_back(static_cast<std::size_t>(number - 1));
      continue;
    }
    std::size_t i = 0;
    while (header != nullptr && i < header->size() && (*header)[i].str() != column) ++i;
    if (header == nullptr || i == header->size()) {
      fail("CSV file {}: no column named '{}' in the header line", path, escaped(column, 40));
    }
    out.push_back(i);
  }
  return out;
}

}  // namespace

void read_csv_columns(const std::string& path, const std::vector<std::string>& columns,
                      const std::function<void(span<const double> values, uint64_t line)>& row,
                      const csv_limits& limits) {
  csv_lines in(path, limits);
  const bool named =
      std::any_of(columns.begin(), columns.end(), [](const std::string& c) { return !is_column_number(c); });
  std::vector<std::size_t> index;
  std::vector<double> values(columns.size());
  const char *begin = nullptr, *end = nullptr;
  while (in.next(&begin, &end)) {
    const uint64_t number = in.number();
    const std::vector<field_view> fields = split(begin, end);
    if (in.first()) {
      index = column_indices(path, columns, named ? &fields : nullptr);
      double probe = 0;
      bool header = named;
      const std::size_t needed = index.empty() ? 0 : *std::max_element(index.begin(), index.end()) + 1;
      for (std::size_t i = 0; i < fields.size() && !header; ++i) {
        const bool selected = std::find(index.begin(), index.end(), i) != index.end();
        header = (selected || fields.size() < needed) && !parse_number(fields[i], &probe);
      }
      if (header) continue;
    }
    for (std::size_t j = 0; j < index.size(); ++j) {
      if (index[j] >= fields.size()) {
        fail("CSV file {} line {}: needs column {}, has {} field(s)", path, number, index[j] + 1, fields.size());
      }
      if (!parse_number(fields[index[j]], &values[j])) {
        fail("CSV file {} line {} column {}: '{}' is not a number", path, number, index[j] + 1,
             escaped(fields[index[j]].str(), 40));
      }
    }
    row(span<const double>(values.data(), values.size()), number);
  }
}

std::vector<std::string> csv_first_line(const std::string& path, const csv_limits& limits) {
  csv_lines in(path, limits);
  const char *begin = nullptr, *end = nullptr;
  std::vector<std::string> out;
  if (in.next(&begin, &end)) {
    for (const field_view& f : split(begin, end)) out.push_back(f.str());
  }
  return out;
}

}  // namespace ldp::tools
