// Device side of the user-level protocols of Kent, Berrett and Yu (MECHANISMS.md C.1: P1 vote, P2
// refine, P3 rotation, P6 observation cap) for M1, M2 and M3. A device holds its T observations
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
// - Round 1 votes for the cell of that value (wire::kent_cell) by SUE over the N cells (the unary
//   encoding of frequency.h); round 2 adds discrete Laplace noise after clamping to the broadcast
//   interval (mean.h's laplace_noisy).
#ifndef LDP_DEVICE_USER_LEVEL_H
#define LDP_DEVICE_USER_LEVEL_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/frequency.h"
#include "ldp/random/drbg.h"
#include "ldp/random/rotation.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"
#include "ldp/wire/user_level_params.h"

namespace ldp::device {

// Caller memory, sized by the functions below (empty spans where they give 0).
struct user_level_workspace {
  span<uint64_t> vote_bits;  // the N bits of a vote
  span<int32_t> rotation;    // M3: the padded local mean, rotated in place
  span<uint32_t> signs;      // M3: the sign words of D
};

[[nodiscard]] constexpr bool is_user_level(const wire::params& p) noexcept {
  return p.mech == wire::mechanism::kent_vote || p.mech == wire::mechanism::kent_refine;
}

[[nodiscard]] constexpr bool is_rotated(const wire::params& p) noexcept {
  return is_user_level(p) && p.has(wire::field::hadamard_dim);
}

[[nodiscard]] constexpr std::size_t user_level_vote_words(const wire::params& p) noexcept {
  const uint64_t cells = p.get(wire::field::domain);
  return p.mech == wire::mechanism::kent_vote ? static_cast<std::size_t>((cells + 63) / 64) : 0;
}

[[nodiscard]] constexpr std::size_t user_level_rotation_values(const wire::params& p) noexcept {
  return is_rotated(p) ? static_cast<std::size_t>(p.get(wire::field::hadamard_dim)) : 0;
}

[[nodiscard]] constexpr std::size_t user_level_sign_words(const wire::params& p) noexcept {
  const auto padded = static_cast<uint32_t>(p.get(wire::field::hadamard_dim));
  return is_rotated(p) ? random::rotation_sign_words(padded) : 0;
}

// The fixed-point value the device reports on (see the top of this file). `observations` holds
// T >= 1 observations, each of d = vector_dim coordinates (1 for M1) one after the other:
// coordinate i of observation t is observations[t * d + i]. invalid_argument for a block that is
// not a valid Kent block, or a size that is 0 or not a multiple of d; workspace_too_small.
[[nodiscard]] status user_level_value(const wire::params& p, span<const int64_t> observations,
                                      const user_level_workspace& workspace, int64_t* value) noexcept;

// The vote's report fields (P1) with coins from `coins` (the audit passes its enumerator): the
// cell of the value, unary-encoded. r->bits points into workspace.vote_bits afterwards.
template <class Coins>
status user_level_vote_fields(const wire::params& vote, span<const int64_t> observations, Coins& coins,
                              const user_level_workspace& workspace, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = vote.mech;
  // The coins draw thresholds out of 2^32 (coins.h).
  if (vote.mech != wire::mechanism::kent_vote ||
      vote.get(wire::field::threshold_bits) != wire::oracle_threshold_bits) {
    return status::invalid_argument;
  }
  if (workspace.vote_bits.size() < user_level_vote_words(vote)) return status::workspace_too_small;
  int64_t value = 0;
  const status s = user_level_value(vote, observations, workspace, &value);
  if (s != status::ok) return s;
  return detail::unary_encode(vote, wire::kent_cell(vote, value), coins, workspace.vote_bits, r);
}

// The one report of this device for a kent-vote or kent-refine block (header + payload);
// buffer_too_small for a short `out` (wire::max_report_size(p) always suffices).
[[nodiscard]] status randomize_user_level(const wire::params& p, uint64_t fingerprint,
                                          span<const int64_t> observations, random::drbg& rng,
                                          const user_level_workspace& workspace, span<unsigned char> out,
                                          std::size_t* written) noexcept;
// The payload only, for a batch record.
[[nodiscard]] status randomize_user_level_payload(const wire::params& p, span<const int64_t> observations,
                                                  random::drbg& rng, const user_level_workspace& workspace,
                                                  span<unsigned char> out, std::size_t* written) noexcept;

}  // namespace ldp::device

#endif
