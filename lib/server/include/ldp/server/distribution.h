// Server side of the distribution family (docs/mechanisms.md G): Square Wave, the hierarchical
// histogram and the Haar form over the D buckets of a value range (wire/distribution_params.h). The
// aggregator counts reports exactly (Square Wave: one count per output; the tree forms: one inner
// OLH aggregator per level, as string discovery holds one per group), so ingestion, merge and saved
// state follow the other families (docs/wire_format.md 7.5). Its estimates are the distribution's:
// any range's fraction of the reports with variance and interval, quantiles with intervals, and the
// density over the buckets. estimate_all() gives the D buckets' counts (item = bucket).
#ifndef LDP_SERVER_DISTRIBUTION_H
#define LDP_SERVER_DISTRIBUTION_H

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"

namespace ldp::server {

struct distribution_options {
  double confidence = 0.95;  // of every interval
  bool consistency = true;   // hierarchical: Hay et al.'s constrained inference (G.2); the others ignore it
  uint32_t bootstrap = 200;  // square-wave: parametric bootstrap replicates of its EMS estimate (G.1);
                             // below 2, no variance (NaN variances and intervals)
  uint64_t seed = 0;         // square-wave: the bootstrap's (public) seed, so an estimate is reproducible
};

// The fraction of the reports whose value lies in [lo, hi] (real units, clamped to the block's range;
// a bucket the range cuts counts in proportion to the part inside, G.0), its variance and interval.
struct range_estimate {
  double lo = 0;
  double hi = 0;
  double estimate = 0;
  double variance = 0;
  double ci_low = 0;
  double ci_high = 0;
};

// The q-quantile: the smallest value at which the estimated distribution function reaches q, and the
// interval of the values whose distribution-function interval holds q (G.4).
struct quantile_estimate {
  double q = 0;
  double value = 0;
  double ci_low = 0;
  double ci_high = 0;
};

// The density at a bucket's midpoint x: the bucket's fraction over its width (real units), with the
// interval of that fraction over the width.
struct density_estimate {
  double x = 0;
  double value = 0;
  double ci_low = 0;
  double ci_high = 0;
};

// Several questions of one state (each part optional), answered from one fit of its model: square-wave's
// EMS and bootstrap run once rather than once per kind of question.
struct distribution_query {
  std::vector<std::pair<double, double>> ranges;
  std::vector<double> quantiles;
  bool density = false;
};

struct distribution_answer {
  std::vector<range_estimate> ranges;
  std::vector<quantile_estimate> quantiles;
  std::vector<density_estimate> density;
};

class distribution_aggregator : public aggregator {
 public:
  // As aggregator::create / deserialize, for square-wave, hierarchical and haar blocks;
  // invalid_parameters for a block or state of another family.
  [[nodiscard]] static status create(const wire::params& p, std::unique_ptr<distribution_aggregator>* out);
  [[nodiscard]] static status deserialize(span<const unsigned char> bytes,
                                          std::unique_ptr<distribution_aggregator>* out);
  [[nodiscard]] static bool handles(wire::mechanism m) noexcept;

  // Each query [lo, hi] (lo <= hi, both finite) answered (docs/mechanisms.md G.4). invalid_argument
  // for a null out, a bad query or a bad option; an aggregator without reports (or a level without
  // any) gives NaN fields; overflow when memory runs out. Never throws.
  [[nodiscard]] virtual status ranges(span<const std::pair<double, double>> queries, const distribution_options& o,
                                      std::vector<range_estimate>* out) const = 0;
  // Each q in [0, 1] (invalid_argument otherwise), as ranges().
  [[nodiscard]] virtual status quantiles(span<const double> qs, const distribution_options& o,
                                         std::vector<quantile_estimate>* out) const = 0;
  // The D buckets' densities, as ranges().
  [[nodiscard]] virtual status density(const distribution_options& o, std::vector<density_estimate>* out) const = 0;
  // Every question of q, as the three calls above would answer them, from one model (out's parts
  // that q does not ask for are empty).
  [[nodiscard]] virtual status answer(const distribution_query& q, const distribution_options& o,
                                      distribution_answer* out) const = 0;

 protected:
  using aggregator::aggregator;
};

}  // namespace ldp::server

#endif
