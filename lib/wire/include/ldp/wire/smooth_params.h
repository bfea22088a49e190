// Parameter blocks of smooth-queries (docs/mechanisms.md H.6, Wang, Gaboardi, Smith, Xu 2020, Alg 7;
// docs/wire_format.md 3.15): a device holds x in [-1, 1]^p and reports its N = t^p Chebyshev
// features prod_j T_(v_j)(x_j) (wire/chebyshev.h) as a laplace-vector report: every feature lies in
// [-1, 1], so the block's range is [-1, 1] (Q = 2^(f+1) grid units) and the per-coordinate discrete
// Laplace scale is N Q / epsilon grid units, 2 t^p / epsilon in value (erratum 10: the paper's
// b = 1 would give 2 epsilon).
#ifndef LDP_WIRE_SMOOTH_PARAMS_H
#define LDP_WIRE_SMOOTH_PARAMS_H

#include <cstdint>

#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// Largest number of features t^p of a block (its report and the server's sums grow with it).
inline constexpr uint64_t smooth_max_features = 65536;

// The block for p >= 1 attributes, t >= 2 degrees per attribute (T_0 .. T_(t-1)), frac_bits <= 30
// (wire/chebyshev.h) and epsilon in (0, 40]: vector_dim p, degree t, domain t^p, range [-1, 1] and
// the discrete Laplace scale of laplace-vector (epsilon_impl <= epsilon). invalid_argument for
// t^p above smooth_max_features or any other argument out of range.
[[nodiscard]] derived_params make_smooth_queries(uint32_t p, uint32_t t, unsigned frac_bits, double epsilon) noexcept;

// t^p, or 0 when it exceeds smooth_max_features (or t or p is 0).
[[nodiscard]] uint64_t smooth_feature_count(uint64_t p, uint64_t t) noexcept;

namespace detail {
// docs/wire_format.md 3.3 for smooth-queries: p >= 1, t >= 2, domain = t^p <= 65536, f <= 30,
// clip_lo = -2^f and clip_hi = 2^f.
[[nodiscard]] bool smooth_rules_hold(const params& p) noexcept;
}  // namespace detail

}  // namespace ldp::wire

#endif
