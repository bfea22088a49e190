// Device side of the user-level protocols of Kent, Berrett and Yu (docs/mechanisms.md C.1: P1 vote, P2
// refine, P3 rotation, P5 basis, P6 observation cap) for M1, M2, M3 and M5. A device holds its T observations
// and speaks once, in the round its block names: kent-vote (round 1) or kent-refine (round 2,
// whose block is the server's broadcast). No heap, no exceptions, no floating point.
//
// The value a device reports on [impl]:
// - Only the first T~ = min(T, observations) observations count (P6); later ones are never read.
// - Each observation is clamped to [clip_lo, clip_hi], and the local mean S / T~ of the integer sum
//   S (exact in int64 on valid blocks) is rounded to the nearest grid point, ties to even: a bias
//   of at most half a grid unit 2^-f, zero on average over uniformly spread fractions.
// - M1 uses that mean; M2 its coordinate j (fold_coordinate); M3 rotates the whole mean vector,
//   zero-padded to d~, with the exact int32 transform t = H D x (kernels rotate_i32, signs of
//   random::rotation_signs from the block's seed; it cannot overflow on valid blocks) and reports
//   on z = round(t_j / sqrt(d~)) (ties up), coordinate j of U x with U = d~^(-1/2) H D orthogonal,
//   computed exactly with an integer square root when log2 d~ is odd. |z| <= R for data in the
//   l2 ball of radius R; z is clamped to [-R, R] for data outside it.
// - M5 (blocks with basis = 1): one real per observation, clamped to [0, 1]; the value is the mean
//   of trigonometric feature j = fold_coordinate (wire/fixed_trig.h, integer arithmetic, Q30) over
//   the first T~ observations, rounded once onto the grid (ties to even).
// - Round 1 votes for the cell of that value (wire::range_cell) by SUE over the N cells (the unary
//   encoding of frequency.h); round 2 adds discrete Laplace noise after clamping to the broadcast
//   interval (mean.h's laplace_noisy).
#ifndef LDP_DEVICE_USER_LEVEL_H
#define LDP_DEVICE_USER_LEVEL_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/device/frequency.h"
#include "ldp/random/drbg.h"
#include "ldp/random/rotation.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"
#include "ldp/wire/user_level_params.h"

namespace ldp::device {

[[nodiscard]] constexpr bool is_user_level(const wire::params& p) noexcept {
  return p.mech == wire::mechanism::kent_vote || p.mech == wire::mechanism::kent_refine;
}

[[nodiscard]] constexpr bool is_rotated(const wire::params& p) noexcept {
  return is_user_level(p) && p.has(wire::field::hadamard_dim);
}

// A kent-vote or kent-refine block ready to randomize a device's observations (see context.h).
// The workspace holds the N bits of a vote (a report's bits point to them), and for M3 the sign
// words of D, derived once by init(), and the d~ values of the padded local mean rotated in place.
class user_level_context {
 public:
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    return layout(p).bytes.size();
  }

  // invalid_argument for a block that is not a Kent block (or a misaligned workspace), validate()'s
  // status for an invalid one, unsupported for a vote whose thresholds are out of another 2^w than
  // 2^32 (the coins draw 32-bit thresholds, coins.h), workspace_too_small below workspace_size(p).
  // *out randomizes nothing (invalid_argument) unless init succeeded.
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p, user_level_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // The fixed-point value the device reports on (see the top of this file). `observations` holds
  // T >= 1 observations, each of d = vector_dim coordinates (1 for M1 and M5) one after the other:
  // coordinate i of observation t is observations[t * d + i]. invalid_argument for a size that is 0
  // or not a multiple of d.
  [[nodiscard]] status value(span<const int64_t> observations, int64_t* value) noexcept;

  // The vote's report fields (P1) with coins from `coins` (drbg_coins on the device; the audits
  // pass their own): the cell of the value, unary-encoded. r->bits points into the workspace.
  // invalid_argument for a kent-refine block.
  template <class Coins>
  status vote_fields(span<const int64_t> observations, Coins& coins, wire::report* r) noexcept;

  // The one report (or payload) of this device in the round its block names: a vote, or the
  // refined value with discrete Laplace noise (out: max_output_size(p, f) bytes always suffice).
  [[nodiscard]] status randomize(span<const int64_t> observations, random::drbg& rng, span<unsigned char> out,
                                 framing f, std::size_t* written) noexcept;

 private:
  struct placement {
    workspace_layout bytes;
    std::size_t vote_bits = 0;  // byte offset
    rotation_offsets rotation;
  };
  static constexpr std::size_t vote_words(const wire::params& p) noexcept {
    const uint64_t cells = p.mech == wire::mechanism::kent_vote ? p.get(wire::field::domain) : 0;
    return static_cast<std::size_t>((cells + 63) / 64);
  }
  static constexpr placement layout(const wire::params& p) noexcept {
    placement at;
    at.vote_bits = at.bytes.place<uint64_t>(vote_words(p));
    at.rotation = place_rotation(at.bytes, is_rotated(p) ? static_cast<uint32_t>(p.get(wire::field::hadamard_dim)) : 0);
    return at;
  }
  status rotated_value(span<const int64_t> observations, std::size_t d, std::size_t used, int64_t* value) noexcept;

  validated_block block_{};
  span<uint64_t> vote_bits_{};
  rotation_memory rotation_{};
};

template <class Coins>
status user_level_context::vote_fields(span<const int64_t> observations, Coins& coins, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = block_.params.mech;
  if (block_.params.mech != wire::mechanism::kent_vote) return status::invalid_argument;
  int64_t v = 0;
  const status s = value(observations, &v);
  if (s != status::ok) return s;
  return detail::unary_encode(block_.params, wire::range_cell(block_.params, v), coins, vote_bits_, r);
}

}  // namespace ldp::device

#endif
