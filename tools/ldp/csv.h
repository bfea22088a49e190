// Reading numbers from a CSV file (docs/cli.md "Data"): comma-separated fields, surrounding blanks
// and double quotes stripped, no embedded commas; empty lines are skipped. A first line whose
// selected field is not a number is a header. The column is a header name or a 1-based number.
#ifndef LDP_TOOLS_CSV_H
#define LDP_TOOLS_CSV_H

#include <cstdint>
#include <functional>
#include <string>

#include "ldp/base/span.h"

namespace ldp::tools {

// How much of a file read_csv reads (docs/cli.md "Data", "Files"): a longer line or a larger file
// is an error, so /dev/zero or an endless pipe costs bounded memory and time.
struct csv_limits {
  const char* what = "CSV file";  // names the file in errors
  uint64_t max_line_bytes = uint64_t{64} << 20;
  uint64_t max_bytes = UINT64_MAX;
};

// Calls row(values, line) for every data row with `width` numbers taken from consecutive columns
// starting at `column` ("" = the first). Throws cli_error naming the file and line of a bad field.
// `header`, if set, receives the header line ("" if the file has none).
void read_csv(const std::string& path, const std::string& column, std::size_t width,
              const std::function<void(span<const double> values, uint64_t line)>& row, const csv_limits& limits = {},
              std::string* header = nullptr);

// Splits "<path>[:<column>]" at the last ':' when what follows names a column, not part of the
// path (no '/').
void split_csv_spec(const std::string& spec, std::string* path, std::string* column);

}  // namespace ldp::tools

#endif
