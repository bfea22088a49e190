// The distribution family's answers from a range model (docs/mechanisms.md G.4), shared by Square
// Wave and the tree forms (distribution_queries.cpp). A null model stands for an aggregator without
// reports: every field but the query's own is NaN. z is the normal quantile of the confidence.
#ifndef LDP_SERVER_SRC_DISTRIBUTION_QUERIES_H
#define LDP_SERVER_SRC_DISTRIBUTION_QUERIES_H

#include <utility>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/distribution.h"
#include "ldp/wire/params.h"
#include "range_model.h"

namespace ldp::server::detail {

// Whether every query is lo <= hi with both finite (ranges), every q in [0, 1] (quantiles).
[[nodiscard]] bool valid_ranges(span<const std::pair<double, double>> queries) noexcept;
[[nodiscard]] bool valid_quantiles(span<const double> qs) noexcept;

// Each range [lo, hi] in real units, clamped to the block's range, as the fraction of the reports
// in it with its variance and interval.
[[nodiscard]] std::vector<range_estimate> answer_ranges(const wire::params& p, const range_model* m,
                                                        span<const std::pair<double, double>> queries, double z);
// Each q-quantile from the monotone distribution function at the bucket edges.
[[nodiscard]] std::vector<quantile_estimate> answer_quantiles(const wire::params& p, const range_model* m,
                                                              span<const double> qs, double z);
// The D buckets' densities at their midpoints.
[[nodiscard]] std::vector<density_estimate> answer_density(const wire::params& p, const range_model* m, double z);
// estimate_all(): bucket k's count n * fraction(k, k + 1), variance n^2 var, of the given kind.
[[nodiscard]] std::vector<estimate> bucket_counts(const wire::params& p, const range_model* m, uint64_t n, double z,
                                                  variance_kind kind);

}  // namespace ldp::server::detail

#endif
