// Reading numbers from a CSV file (docs/cli.md "Data"): comma-separated fields, surrounding blanks
// and double quotes stripped, no embedded commas; empty lines are skipped. A first line whose
// selected field is not a number is a header. The column is a header name or a 1-based number.
#ifndef LDP_TOOLS_CSV_H
#define LDP_TOOLS_CSV_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "files.h"
#include "ldp/base/span.h"

namespace ldp::tools {

// How much of a file read_csv reads (docs/cli.md "Data", "Files"): a longer line or a larger file
// is an error, so /dev/zero or an endless pipe costs bounded memory and time.
struct csv_limits {
  const char* what = "CSV file";  // names the file in errors
  uint64_t max_line_bytes = uint64_t{64} << 20;
  uint64_t max_bytes = UINT64_MAX;
  bool gunzip = false;  // the file is gzip-compressed (the limits count decompressed bytes)
};

// Lines of a file, each at most limits.max_line_bytes, at most limits.max_bytes in all (errors name
// the file and line). A line is handed out in place in the read buffer; only a line that spans two
// reads is moved. read_csv and the text input (text_input.h) read through it.
class line_reader {
 public:
  line_reader(const std::string& path, const csv_limits& limits);

  // The next line [*begin, *end) without its '\n'; false at the end of the file. `number` (the
  // line's 1-based number) only names it in errors.
  bool next(const char** begin, const char** end, uint64_t number);

 private:
  void check_length(uint64_t length, uint64_t number) const;

  input_file in_;
  csv_limits limits_;
  std::size_t chunk_;
  std::vector<unsigned char> buffer_;
  std::size_t at_ = 0;       // the start of the next line
  std::size_t scanned_ = 0;  // buffer_[at_, scanned_) holds no '\n'
  bool eof_ = false;
};

// Calls row(values, line) for every data row with `width` numbers taken from consecutive columns
// starting at `column` ("" = the first). Throws cli_error naming the file and line of a bad field.
// `header`, if set, receives the header line ("" if the file has none).
void read_csv(const std::string& path, const std::string& column, std::size_t width,
              const std::function<void(span<const double> values, uint64_t line)>& row, const csv_limits& limits = {},
              std::string* header = nullptr);

// Calls row(values, line) for every data row with the numbers of `columns` (each a header name or
// a 1-based number), in that order (ldp train, docs/cli.md "ldp train"). The first line is a header
// when a selected field of it is not a number, or when it is too short for the selection and has a
// field that is not a number (scikit-learn's bundled CSVs begin "569,30,malignant,benign"). Throws
// cli_error naming the file and line of a bad field, or a name the header does not have.
void read_csv_columns(const std::string& path, const std::vector<std::string>& columns,
                      const std::function<void(span<const double> values, uint64_t line)>& row,
                      const csv_limits& limits = {});

// The fields of the first non-empty line of a CSV file, trimmed as read_csv trims them (none for an
// empty file): a header's column names.
std::vector<std::string> csv_first_line(const std::string& path, const csv_limits& limits = {});

// Splits "<path>[:<column>]" at the last ':' when what follows names a column, not part of the
// path (no '/').
void split_csv_spec(const std::string& spec, std::string* path, std::string* column);

}  // namespace ldp::tools

#endif
