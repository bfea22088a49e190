// Vector mean estimation, docs/mechanisms.md B.5 (clip to the L2 ball, rotate with B.4's U = d~^-1/2 H D,
// sample one coordinate, randomize it with Duchi B.2 or discrete Laplace B.1): the parameter blocks
// (docs/wire_format.md 3.2-3.3: vector-duchi, vector-laplace) and the fixed-point facts of the
// rotation that device and server must share bit for bit.
//
// The grid: vectors are carried as int64 coordinates x * 2^f (f = frac_bits), the radius R and the
// clip r of the rotated coordinate in the same units. The device rotates with the exact int32 FWHT
// (no normalization); every partial sum is at most sqrt(d~) * R in magnitude, and valid blocks keep
// R^2 * d~ < 2^62, so none overflows. The normalization d~^-1/2 is applied afterwards as the exact
// rational scale below.
#ifndef LDP_WIRE_VECTOR_PARAMS_H
#define LDP_WIRE_VECTOR_PARAMS_H

#include <cstdint>

#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// The scale s = mult / 2^shift that turns the unnormalized rotation v = H D x into y = s v, the
// coordinates of U x. For even L = log2 d~ it is exactly 2^(-L/2) (mult 1); for odd L it is
// 2^(-(L-1)/2) times 3037000500 / 2^32, the nearest integer ratio to 1/sqrt(2) over 2^32 (relative
// error 7.9e-12). The device uses s and the server inverts with the same s, so the estimator stays
// exactly unbiased whatever the approximation. |v| < 2^31 and mult < 2^32 keep |v| * mult < 2^63.
struct rotation_scale {
  uint64_t mult = 1;
  unsigned shift = 0;  // at most 32 + 14 = 46 (d~ <= 2^30)
};

inline constexpr uint64_t inverse_sqrt2_q32 = 3037000500u;  // round(2^32 / sqrt 2)

[[nodiscard]] constexpr rotation_scale scale_of_rotation(unsigned log2_dim) noexcept {
  if (log2_dim % 2 == 0) return {1, log2_dim / 2};
  return {inverse_sqrt2_q32, 32 + (log2_dim - 1) / 2};
}

// log2 of a block's padded dimension d~ (hadamard_dim, a power of two).
[[nodiscard]] constexpr unsigned rotation_log2(const params& p) noexcept {
  unsigned l = 0;
  while ((uint64_t{1} << l) < p.get(field::hadamard_dim)) ++l;
  return l;
}

// The clip of the rotated coordinate, B.5 step 4: the largest grid value r <= R with
// r^2 * d~ <= R^2 * 2 ln(2 d~ / beta), i.e. r = R * min(1, sqrt(2 ln(2 d~ / beta) / d~)) rounded down
// (so clipping happens with probability at most beta per user, B.4 "Concentration"). Computed with
// det_log and exact integer comparisons, identical on every platform. Requires 1 <= radius < 2^31,
// padded_dim a power of two with radius^2 * padded_dim < 2^62, and beta in (0, 1); 0 otherwise.
[[nodiscard]] int64_t vector_clip(int64_t radius, uint64_t padded_dim, double beta) noexcept;

// Blocks for vectors of d coordinates (1 <= d <= 2^30, padded to d~ = 2^ceil(log2 d)) in the L2 ball
// of radius `radius` (a real, rounded to the grid of frac_bits fraction bits), at level epsilon in
// (0, 40], with the rotation signs from the public 32-byte seed. The clip r is vector_clip(R, d~,
// beta); epsilon_impl is the scalar mechanism's on [-r, r] (the coordinate and D do not depend on
// the data): ln(T_hi / T_lo) for Duchi, 2r * t_den / t_num for Laplace (scale t = 2r / epsilon grid
// units, docs/mechanisms.md B.1). code is invalid_argument when an argument is out of range, when R
// rounds below one grid unit, or when R^2 * d~ >= 2^62 (then fewer frac_bits make the int32
// rotation fit).
[[nodiscard]] derived_params make_vector_duchi(uint32_t d, double radius, unsigned frac_bits, double epsilon,
                                               double beta, const unsigned char rotation_seed[seed_size]) noexcept;
[[nodiscard]] derived_params make_vector_laplace(uint32_t d, double radius, unsigned frac_bits, double epsilon,
                                                 double beta, const unsigned char rotation_seed[seed_size]) noexcept;

}  // namespace ldp::wire

#endif
