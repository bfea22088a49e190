// The A.0 support model of a pure frequency oracle and its template estimator (docs/mechanisms.md A.0-A.6;
// estimation.cpp).
#ifndef LDP_SERVER_SRC_SUPPORT_MODEL_H
#define LDP_SERVER_SRC_SUPPORT_MODEL_H

#include <cstdint>
#include <vector>

#include "estimation.h"
#include "ldp/base/span.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"

namespace ldp::server::detail {

// The A.0 template for a "pure" oracle: a report supports the true value with probability p and
// any other value with probability q (implemented values).
struct support_model {
  double p = 0;
  double q = 0;

  // True when p == q, where no estimator exists (epsilon_impl = 0).
  [[nodiscard]] bool degenerate() const noexcept { return !(p - q != 0); }
  // (C_v - n q) / (p - q).
  [[nodiscard]] double count(double support, double n) const noexcept { return (support - n * q) / (p - q); }
  // n q (1 - q) / (p - q)^2 + c_v (1 - p - q) / (p - q), with c_v = the estimate clipped to [0, n].
  [[nodiscard]] double variance(double estimate, double n) const noexcept {
    return n * leading() + clip_count(estimate, n) * (1 - p - q) / (p - q);
  }
  // The coefficient of n in the variance: q (1 - q) / (p - q)^2.
  [[nodiscard]] double leading() const noexcept { return q * (1 - q) / ((p - q) * (p - q)); }
};

// The implemented support model of a pure oracle block (docs/mechanisms.md A.1-A.5): GRR p-hat = T/2^w,
// q-hat = (1 - p-hat)/(d - 1); SUE/OUE T_keep/2^w, T_other/2^w; BLH/OLH p-hat, q* = 1/g; HR
// p-hat, 1/2; the kent-vote as SUE; a memoized block the composite channel of its two stages
// (E.1: unary p*, q*; local hashing p*, 1/g). CMS and HCMS give p = q = 0 (degenerate). p is the
// block of a mechanism counted as a frequency oracle (wire::oracle_of).
[[nodiscard]] support_model pure_model(const wire::params& p) noexcept;

// The CMS/HCMS scale c = 1/(1 - 2 q-hat) with q-hat = T_other/2^w (A.6); inf when q-hat = 1/2.
[[nodiscard]] double sketch_scale(const wire::params& p) noexcept;

// The A.0 estimates of `items` from their support counts C_v = support[v] (GRR, SUE, OUE).
[[nodiscard]] std::vector<estimate> template_estimates(const support_model& model, const std::vector<uint64_t>& support,
                                                       span<const uint32_t> items, uint64_t n, double z);

}  // namespace ldp::server::detail

#endif
