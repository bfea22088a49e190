// Parameter blocks of the user-level protocols of Kent, Berrett and Yu (docs/mechanisms.md C.1): the
// round-1 vote block (kent-vote, P1) and the round-2 refine block (kent-refine, P2) of M1, M2 and
// M3 (docs/wire_format.md tables 2, 3 and 3.2).
//
// Both rounds carry the range [clip_lo, clip_hi] of the observations (fixed point, f = frac_bits)
// and the observation cap T~ (observations), so that every device of a protocol computes the same
// local mean. M2 blocks add the fold (vector_dim d, fold_coordinate j); M3 blocks add the rotation
// too (hadamard_dim d~, rotation_seed), with the range [-R, R] of the rotated coordinates. M5 blocks
// (densities on [0, 1]) add the fold and basis = 1: the device's observations are reals in [0, 1],
// fold j reports the local mean of the trigonometric feature j (fixed_trig.h's basis_feature), the
// range is the features' [-1, 1] (clip_lo = -2^f, clip_hi = 2^f) and vector_dim is k - 1.
//
// The cells of a vote split [clip_lo, clip_hi] evenly (range_cells.h, shared with the distribution
// family): C.1's cells of width h and N = ceil(2 / h) on [-1, 1] become cells of width W / N <= h.
#ifndef LDP_WIRE_USER_LEVEL_PARAMS_H
#define LDP_WIRE_USER_LEVEL_PARAMS_H

#include <cstdint>

#include "ldp/base/status.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/range_cells.h"

namespace ldp::wire {

// What the two rounds of one protocol share: the fields after the mechanism's own.
struct kent_shape {
  unsigned frac_bits = 16;
  int64_t clip_lo = 0;                           // range of each observation (M3: -R), fixed point
  int64_t clip_hi = 0;                           // (M3: R, the l2 radius)
  uint32_t observations = 1;                     // the cap T~ (P6): devices use their first T~ observations
  uint32_t vector_dim = 0;                       // d; 0 for M1 (no fold fields)
  uint32_t fold_coordinate = 0;                  // j: the coordinate the fold reports (M3: of the rotated mean)
  uint32_t hadamard_dim = 0;                     // M3 only: d~, a power of two >= d; 0 for M1 and M2
  const unsigned char* rotation_seed = nullptr;  // M3 only: the public seed of D (32 bytes)
  uint32_t basis = 0;                            // M5 only: 1, the trigonometric basis of C.1 P5
};

// Round 1 (P1): a one-hot vote over `cells` cells by SUE at level alpha in (0, 40]: every bit is
// kept with T_keep / 2^32 <= e^(alpha/2) / (1 + e^(alpha/2)) and set otherwise with
// T_other = 2^32 - T_keep, the thresholds of make_sue. epsilon_impl = 2 ln(T_keep / T_other) <=
// alpha is the level of the whole vote for the user's whole dataset: any two datasets give one-hot
// inputs, which differ in at most two bits. invalid_argument when a block cannot be built (cells
// < 2, or a shape that breaks docs/wire_format.md 3.3).
[[nodiscard]] derived_params make_kent_vote(double alpha, uint32_t cells, const kent_shape& shape) noexcept;

// Round 2 (P2): the broadcast interval [interval_lo, interval_hi] (fixed point, inside the shape's
// range) and discrete Laplace noise of scale t = (U - L) / alpha grid units (laplace_scale of
// mean_params.h: t_num = ceil(t_den (U - L) (1 + 2^-40) / alpha), t_den = 2^16 for t <= 2^42),
// epsilon_impl = (U - L) t_den / t_num <= alpha. The single-stage estimator is the same block with
// the interval equal to the whole range.
[[nodiscard]] derived_params make_kent_refine(double alpha, int64_t interval_lo, int64_t interval_hi,
                                              const kent_shape& shape) noexcept;

// The shape of a valid kent-vote or kent-refine block.
[[nodiscard]] kent_shape shape_of(const params& p) noexcept;

}  // namespace ldp::wire

#endif
