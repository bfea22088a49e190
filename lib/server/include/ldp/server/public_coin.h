// Server side of the public-coin learners (docs/mechanisms.md H.2 bernstein-1bit, H.3
// bernstein-genprot): the aggregator of their reports and the grid estimate the Bernstein surrogate
// (server/bernstein.h) is fitted to.
//
// The aggregator (aggregator::create on a public-coin block) recomputes each report's public values
// from the block's seed and the report's user index i (random/public_coin.h): its group l and the
// public sample y (y_i for 1bit, y_{i,g} for genprot). Its state is exact and mergeable: per group,
// the reports m_l, the ones c_l = sum b_i (1bit; 0 for genprot) and the signed sum S_l (1bit:
// sum b_i y_i; genprot: sum y_{i,g_i}) in 128 bits (docs/wire_format.md 7.7: 32 bytes a group, u64 m,
// u64 c, i128 S little endian, in group order). estimate_all() lists the groups (item = grid index)
// with the Horvitz-Thompson estimate; grid_estimate_of() gives either estimator. In loss units
// (grid units / V), sigma^2 the implemented discrete Laplace variance of the public samples:
// - 1bit, Horvitz-Thompson: 2 S_l / (m_l V), unbiased (P(b = 1 | v) = 1/2, E[2 b y] = v); variance
//   (v^2 + 2 sigma^2) / m_l per group, v the estimate clamped to [0, V] (plug-in: kind average);
// - 1bit, ratio: S_l / (c_l V) (y | b = 1 ~ v + DLap), variance sigma^2 / c_l (given the kept users);
// - genprot: S_l / (m_l V), the mean of y_{i,g_i} (erratum: the paper's n / |I_l| sum g_i is not an
//   estimate of anything), variance sigma^2 / m_l; biased toward 0 by the empty-set case of Alg 8
//   by at most a factor genprot_bias_bound (H.3). Either estimator: the same for genprot.
// Groups without reports (or, for the ratio, without ones) get value NaN and variance +inf.
#ifndef LDP_SERVER_PUBLIC_COIN_H
#define LDP_SERVER_PUBLIC_COIN_H

#include <cstdint>

#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/bernstein.h"
#include "ldp/wire/params.h"

namespace ldp::server {

enum class coin_estimator : uint8_t { horvitz_thompson, ratio };

// Whether m's reports are counted by the public-coin aggregator.
[[nodiscard]] bool is_public_coin_mechanism(wire::mechanism m) noexcept;

// The per-group estimates of a public-coin aggregator, in grid order: invalid_argument for an
// aggregator of another family, overflow if memory runs out.
[[nodiscard]] status grid_estimate_of(const aggregator& a, coin_estimator e, grid_estimate* out);

// The genprot bias bound (H.3): E[y_{i,g}] = v (1 - beta) with
// 0 <= beta <= 2 (1 - p_lo)^(T - 1) (1 + (T - 1) p_hi) / T, p_lo and p_hi the block's extreme
// probabilities of a 1 (wire::enumerate_levels). NaN for another block.
[[nodiscard]] double genprot_bias_bound(const wire::params& p) noexcept;

}  // namespace ldp::server

#endif
