// The unit-vector family, docs/mechanisms.md B.6 (`l2-ball`): vectors x in the L2 ball of radius R
// (d int64 coordinates on the grid of frac_bits fraction bits, R in the same units) reported as one
// direction on the unit sphere, d int16 coordinates of u * 2^14 (wire_format.md unit_vector), which the
// server scales by B = R * output_scale / 2^32. The parameter blocks (wire_format.md 3.2-3.3) and the
// constants device and server share.
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

}  // namespace ldp::wire

#endif
