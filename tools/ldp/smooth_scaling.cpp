#include "smooth_scaling.h"

#include <algorithm>

#include <fmt/format.h>

namespace ldp::tools {

column_scaling scaling_of(const dataset& data) {
  column_scaling s;
  std::vector<double> row(data.width());
  for (uint64_t i = 0; i < data.devices(); ++i) {
    data.values(i, row);
    if (i == 0) {
      s.lo = s.hi = row;
      continue;
    }
    for (std::size_t j = 0; j < row.size(); ++j) {
      s.lo[j] = std::min(s.lo[j], row[j]);
      s.hi[j] = std::max(s.hi[j], row[j]);
    }
  }
  return s;
}

void scale_row(const column_scaling& s, span<double> row) {
  for (std::size_t j = 0; j < row.size(); ++j) {
    const double width = s.hi[j] - s.lo[j];
    row[j] = width > 0 ? std::clamp(2 * (row[j] - s.lo[j]) / width - 1, -1.0, 1.0) : 0.0;
  }
}

std::string describe(const column_scaling& s) {
  std::string out;
  for (std::size_t j = 0; j < s.lo.size(); ++j)
    out += fmt::format("{}[{:g}, {:g}]", j == 0 ? "" : ", ", s.lo[j], s.hi[j]);
  return out;
}

}  // namespace ldp::tools
