// Parameter blocks of the trusted-aggregator (central DP) protocols and the grid facts device and
// server both need: docs/mechanisms.md C.3 (Ghazi et al. 2024, sparse vectors: mechanism sparse-projection)
// and C.2 (Levy et al. 2021, user-level means: winsorized-bins and winsorized-sums, the two rounds
// of the protocol that needs only sums). docs/wire_format.md 3.2, 3.3 and 3.6 state the rules.
//
// sparse-projection [impl]: the block's clip range is symmetric, [-L, L], and L = clip_hi is the l2
// radius of a report in fixed point (grid units, gamma = 2^-f). The l2 ball of radius L is inside the
// box [-L, L]^d, so the decoder's per-value range check is implied by the radius; L^2 * s < 2^63 keeps
// every sum of squares a device or server forms in 64 bits. The device adds no noise: privacy comes
// from the server's noise (lib/server sparse_projection.h), so the block carries no epsilon.
#ifndef LDP_WIRE_CENTRAL_PARAMS_H
#define LDP_WIRE_CENTRAL_PARAMS_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/bits.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::wire {

// floor(sqrt(v)) (ldp/base/bits.h), here since the grid facts below are stated with it.
using ldp::isqrt64;

// ceil(sqrt(v)).
[[nodiscard]] constexpr uint64_t ceil_sqrt64(uint64_t v) noexcept {
  const uint64_t r = isqrt64(v);
  return r * r == v ? r : r + 1;
}

// ---- sparse-projection (C.3) ---------------------------------------------------------------------

// L, the l2 radius of a report in grid units (clip_hi of a valid sparse-projection block).
[[nodiscard]] constexpr int64_t sparse_radius(const params& p) noexcept { return p.get_signed(field::clip_hi); }

// R1 = floor(L sqrt(s)) = floor(sqrt(L^2 s)) grid units: the l1 bound of a report (||x||_1 <=
// sqrt(s) ||x||_2 for s non-zeros, and ||x||_1 is an integer). The replace-one l1 sensitivity of
// the per-coordinate sums is 2 R1.
[[nodiscard]] constexpr uint64_t sparse_l1_bound(const params& p) noexcept {
  const auto l = static_cast<uint64_t>(sparse_radius(p));
  return isqrt64(l * l * p.get(field::sparsity));
}

// The rules of wire_format.md 3.3 for a sparse-projection block beyond table 3: clip_lo = -clip_hi and
// clip_hi^2 * s < 2^63. validate() applies them.
[[nodiscard]] bool sparse_projection_ranges_hold(const params& p) noexcept;

// The block for s-sparse vectors in R^d with l2 norm at most radius_fixed / 2^frac_bits.
// invalid_argument when a rule of wire_format.md table 3 or 3.3 fails (d >= 1, 1 <= s <= min(d,
// 65535), frac_bits <= 62, radius_fixed >= 1, radius_fixed^2 * s < 2^63).
[[nodiscard]] status make_sparse_projection(uint32_t d, uint32_t s, unsigned frac_bits, int64_t radius_fixed,
                                            params* out) noexcept;

// ---- winsorized-bins and winsorized-sums (C.2, device/server split) ----------------------------
//
// [impl] A device averages its at most m samples (each clamped to [clip_lo, clip_hi]) per coordinate,
// pads the mean to d~ = hadamard_dim coordinates and rotates it with the unnormalized int32 FWHT and
// the public signs of rotation_seed: Y = H D X (docs/mechanisms.md B.4), so Y = sqrt(d~) U X in grid units
// and |Y_j| <= sum_i |X_i| <= d M < 2^31 (M = max(|clip_lo|, |clip_hi|), d = vector_dim). Every
// length below (B, tau, w) is in these rotated units. The payloads are fixed_vector with domain = d~
// entries: round 1 the bin of each Y_j, round 2 each Y_j clamped to its coordinate's window.
//
// Bins (Alg 6 step 1, with C.2's [impl] fix of the last bin): l = ceil(B / tau) bins of width 2 tau,
// I_k = [-B + 2k tau, -B + 2(k+1) tau), the last one closed and cut at B; a value is clamped to
// [-B, B] first. Midpoints -B + (2k + 1) tau. The window of a coordinate whose selected bin is k is
// [mid_k - w, mid_k + w] (w = 2 tau "paper", 3 tau "safe"; the server chooses).

// The bin arithmetic on its own, for B < 2^62 and 1 <= tau <= B (the server's one-shot form uses
// it without a block): l = ceil(B / tau), the bin of y, and the midpoint of bin k.
[[nodiscard]] constexpr uint64_t bin_count(uint64_t range, uint64_t tau) noexcept { return (range + tau - 1) / tau; }

