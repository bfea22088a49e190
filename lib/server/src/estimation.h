// The estimation arithmetic every family shares (docs/mechanisms.md A.0, D.1): implemented probabilities,
// the normal quantile of a confidence level, clipped plug-in counts and intervals (estimation.cpp).
#ifndef LDP_SERVER_SRC_ESTIMATION_H
#define LDP_SERVER_SRC_ESTIMATION_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"

namespace ldp::server::detail {

// An implemented probability T / 2^w from the block (docs/mechanisms.md D.1: p-hat, q-hat).
[[nodiscard]] double threshold_probability(const wire::params& p, wire::field f) noexcept;

// z with P(|Z| <= z) = confidence for a standard normal Z: erfc(z / sqrt 2) = 1 - confidence,
// solved by bisection. 0 for confidence 0, +inf for 1, NaN outside [0, 1].
[[nodiscard]] double confidence_z(double confidence) noexcept;

// A plug-in count clipped to [0, n] (A.0).
[[nodiscard]] double clip_count(double c, double n) noexcept;

// The grid step gamma = 2^-f of a block with frac_bits f: real units per grid unit.
inline double grid_step(const wire::params& p) noexcept {
  return std::ldexp(1.0, -static_cast<int>(p.get(wire::field::frac_bits)));
}

// The estimate of a coordinate no report speaks to: value and interval NaN, variance +inf.
inline estimate empty_estimate(uint32_t item) noexcept {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return estimate{item, nan, std::numeric_limits<double>::infinity(), nan, nan};
}

// The shared-hash collision sums of CMS, HCMS and FLH (docs/mechanisms.md A.4, A.6): term[i] is a
// plug-in of f(x)(f(x) - 1) for x = items[i]; `total` sums the terms of the distinct items, which
// `distinct` counts. It runs over the items being estimated (all d for estimate_all; for a candidate
// list the candidates only, a lower bound).
struct collision_sums {
  double total = 0;
  std::size_t distinct = 0;
};
[[nodiscard]] collision_sums sum_collisions(span<const uint32_t> items, const std::vector<double>& terms);

// An estimate with its interval count +- z sqrt(variance) and the kind of its variance.
[[nodiscard]] estimate make_estimate(uint32_t item, double count, double variance, double z,
                                     variance_kind kind) noexcept;

}  // namespace ldp::server::detail

#endif
