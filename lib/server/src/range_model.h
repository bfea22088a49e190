// What the distribution family's estimators share (docs/mechanisms.md G.4): a model of the bucket
// masses that answers any range with its variance. Square Wave's EMS histogram with its bootstrap
// spread (square_wave_estimation.cpp) and the tree forms' linear estimators (tree_estimation.cpp)
// implement it; ranges, quantiles and densities are computed from it alone (distribution_queries.cpp).
#ifndef LDP_SERVER_SRC_RANGE_MODEL_H
#define LDP_SERVER_SRC_RANGE_MODEL_H

#include <cstdint>
#include <memory>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/distribution.h"
#include "ldp/server/frequency.h"
#include "ldp/wire/params.h"

namespace ldp::server::detail {

struct range_answer {
  double fraction = 0;  // of the reports whose bucket position lies in [a, b)
  double variance = 0;
};

class range_model {
 public:
  virtual ~range_model() = default;
  // Positions are in bucket units, 0 <= a <= b <= D: bucket k is [k, k + 1), and a bucket the
  // range cuts counts in proportion to the part inside (values uniform within a bucket).
  [[nodiscard]] virtual range_answer answer(double a, double b) const = 0;
};

// Square Wave (G.1): EMS on the output counts (D + 2b of them), variance from o.bootstrap parametric
// replicates seeded by o.seed. overflow when memory runs out.
[[nodiscard]] status make_square_wave_model(const wire::params& p, span<const uint64_t> counts,
                                            const distribution_options& o, std::unique_ptr<range_model>* out);

// The tree forms (G.2, G.3): levels[g] counts group g's reports (inner OLH on the block's domain),
// n = the sum of their reports. Hierarchical applies consistency when o.consistency.
[[nodiscard]] status make_tree_model(const wire::params& p,
                                     const std::vector<std::unique_ptr<frequency_aggregator>>& levels, uint64_t n,
                                     const distribution_options& o, std::unique_ptr<range_model>* out);

}  // namespace ldp::server::detail

#endif
