#include "truth.h"

#include <cmath>

#include <fmt/format.h>

#include "csv.h"
#include "errors.h"
#include "files.h"

namespace ldp::tools {

std::string truth_csv(const truth_table& t) {
  std::string out = t.means ? "coordinate,mean\n" : "item,count\n";
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    out += t.means ? fmt::format("{},{:.17g}\n", i, t.values[i]) : fmt::format("{},{:.0f}\n", i, t.values[i]);
  }
  return out;
}

void write_truth(const std::string& path, const truth_table& t) {
  atomic_output out(path, "truth file");
  out.write(truth_csv(t));
  out.commit();
}

truth_table read_truth(const std::string& path, std::size_t size) {
  truth_table t;
  t.values.assign(size, 0.0);
  std::vector<bool> seen(size);
  // docs/cli.md "Files": a truth file holds a line per estimate; 1 KiB per line and per estimate
  // (plus 64 KiB) is far more than simulate writes and bounds what a wrong file costs.
  csv_limits limits;
  limits.what = "truth file";
  limits.max_line_bytes = 1024;
  limits.max_bytes = (uint64_t{size} + 64) * 1024;
  std::string header;
  read_csv(
      path, "", 2,
      [&](span<const double> row, uint64_t line) {
        const double key = row[0];
        if (!(key >= 0 && key < static_cast<double>(size) && key == std::floor(key))) {
          fail("truth file {} line {}: {} is not an index in [0, {}) of this state", path, line, key, size);
        }
        const auto i = static_cast<std::size_t>(key);
        if (seen[i]) fail("truth file {} line {}: {} appears twice", path, line, i);
        seen[i] = true;
        t.values[i] = row[1];
      },
      limits, &header);
  t.means = header.rfind("coordinate", 0) == 0;
  return t;
}

}  // namespace ldp::tools
