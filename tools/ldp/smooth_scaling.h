// smooth-queries' inputs in the tool (docs/mechanisms.md H.6, docs/cli.md "Mechanisms"): the
// devices hold x in [-1, 1]^p, so each of the p data columns is mapped linearly from its range
// [min, max] over the simulated data to [-1, 1]. The bounds are taken as public (a deployment
// fixes them in advance); a constant column maps to 0. Queries (ldp estimate --query) are written
// in the scaled coordinates; `ldp simulate` prints the bounds to translate them.
#ifndef LDP_TOOLS_SMOOTH_SCALING_H
#define LDP_TOOLS_SMOOTH_SCALING_H

#include <string>
#include <vector>

#include "datasets.h"
#include "ldp/base/span.h"

namespace ldp::tools {

struct column_scaling {
  std::vector<double> lo, hi;  // per column
};

// The range of each of the data's width() columns over all its devices.
column_scaling scaling_of(const dataset& data);

// row[j] mapped from [lo_j, hi_j] to [-1, 1] in place.
void scale_row(const column_scaling& s, span<double> row);

// "[lo_0, hi_0], [lo_1, hi_1], ..." for the run's message.
std::string describe(const column_scaling& s);

}  // namespace ldp::tools

#endif
