// Parameter blocks of the distribution family (docs/mechanisms.md G, docs/wire_format.md 3.9): a value
// in [lo, hi] (fixed point, f = frac_bits) falls in one of D buckets (range_cells.h), and a device
// reports on its bucket. Square Wave (G.1) reports a bucket near its own; the tree forms (G.2
// hierarchical histogram, G.3 Haar) draw a level uniformly first and report the level's node of
// their bucket through OLH on the block's domain. One report per device: epsilon_impl is the
// report's level (Square Wave's window rule, or the inner OLH block's).
#ifndef LDP_WIRE_DISTRIBUTION_PARAMS_H
#define LDP_WIRE_DISTRIBUTION_PARAMS_H

#include <cstdint>

#include "ldp/wire/distribution_block.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/range_cells.h"

namespace ldp::wire {

// The bucket count the tool and the C API use unless told otherwise: 4^5 = 2^10 (every form).
inline constexpr uint32_t distribution_default_buckets = 1024;

// Square Wave's window half width b in buckets (G.1): round(D b(eps)), b(eps) = (eps e^eps - e^eps +
// 1) / (2 e^eps (e^eps - 1 - eps)), the width that maximises the mutual information of Li et al.
[[nodiscard]] uint32_t square_wave_half_width(double epsilon, uint32_t buckets) noexcept;

// Square Wave over D in [2, 2^16] buckets of [lo, hi], window half width b (`half_width` < 0: the
// rule above): the window's 2b + 1 outputs together with T / 2^32 = (2b + 1) e^eps / ((2b + 1)
// e^eps + D - 1) (rounded toward privacy), epsilon_impl = ln(T (D - 1) / ((2^32 - T)(2b + 1))).
// invalid_argument for epsilon outside (0, 40], D out of range, b > D, or a range with fewer grid
// points than buckets.
[[nodiscard]] derived_params make_square_wave(double epsilon, uint32_t buckets, double lo, double hi,
                                              unsigned frac_bits, int64_t half_width = -1) noexcept;

// The fan-out the rule of G.2 takes for D buckets: among B in [2, 16] with D a power of B, the one
// of least (B - 1) / ln(B)^2 (the worst range's variance, 2 (B - 1) nodes on each of log_B D levels
// of n / log_B D reports each); 0 when D is a power of none.
[[nodiscard]] uint32_t default_branching(uint32_t buckets) noexcept;

// The hierarchical histogram over D = B^h buckets (B = `branching`, 0: default_branching), h >= 1,
// D <= 2^16; inner OLH at epsilon with g chosen as make_olh chooses.
[[nodiscard]] derived_params make_hierarchical(double epsilon, uint32_t buckets, uint32_t branching, double lo,
                                               double hi, unsigned frac_bits) noexcept;

// The Haar form over D = 2^h buckets, 2 <= D <= 2^16; inner OLH at epsilon.
[[nodiscard]] derived_params make_haar(double epsilon, uint32_t buckets, double lo, double hi,
                                       unsigned frac_bits) noexcept;

// The inner OLH item of bucket v in group g of a valid tree-form block (G.2, G.3):
// hierarchical: the node of level g + 1, v / B^(h - 1 - g); haar: 2 a + s for the coefficient node
// a = v >> (h - g) of level g and s = bit h - g - 1 of v (0: the left half, +1 in the coefficient).
[[nodiscard]] uint32_t distribution_item(const params& p, uint32_t g, uint32_t bucket) noexcept;

namespace detail {
// The rules of docs/wire_format.md 3.3 for distribution blocks, checked by validate().
[[nodiscard]] bool distribution_rules_hold(const params& p) noexcept;
// Square Wave's epsilon_impl (the tree forms' is their inner block's).
[[nodiscard]] double square_wave_epsilon(const params& p) noexcept;
}  // namespace detail

}  // namespace ldp::wire

#endif
