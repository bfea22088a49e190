// Server side of the frequency oracles (docs/mechanisms.md A.0-A.9): exact integer aggregation of wire
// reports into mergeable state, unbiased estimates with their closed-form variances evaluated with
// the implemented parameters, confidence intervals, and optional post-processing. Untrusted bytes
// never crash it: a bad report is rejected with its status and counted, the others still count.
#ifndef LDP_SERVER_FREQUENCY_H
#define LDP_SERVER_FREQUENCY_H

#include <cstdint>
#include <memory>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::server {

enum class postprocess : uint8_t {
  none,              // raw unbiased estimates (variances apply)
  clip_renormalize,  // clip at 0, rescale to sum n
  norm_sub,          // Wang et al. 2020: max(c + delta, 0) summing to n
  simplex,           // Euclidean projection of the frequencies onto the probability simplex
};

// estimate::value is the unbiased count of users holding `item`; its variance is the A.0 template
// (or the mechanism's closed form) with the plug-in c_v clipped to [0, n].
class frequency_aggregator : public aggregator {
 public:
  // As aggregator::create, for the frequency oracles (grr, sue, oue, blh, olh, flh, hr, cms, hcms) and
  // the user-level vote (kent-vote, counted as SUE); invalid_parameters for other mechanisms or an
  // estimator that would divide by zero (p-hat equal to q-hat, i.e. epsilon_impl = 0; HR/CMS/HCMS
  // with a flip probability of exactly 1/2).
  [[nodiscard]] static status create(const wire::params& p, std::unique_ptr<frequency_aggregator>* out);
  // As aggregator::deserialize; invalid_parameters for a state of another family.
  [[nodiscard]] static status deserialize(span<const unsigned char> bytes, std::unique_ptr<frequency_aggregator>* out);

  // Whether the block's mechanism is counted by this family.
  [[nodiscard]] static bool handles(wire::mechanism m) noexcept;

  // Estimates for the given candidates (any value < d; a candidate >= d gets NaN in every field).
  // CMS/HCMS/FLH: the hash-collision variance term uses the clipped estimates of the distinct
  // requested items (all d items for estimate_all). CMS/HCMS over all d items of a sparse family:
  // the mean squared error conditional on the public family (docs/mechanisms.md A.6, kind exact);
  // a candidate list gets the average over families (kind average). Empty if memory runs out
  // (never throws).
  [[nodiscard]] std::vector<estimate> estimate_items(span<const uint32_t> items, double confidence = 0.95) const;

 protected:
  explicit frequency_aggregator(const wire::params& p) : aggregator(p) {}
  std::vector<estimate> estimate_impl(double z) const final;
  // The per-oracle estimator, for valid items.
  virtual std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const = 0;
};

// Post-processing of a full estimate vector (all d items) for n reports; variances and intervals
// are dropped (set to NaN), since they no longer apply (docs/mechanisms.md A.9). `none` returns the
// input unchanged. Non-finite counts are treated as 0. Empty if memory runs out or `how` is not a
// known value (never throws).
[[nodiscard]] std::vector<estimate> apply_postprocess(span<const estimate> raw, uint64_t n, postprocess how);

struct recommendation {
  wire::mechanism mech = wire::mechanism::none;
  uint32_t g_or_k = 0;  // OLH/BLH hash range, or CMS/HCMS rows, or FLH functions k, or HR block size K; 0 otherwise
  uint32_t m = 0;       // CMS/HCMS columns, FLH hash range g, HR blocks B
  double variance_per_report = 0;  // leading Var[c_v]/n with the implemented parameters
  double std_error = 0;            // sqrt(n * variance_per_report) for the given n
  uint64_t report_bytes = 0;       // wire report size (header included)
  double estimate_cost = 0;        // steps of estimate_all after ingestion, e.g. n d hashes for OLH
};

// Every oracle ranked by implemented leading variance for (d, epsilon, n), best first, those whose
// estimate costs more than 10^11 steps after the others (docs/mechanisms.md A.8). Oracles whose
// block cannot be built for (d, epsilon) are left out; empty for invalid arguments or when memory
// runs out (never throws). CMS and HCMS use k = 16 rows and m = 1024 columns, FLH
// k = wire::flh_default_functions (src/recommend.cpp).
[[nodiscard]] std::vector<recommendation> recommend(uint32_t d, double epsilon, uint64_t n);

}  // namespace ldp::server

#endif
