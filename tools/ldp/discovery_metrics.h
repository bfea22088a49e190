// How well a string discovery found the true top strings (docs/cli.md "Discovery output and
// metrics"): precision and recall at K against the true top K, and the count error of the true top
// K. Pure functions: `ldp estimate --discover K --truth FILE` and the accuracy runs call them.
#ifndef LDP_TOOLS_DISCOVERY_METRICS_H
#define LDP_TOOLS_DISCOVERY_METRICS_H

#include <cstddef>
#include <string>
#include <vector>

#include "text_input.h"

namespace ldp::tools {

// One discovered string with its estimated count, the variance of that estimate and its interval.
struct discovered_string {
  std::string item;
  double estimate = 0;
  double variance = 0;
  double ci_low = 0;
  double ci_high = 0;
};

struct discovery_metrics {
  std::size_t k = 0;
  double precision = 0;   // |D_K and T_K| / |D_K|; NaN when nothing was discovered
  double recall = 0;      // |D_K and T_K| / |T_K|; NaN when the truth is empty
  double count_rmse = 0;  // over T_K, an undiscovered string estimated 0; NaN when the truth is empty
};

// D_K: the first K discovered strings (all of them if fewer; a repeated string counts once in the
// intersection). T_K: the true top K, ranked by count descending then bytes ascending (ranks_before),
// all strings if fewer. count_rmse = sqrt(mean over T_K of (estimate - true count)^2), the estimate
// being that of the string's first entry in the whole discovered list, 0 if it is not there.
// `discovered` is in rank order; `truth` in any order; k >= 1.
discovery_metrics measure_discovery(const std::vector<discovered_string>& discovered,
                                    const std::vector<string_count>& truth, std::size_t k);

}  // namespace ldp::tools

#endif
