// Fixed-point Chebyshev features of smooth-queries (docs/mechanisms.md H.6, docs/wire_format.md 3.15):
// phi_v(x) = prod_j T_{v_j}(x_j) for x in [-1, 1]^p and v in {0..t-1}^p, integer arithmetic only, so
// every device (Cortex-M included) computes the same features bit for bit and no floating point or
// trigonometric call runs on a device.
//
// Values are on the block's grid of f <= 30 fraction bits (value * 2^f). Per axis the three-term
// recurrence T_0 = 2^f, T_1 = x, T_(v+1) = round(2 x T_v / 2^f) - T_(v-1) (rounded half up) runs
// unclamped; each value is then clamped to [-2^f, 2^f]. Its error against 2^f T_v(x / 2^f) is at
// most v (v - 1) / 4 grid units: the rounding errors r_i (|r_i| <= 1/2) propagate as
// e_v = sum_i r_i U_(v-i)(x) with |U_m| <= m + 1 (H.6); T_0, T_1 and every T_v at x = -1, 0, 1 are
// exact (the products are exact there), and the clamp only moves a value towards the true one.
// The features multiply the axes in order 0, 1, ..., p - 1, rounding half up after each product,
// so a feature is within sum_j v_j (v_j - 1) / 4 + (p - 1) / 2 grid units of 2^f phi_v (every
// factor lies in [-1, 1]). With f <= 30 no intermediate leaves int64: |T_v| < 2^31 unclamped
// (the error bound stays below 2^30 for t <= 65536) and every product is below 2^62.
#ifndef LDP_WIRE_CHEBYSHEV_H
#define LDP_WIRE_CHEBYSHEV_H

#include <cstdint>

#include "ldp/base/span.h"

namespace ldp::wire {

inline constexpr unsigned chebyshev_max_frac_bits = 30;

// 2^f T_v(x / 2^f) for v = 0 .. out.size() - 1 by the recurrence above, x clamped to [-2^f, 2^f]
// first. Requires f <= chebyshev_max_frac_bits.
void chebyshev_values(int64_t x, unsigned frac_bits, span<int64_t> out) noexcept;

// The t^p features of x (p = x.size() coordinates on the grid, each clamped to [-1, 1]) into
// out[0, t^p), index l = sum_j v_j t^j (axis 0 fastest). No scratch: axis j's values T_v(x_j) are
// generated in increasing v while block v of the level is written from block 0, which T_0 = 1
// leaves unchanged. Requires t >= 1, out.size() == t^p and f <= chebyshev_max_frac_bits.
void chebyshev_features(span<const int64_t> x, unsigned frac_bits, uint32_t t, span<int64_t> out) noexcept;

// The bound above on |feature_v - 2^f phi_v| in grid units, for the multi-index of feature l.
[[nodiscard]] double chebyshev_feature_error_bound(uint64_t l, uint32_t t, uint32_t p) noexcept;

}  // namespace ldp::wire

#endif
