// Parameter blocks of the trusted-aggregator (central DP) protocols, MECHANISMS.md C.3 (Ghazi et al.
// 2024, sparse vectors: mechanism sparse-vector) and the grid facts device and server both need.
// docs/wire_format.md 3.2 and 3.3 state the rules these blocks obey.
//
// sparse-vector [impl]: the block's clip range is symmetric, [-L, L], and L = clip_hi is the l2
// radius of a report in fixed point (grid units, gamma = 2^-f). The l2 ball of radius L is inside the
// box [-L, L]^d, so the decoder's per-value range check is implied by the radius; L^2 * s < 2^63 keeps
// every sum of squares a device or server forms in 64 bits. The device adds no noise: privacy comes
// from the server's noise (lib/server sparse_projection.h), so the block carries no epsilon.
#ifndef LDP_WIRE_CENTRAL_PARAMS_H
#define LDP_WIRE_CENTRAL_PARAMS_H

#include <cstdint>

#include "ldp/base/status.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// floor(sqrt(v)), exact for every 64-bit v.
[[nodiscard]] constexpr uint64_t isqrt64(uint64_t v) noexcept {
  // Bit by bit from the top (no floating point: identical on every target).
  uint64_t root = 0;
  uint64_t bit = uint64_t{1} << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

// ceil(sqrt(v)).
[[nodiscard]] constexpr uint64_t ceil_sqrt64(uint64_t v) noexcept {
  const uint64_t r = isqrt64(v);
  return r * r == v ? r : r + 1;
}

// ---- sparse-vector (C.3) ---------------------------------------------------------------------

// L, the l2 radius of a report in grid units (clip_hi of a valid sparse-vector block).
[[nodiscard]] constexpr int64_t sparse_radius(const params& p) noexcept {
  return p.get_signed(field::clip_hi);
}

// R1 = floor(L sqrt(s)) = floor(sqrt(L^2 s)) grid units: the l1 bound of a report (||x||_1 <=
// sqrt(s) ||x||_2 for s non-zeros, and ||x||_1 is an integer). The replace-one l1 sensitivity of
// the per-coordinate sums is 2 R1.
[[nodiscard]] constexpr uint64_t sparse_l1_bound(const params& p) noexcept {
  const auto l = static_cast<uint64_t>(sparse_radius(p));
  return isqrt64(l * l * p.get(field::sparsity));
}

// The rules of wire_format.md 3.3 for a sparse-vector block beyond table 3: clip_lo = -clip_hi and
// clip_hi^2 * s < 2^63. validate() applies them.
[[nodiscard]] bool sparse_vector_ranges_hold(const params& p) noexcept;

// The block for s-sparse vectors in R^d with l2 norm at most radius_fixed / 2^frac_bits.
// invalid_argument when a rule of wire_format.md table 3 or 3.3 fails (d >= 1, 1 <= s <= min(d,
// 65535), frac_bits <= 62, radius_fixed >= 1, radius_fixed^2 * s < 2^63).
[[nodiscard]] status make_sparse_vector(uint32_t d, uint32_t s, unsigned frac_bits, int64_t radius_fixed,
                                        params* out) noexcept;

}  // namespace ldp::wire

#endif