[[nodiscard]] constexpr uint64_t bin_of(int64_t y, uint64_t range, uint64_t tau) noexcept {
  const auto b = static_cast<int64_t>(range);
  const int64_t clamped = y < -b ? -b : y > b ? b : y;
  const uint64_t k = static_cast<uint64_t>(clamped + b) / (2 * tau);
  const uint64_t last = bin_count(range, tau) - 1;
  return k > last ? last : k;
}

[[nodiscard]] constexpr int64_t bin_midpoint(uint64_t bin, uint64_t range, uint64_t tau) noexcept {
  return -static_cast<int64_t>(range) + static_cast<int64_t>((2 * bin + 1) * tau);
}

[[nodiscard]] constexpr uint64_t winsorized_bin_count(const params& p) noexcept {
  return bin_count(p.get(field::bin_range), p.get(field::bin_half_width));
}

[[nodiscard]] constexpr uint32_t winsorized_bin(const params& p, int64_t y) noexcept {
  return static_cast<uint32_t>(bin_of(y, p.get(field::bin_range), p.get(field::bin_half_width)));
}

[[nodiscard]] constexpr int64_t winsorized_midpoint(const params& p, uint32_t bin) noexcept {
  return bin_midpoint(bin, p.get(field::bin_range), p.get(field::bin_half_width));
}

// y clamped to the window of `bin` (round 2 blocks carry w).
[[nodiscard]] constexpr int64_t winsorized_clamp(const params& p, uint32_t bin, int64_t y) noexcept {
  const int64_t mid = winsorized_midpoint(p, bin), w = static_cast<int64_t>(p.get(field::window_half_width));
  return y < mid - w ? mid - w : y > mid + w ? mid + w : y;
}

// The mean of `count` samples (already clamped) whose sum is `sum`, rounded half to even: the
// device's fixed-point average (bias at most half a grid step). count >= 1.
[[nodiscard]] constexpr int64_t rounded_mean(int64_t sum, uint64_t count) noexcept {
  const auto n = static_cast<int64_t>(count);
  int64_t q = sum / n, r = sum % n;  // truncated toward zero
  if (r < 0) {                       // floor division
    q -= 1;
    r += n;
  }
  if (2 * static_cast<uint64_t>(r) > count || (2 * static_cast<uint64_t>(r) == count && (q & 1) != 0)) ++q;
  return q;
}

// The rules of wire_format.md 3.3 for winsorized blocks beyond table 3: domain = hadamard_dim,
// 1 <= vector_dim <= hadamard_dim, vector_dim * M < 2^31, 1 <= B < 2^31, tau >= 1, l <= 2^24, and for
// round 2 1 <= w with B + w < 2^31. validate() applies them.
[[nodiscard]] bool winsorized_ranges_hold(const params& p) noexcept;

// The round-1 block: d coordinates of user samples in [clip_lo, clip_hi] (fixed point, frac_bits),
// at most m samples a user, rotation signs from `rotation_seed`, bins of half width tau over
// [-bin_range, bin_range] in rotated units. invalid_argument when a rule of wire_format.md fails.
[[nodiscard]] status make_winsorized_bins(uint32_t d, unsigned frac_bits, int64_t clip_lo, int64_t clip_hi, uint32_t m,
                                          uint64_t bin_range, uint64_t tau,
                                          const unsigned char rotation_seed[seed_size], params* out) noexcept;

// ---- The window list (wire_format.md 3.6): what the server broadcasts between the rounds ------------
//
// version u8 = 1, the round-1 block's fingerprint u64, then d~ x index(l) selected bins. Its digest,
// SipHash-2-4 under the key "ldpkit window v1", is the round-2 block's window_digest, so a device with
// another window list (or for another round 1) cannot produce a report the server accepts.

inline constexpr uint8_t window_list_version = 1;

[[nodiscard]] constexpr std::size_t window_list_size(const params& p) noexcept {
  return 9 + static_cast<std::size_t>(p.get(field::hadamard_dim)) * index_bytes(winsorized_bin_count(p));
}

// Encodes the bins (one per rotated coordinate, each < l) selected on `round1`.
[[nodiscard]] status encode_window_list(const params& round1, span<const uint32_t> bins, span<unsigned char> out,
                                        std::size_t* written) noexcept;

[[nodiscard]] uint64_t window_list_digest(span<const unsigned char> list) noexcept;

// Checks `list` against a round-2 block (size, version, digest: parameter_mismatch when the digest
// differs) and reads the bin of rotated coordinate j.
[[nodiscard]] status check_window_list(const params& round2, span<const unsigned char> list) noexcept;
[[nodiscard]] uint32_t window_list_bin(const params& p, span<const unsigned char> list, std::size_t j) noexcept;

// The round-2 block of `round1` with window half width w and the digest of `list`.
[[nodiscard]] status make_winsorized_sums(const params& round1, uint64_t w, span<const unsigned char> list,
                                          params* out) noexcept;

}  // namespace ldp::wire

#endif
