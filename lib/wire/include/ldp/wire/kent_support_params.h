// The parameter block of Kent M4a's support vote (docs/mechanisms.md C.1 P4, docs/wire_format.md 3.2:
// kent-support). A voter of dimension d computes its local mean (the first T~ observations, each
// coordinate clamped to [clip_lo, clip_hi]), marks the coordinates j with |mean_j| >= tau
// (vote_threshold, grid units), keeps at most s of them (sparsity: the largest |mean_j|, ties to
// the lower index), and reports the seed of its public Rademacher signs R with
// Z = sum_j R_j V_j + DLap(t), t = scale_num / scale_den >= 2 s / alpha in vote units.
//
// Privacy: given the seed (drawn before the data are read), A = sum_j R_j V_j lies in [-s, s] for
// every dataset, so two datasets move it by at most 2 s and the report is
// epsilon_impl = 2 s t_den / t_num-LDP for the whole dataset (Table D.1's discrete Laplace row with
// Delta = 2 s).
#ifndef LDP_WIRE_KENT_SUPPORT_PARAMS_H
#define LDP_WIRE_KENT_SUPPORT_PARAMS_H

#include <cstdint>

#include "ldp/base/status.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// A vote covers at most 2^24 coordinates: the device holds d sign bits (docs/wire_format.md 3.3).
inline constexpr uint32_t kent_support_max_dim = uint32_t{1} << 24;

struct kent_support_shape {
  unsigned frac_bits = 16;
  int64_t clip_lo = 0;  // range of each observation's coordinates, fixed point
  int64_t clip_hi = 0;
  uint32_t observations = 1;  // the cap T~ (P6)
  uint32_t dimension = 0;     // d
  uint32_t sparsity = 0;      // s: the most coordinates a voter marks
  uint64_t threshold = 0;     // tau in grid units, 1 <= tau <= max(|clip_lo|, |clip_hi|)
};

// The block at level alpha in (0, 40]: DLap scale t = 2 s / alpha (laplace_scale of mean_params.h
// with Delta = 2 s, so epsilon_impl <= alpha). invalid_argument when a rule of docs/wire_format.md
// 3.3 fails.
[[nodiscard]] derived_params make_kent_support(double alpha, const kent_support_shape& shape) noexcept;

// The shape of a valid kent-support block.
[[nodiscard]] kent_support_shape support_shape_of(const params& p) noexcept;

namespace detail {

// The block rules of docs/wire_format.md 3.3 for kent-support (params.cpp calls it).
[[nodiscard]] bool kent_support_rules_hold(const params& p) noexcept;

// 2 s t_den / t_num (oracle_params.cpp's implemented_epsilon).
[[nodiscard]] double kent_support_epsilon(const params& p) noexcept;

}  // namespace detail
}  // namespace ldp::wire

#endif
