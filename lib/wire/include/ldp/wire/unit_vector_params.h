// The unit-vector family, docs/mechanisms.md B.6 (`l2-ball`) and B.7 (`privunitg`): vectors x in the L2
// ball of radius R (d int64 coordinates on the grid of frac_bits fraction bits, R in the same units)
// reported as d int16 coordinates (wire_format.md unit_vector: l2-ball's unit direction times 2^14,
// PrivUnitG's Gaussian draw over 2^15), which the server multiplies by B / 2^14, B = R * output_scale / 2^32.
// The parameter blocks (wire_format.md 3.2-3.3) and the constants device and server share.
#ifndef LDP_WIRE_UNIT_VECTOR_PARAMS_H
#define LDP_WIRE_UNIT_VECTOR_PARAMS_H

#include <cstdint>

#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// The largest d of a unit-vector block (a report is 2 d bytes of payload).
inline constexpr uint32_t unit_vector_max_dim = 65536;

// The variance sigma^2 of the discrete Gaussian whose direction the l2-ball device reports (B.6 step
// 3): sigma = 2^20 grid steps, so the lattice moves the direction by about 2^-20 (B.6 "Precision").
inline constexpr uint64_t l2_ball_sigma2 = uint64_t{1} << 40;

// c_d = E|U_1| for U uniform on the unit sphere of R^d, Gamma(d/2) / (sqrt(pi) Gamma((d+1)/2)), by the
// recurrence c_1 = 1, c_2 = 2 / pi, c_{d+2} = c_d d / (d + 1): IEEE multiplications and divisions
// only, identical on every platform. d >= 1.
[[nodiscard]] double sphere_abs_coordinate_mean(uint32_t d) noexcept;

// B / R of a block: output_scale / 2^32.
[[nodiscard]] double unit_vector_scale(const params& p) noexcept;

// The l2-ball block for vectors of d coordinates (1 <= d <= unit_vector_max_dim) in the ball of
// radius `radius` (a real, rounded to the grid of frac_bits fraction bits; R^2 * 2^ceil(log2 d) < 2^62)
// at level epsilon in (0, 40]. threshold_keep T out of 2^32 keeps the half-space toward the sign-randomized
// direction: 2^32 minus binary_flip_threshold(epsilon), so epsilon_impl = ln(T / (2^32 - T)) <= epsilon
// (D.1). output_scale = round(2^32 / ((2 T / 2^32 - 1) c_d)) (B.6 "Unbiasing constant").
[[nodiscard]] derived_params make_l2_ball(uint32_t d, double radius, unsigned frac_bits, double epsilon) noexcept;

// PrivUnitG (docs/mechanisms.md B.7). The device draws Z from the discrete Gaussian of sigma = 2^26
// (sigma^2 = 2^52, random::discrete_gaussian_max_sigma2) and reports Z / 2^15 (units of sigma / 2^11).
inline constexpr unsigned privunitg_sigma_log2 = 26;
inline constexpr uint64_t privunitg_sigma2 = uint64_t{1} << (2 * privunitg_sigma_log2);
// The cap's threshold t = g / sigma is at most 3 (B.7 "Privacy: what is bounded": the tail series'
// error analysis covers s <= 3).
inline constexpr uint32_t privunitg_max_cap_threshold = uint32_t{3} << privunitg_sigma_log2;
// delta_E: |q(v) - Qbar(g / sigma)| <= 24 / (pi^2 sqrt(2 pi) sigma) + 2 sqrt(d) e^(-sigma^2) < 0.9703 2^-26
// for every unit v and integer g (B.7, Esseen's smoothing inequality at T = pi).
inline constexpr double privunitg_cap_error = 0.9703 / 67108864.0;

// Qbar(s) = P(N(0, 1) >= s) for 0 <= s <= 3 by the series 1/2 - phi(s) sum_n s^(2n+1) / (2n+1)!!, with
// det_exp: the same bits on every platform, relative error below 1e-10 (B.7).
[[nodiscard]] double upper_normal_tail(double s) noexcept;

// [Q_lo, Q_hi] around the cap probability q(v) of every unit v for a cap threshold g:
// Qbar(g / sigma) -+ (delta_E + 2^-30 Qbar + 2^-60) (B.7).
struct cap_probability_bounds {
  double lo = 0, hi = 0;
};
[[nodiscard]] cap_probability_bounds privunitg_cap_bounds(uint32_t cap_threshold) noexcept;

// epsilon_impl = ln max{p (1 - Q_lo) / ((1 - p) Q_lo), Q_hi / Q_lo, (1 - Q_lo) / (1 - Q_hi)} for
// p = keep / 2^bits (B.7 "Privacy: what is exact"); +inf unless Q_hi <= p < 1.
[[nodiscard]] double privunitg_epsilon(uint64_t keep, unsigned bits, uint32_t cap_threshold) noexcept;

// The continuous mechanism's moments for a unit v at t = g / sigma and P(cap) = p (B.7): mean = E<U, v> /
// sigma_U = phi(t) (p / Q - (1 - p) / (1 - Q)) and along = E<U, v>^2 / sigma_U^2 =
// p (1 + t phi(t) / Q) + (1 - p) (1 - t phi(t) / (1 - Q)); every direction orthogonal to v has second
// moment 1.
struct privunitg_moment_pair {
  double mean = 0, along = 0;
};
[[nodiscard]] privunitg_moment_pair privunitg_moments(double t, double p) noexcept;

// The PrivUnitG block (B.7) for vectors of d coordinates in the ball of radius `radius` (B.6's domain,
// grid and ball rules) at level epsilon in [1e-3, 40]: cap_threshold g = t 2^26 for the t on the grid
// of 2^-10 in [0, 3] minimizing the continuous second moment (along + d - 1) / mean^2 at the ideal
// p = e^eps Q / (1 - Q + e^eps Q); threshold_keep P_keep = floor(2^32 e^eps Q_lo / (1 - Q_lo + e^eps Q_lo))
// stepped down until privunitg_epsilon * (1 + 2^-40) <= epsilon; output_scale = round(2^35 / mean) at
// p = P_keep / 2^32, so the family's aggregator estimates x^ = R q output_scale / 2^46.
[[nodiscard]] derived_params make_privunitg(uint32_t d, double radius, unsigned frac_bits, double epsilon) noexcept;

}  // namespace ldp::wire

#endif
