// Formatting shared by the subcommands: sizes and counts for people, and one table type printed as
// aligned text or as CSV, so every listing (estimates, recommendations, rejections) looks alike.
#ifndef LDP_TOOLS_OUTPUT_H
#define LDP_TOOLS_OUTPUT_H

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"

namespace ldp::tools {

std::string format_bytes(uint64_t n);                          // "1.5 MB" (powers of 1000), "512 B"
std::string format_count(uint64_t n);                          // "1,000,000"
std::string format_rate(double per_second, const char* unit);  // "2.31 M reports/s"
std::string format_seconds(double s);                          // "1.23 s", "45 ms"

// Untrusted bytes (file contents, file names, arguments) made safe to print on a terminal: control
// bytes (C0, DEL, and the C1 range U+0080..U+009F) and bytes that are not UTF-8 become \xNN; at
// most max_bytes of the input, "..." marking a cut. Every error message goes through it (main).
std::string escaped(std::string_view text, std::size_t max_bytes = std::numeric_limits<std::size_t>::max());

struct table {
  std::vector<std::string> header;
  std::vector<bool> numeric;  // right-aligned columns (by header position)
  std::vector<std::vector<std::string>> rows;
};

// Aligned columns separated by two spaces, header underlined with dashes.
void print_text(std::FILE* out, const table& t, const std::string& indent = "");
// RFC 4180 CSV (fields with commas or quotes are quoted).
void print_csv(std::FILE* out, const table& t);

// Rejection counters with a non-zero count, in status order, as "name: count" rows (counter 0,
// the damaged chunks, is not a reason: damaged_text says it).
table rejection_table(const server::rejection_counts& counts);
// ", 3 damaged chunks (records unknown)" for summary lines; "" for none.
std::string damaged_text(uint64_t chunks);

}  // namespace ldp::tools

#endif
