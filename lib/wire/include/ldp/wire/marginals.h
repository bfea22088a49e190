// k-way marginals (docs/mechanisms.md H.5, Wang, Gaboardi, Smith, Xu 2020 Alg 6): the block of
// `kway-marginals` and the order of its coordinates (docs/wire_format.md 3.14).
//
// A device holds p <= 64 bits x (a uint64_t mask, bit j = attribute j). Its report has one
// coordinate per conjunction S of the attributes with 1 <= |S| <= k, the indicator 1[S subset of
// supp x] on the range [0, 1], randomized as a laplace-vector coordinate (B.1): N' = sum_{s=1..k}
// C(p, s) coordinates, L1 sensitivity N' (range width 1 each, not the paper's bound T: erratum 9),
// scale N' / eps. The order: by size |S|, then colexicographic within one size (S before S' when the
// largest element where they differ is in S'), i.e. by increasing mask value within one size. So the
// coordinate of S = {c_1 < ... < c_s} (attributes numbered from 0) is
// sum_{1 <= r < s} C(p, r) + sum_{i=1..s} C(c_i, i), the combinatorial number system (Knuth 7.2.1.3).
//
// Everything here is integer arithmetic and constexpr where it can be: device and server agree.
#ifndef LDP_WIRE_MARGINALS_H
#define LDP_WIRE_MARGINALS_H

#include <cstdint>

#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// Attributes per record: one uint64_t mask.
inline constexpr uint32_t marginals_max_attributes = 64;
// Coordinates per report (the design's bound, also the server's state: 16 bytes each).
inline constexpr uint64_t marginals_max_coordinates = 65536;

// C(n, s), saturating at 2^64 - 1 (exact whenever the true value fits).
[[nodiscard]] uint64_t binomial(uint32_t n, uint32_t s) noexcept;

// N' = sum_{s=1..k} C(p, s), saturating like binomial; 0 unless 1 <= k <= p.
[[nodiscard]] uint64_t conjunction_count(uint32_t p, uint32_t k) noexcept;

// The coordinate of the conjunction `set` (a mask of 1 <= |set| <= k attributes below p) in the order
// above; requires conjunction_count(p, |set|) <= 2^32.
[[nodiscard]] uint32_t conjunction_index(uint32_t p, uint64_t set) noexcept;

// The conjunctions of one size in order: the first is the mask of attributes 0..s-1 (1 <= s <= 64),
// next_conjunction the following set of the same size by increasing mask (Gosper's rule). Its result
// is meaningless after the last set of the size below p; callers count C(p, s) sets.
[[nodiscard]] constexpr uint64_t first_conjunction(uint32_t s) noexcept {
  return s >= 64 ? ~uint64_t{0} : (uint64_t{1} << s) - 1;
}
[[nodiscard]] constexpr uint64_t next_conjunction(uint64_t set) noexcept {
  const uint64_t lowest = set & (~set + 1);
  const uint64_t ripple = set + lowest;              // wraps to 0 only after the last 64-bit set
  return ripple | (((set ^ ripple) / lowest) >> 2);  // the ones that moved, back at the bottom
}

// The block for p attributes, conjunctions of at most k of them, the range [0, 1] on the grid of
// frac_bits (the report's values are 0 and 2^f plus noise; f = 0 is the smallest report), level eps.
// invalid_argument unless 1 <= k <= p <= 64, N' <= 65536 and the laplace-vector derivation succeeds.
[[nodiscard]] derived_params make_kway_marginals(uint32_t p, uint32_t k, unsigned frac_bits, double epsilon) noexcept;

namespace detail {
// docs/wire_format.md 3.3 for kway-marginals: 1 <= k <= p <= 64, domain = N'(p, k) <= 65536, and the
// range exactly [0, 1] (clip_lo 0, clip_hi 2^f).
[[nodiscard]] bool marginals_rules_hold(const params& p) noexcept;
}  // namespace detail

}  // namespace ldp::wire

#endif
