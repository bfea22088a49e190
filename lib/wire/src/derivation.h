// Pieces of the D.1 rounding procedure (docs/mechanisms.md D.1) shared by the parameter derivations of
// the frequency oracles (oracle_params.cpp) and of the numeric mechanisms (mean_params.cpp).
#ifndef LDP_WIRE_SRC_DERIVATION_H
#define LDP_WIRE_SRC_DERIVATION_H

#include <cstdint>

#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire::detail {

// The flip threshold T out of 2^32 of binary randomized response: ceil(2^32 / (e^eps + 1)), stepped
// up until ln((2^32 - T) / T) fits (HCMS's flip, Duchi's T_lo). At least 1 (a finite level).
[[nodiscard]] uint64_t binary_flip_threshold(double epsilon) noexcept;

// GRR's rule with a window (docs/mechanisms.md A.1, G.1): the true value's window of `window` values
// is reported with T / 2^32, each of `others` other values with (2^32 - T) / (2^32 others), a window
// value with T / (2^32 window). window_epsilon is ln(T others / ((2^32 - T) window)), and
// window_threshold the T of epsilon (rounded down, stepped until the level fits). GRR is window 1.
[[nodiscard]] double window_epsilon(uint64_t t, uint64_t window, uint64_t others) noexcept;
[[nodiscard]] uint64_t window_threshold(double epsilon, uint64_t window, uint64_t others) noexcept;

// clip_lo, clip_hi and frac_bits of a block for reals lo < hi; false when they do not convert
// (mean_params.cpp).
[[nodiscard]] bool set_range(params& p, double lo, double hi, unsigned frac_bits) noexcept;

// make_laplace_vector's derivation for any laplace-vector block (mean_params.h
// is_laplace_vector_block): p with its mechanism and own fields set, plus the domain d, the range
// [lo, hi] on the grid of frac_bits, and the discrete Laplace scale of the L1 sensitivity d Q
// (mean_params.cpp; d Q <= 2^62). invalid_argument when a step fails or validate() refuses.
[[nodiscard]] derived_params laplace_vector_block(params p, uint32_t d, double lo, double hi, unsigned frac_bits,
                                                  double epsilon) noexcept;

// The derivation's result for a block: its ε_impl, and invalid_argument unless validate() accepts it
// (mean_params.cpp; the numeric and unit-vector derivations end with it).
[[nodiscard]] derived_params finish(const params& p) noexcept;

// epsilon_impl per family (docs/mechanisms.md Table D.1), which implemented_epsilon() (params.cpp)
// picks by the block's family: the oracles and the kent-vote (oracle_params.cpp), the means and the
// kent-refine, the vector means (mean_params.cpp; rows Duchi and discrete Laplace).
[[nodiscard]] double oracle_epsilon(const params& p) noexcept;
[[nodiscard]] double mean_epsilon(const params& p) noexcept;
[[nodiscard]] double vector_mean_epsilon(const params& p) noexcept;
// The unit-vector family (unit_vector_params.cpp): l2-ball ln(T / (2^w - T)).
[[nodiscard]] double unit_vector_epsilon(const params& p) noexcept;
// The longitudinal level of a mean block: ln(T_hi / T_lo) for memoized duchi (docs/mechanisms.md
// E.2), +inf for the others (mean_params.cpp).
[[nodiscard]] double mean_longitudinal_epsilon(const params& p) noexcept;

// The rules of docs/wire_format.md 3.3 for discrete Laplace and Duchi blocks (mean_params.cpp),
// checked by validate() after the field ranges of table 3 hold.
[[nodiscard]] bool numeric_rules_hold(const params& p) noexcept;

// The frequency oracles' thresholds implement a mechanism with privacy meaning (issue 21): the true
// value more likely than any other one (GRR, OLH, BLH, HR: T (values - 1) > 2^w - T; unary
// encodings and the vote: keep > other; CMS, HCMS: a flip below 1/2), so epsilon_impl > 0 and the
// estimators do not divide by zero. Checked by validate() (oracle_params.cpp).
[[nodiscard]] bool oracle_rules_hold(const params& p) noexcept;

// A memoized block's instantaneous stage keeps the permanent response more likely than any other
// (docs/wire_format.md 3.3: unary instant_keep > instant_other; local hashing the GRR rule above on
// instant_keep). Checked by validate() (oracle_params.cpp).
[[nodiscard]] bool memo_rules_hold(const params& p) noexcept;

// The rules of docs/wire_format.md 3.3 for unit-vector blocks (B.6): 1 <= d <= 65536, R^2 d~ < 2^62,
// 2^(w-1) < T < 2^w, output_scale >= 2^32 (unit_vector_params.cpp).
[[nodiscard]] bool unit_vector_rules_hold(const params& p) noexcept;

// The rules of docs/wire_format.md 3.3 for bernstein blocks (H.1): p >= 1, k >= 1, domain =
// (k + 1)^p <= 65536, a known loss, the range [0, 2^f] with f <= 32 (bernstein_params.cpp).
[[nodiscard]] bool bernstein_rules_hold(const params& p) noexcept;

// ProjUnit / FastProjUnit (B.8): 1 <= projection_dim <= d (projunit_params.cpp).
[[nodiscard]] bool projection_rules_hold(const params& p) noexcept;

}  // namespace ldp::wire::detail

#endif
