// Device side of the unit-vector family, docs/mechanisms.md B.6 (`l2-ball`) and B.7 (`privunitg`).
//
// l2-ball (Duchi, Jordan, Wainwright 2018): clip x to the L2 ball of radius R (vector_mean.h
// clip_to_ball), pick the direction v = +x/||x|| with probability 1/2 + ||x|| / (2R) (else -x/||x||),
// draw a non-zero Z from the discrete Gaussian on Z^d, keep the half-space toward v with probability
// T / 2^32 (else the other half), and report the direction of Z, turned into the chosen half by
// Z -> -Z, as d int16 coordinates of Z / ||Z|| * 2^14 (docs/wire_format.md unit_vector). The server
// multiplies by B. Privacy is exact on the integers: the discrete Gaussian is symmetric under Z -> -Z
// and half() below is antisymmetric (ties <Z, x> = 0 go by the sign of Z's first non-zero coordinate,
// whatever x), so the two halves each have probability exactly 1/2 for every x and a report z has
// probability 2 D(z) P(want = half(z, x)), between 2 D(z) (1 - T/2^32) and 2 D(z) T/2^32 (B.6 "Privacy").
//
// PrivUnitG (Asi, Feldman, Talwar 2022): the same clip and sign give w = +-x (x = 0: w = +-e_1); then
// privunitg_direction below draws Z from the discrete Gaussian of sigma = 2^26 until Z is in the cap
// <Z, w / ||w||> >= g exactly when a P_keep coin said so, and reports Z / 2^15 (B.7). Privacy is exact
// given the interval [Q_lo, Q_hi] of the cap's probability, which the block derivation bounds (B.7).
//
// Everything else (the sign threshold, the normalization, the rounding) is utility with documented
// precision, in integers: no floating point on the device.
#ifndef LDP_DEVICE_UNIT_VECTOR_H
#define LDP_DEVICE_UNIT_VECTOR_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/int128.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/discrete_gaussian.h"
#include "ldp/random/drbg.h"
#include "ldp/random/samplers.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"
#include "ldp/wire/unit_vector_params.h"

namespace ldp::device {

// The threshold out of 2^32 of the sign step (B.6 step 2): 2^31 + floor(2^31 sqrt(S) / R) for
// S = ||x||^2 <= R^2 (grid units), computed exactly as 2^31 + isqrt(floor(S 2^62 / R^2)); 2^32 (certain)
// on the sphere. Utility only: privacy does not depend on it. Requires 1 <= R < 2^31, S <= R^2.
[[nodiscard]] uint64_t l2_ball_sign_threshold(uint64_t squared_norm, int64_t radius) noexcept;

// +1 or -1: the side of the hyperplane orthogonal to x that z lies on, sign(<z, x>), and for
// <z, x> = 0 (x = 0 included) the sign of z's first non-zero coordinate. half(-z, x) = -half(z, x) for
// every non-zero z (B.6 "Privacy"). Requires z != 0, |z_i| < 2^32, |x_i| < 2^31, d < 2^32.
[[nodiscard]] int l2_ball_half(span<const int64_t> z, span<const int32_t> x) noexcept;

// z / ||z|| * 2^14 into out (in place allowed), each coordinate rounded without bias for the integer
// square root used: floor or ceil of |z_i| 2^(30+e) / (r 2^16), r = isqrt(N 2^2e) with N = ||z||^2 and e
// placing N 2^2e in [2^60, 2^62); up by one with probability the remainder over r 2^16 (one
// uniform_below64 per coordinate, whatever z). |out_i| <= 2^14 + 1. Requires z != 0, |z_i| < 2^32.
template <class Rng>
void unit_direction(span<const int64_t> z, Rng& rng, span<int64_t> out) noexcept {
  u128 squared{0, 0};
  for (int64_t v : z) {
    const auto m = static_cast<uint64_t>(v < 0 ? -v : v);
    squared = squared + mul_64x64(m, m);
  }
  const int gap = 62 - bit_length(squared);
  const int e = gap >= 0 ? gap / 2 : -((1 - gap) / 2);  // floor(gap / 2), without shifting a negative
  const u128 scaled = e >= 0 ? squared << (2 * e) : squared >> (-2 * e);
  const uint64_t denominator = isqrt64(scaled.lo) << 16;  // r 2^16 < 2^47
  for (std::size_t i = 0; i < z.size(); ++i) {
    const int64_t v = z[i];
    const uint64_t numerator = static_cast<uint64_t>(v < 0 ? -v : v) << (30 + e);  // < 2^61
    const uint64_t up = random::uniform_below64(rng, denominator) < numerator % denominator ? 1 : 0;
    const auto magnitude = static_cast<int64_t>(numerator / denominator + up);
    out[i] = v < 0 ? -magnitude : magnitude;
  }
}

// PrivUnitG's cap and keep probability (B.7), as privunitg_direction needs them.
struct privunitg_cap {
  uint64_t keep = 0;        // P_keep: the draw is wanted in the cap with keep / 2^keep_bits
  unsigned keep_bits = 32;  // 1 .. 63
  uint32_t threshold = 0;   // g = round(t sigma), sigma = 2^26: the cap is <z, v> >= g
};

// The cap of a privunitg block (threshold_keep, threshold_bits, cap_threshold).
[[nodiscard]] privunitg_cap privunitg_cap_of(const wire::params& p) noexcept;

// c(w) = ceil(sqrt(g^2 S)) (B.7 step 3): for an integer vector w with S = ||w||^2 and any integer z,
// <z, w / sqrt(S)> >= g iff <z, w> >= c(w), since <z, w> is an integer. A 128-bit integer square root:
// exact for g < 2^32, S < 2^64.
[[nodiscard]] u128 privunitg_cap_offset(uint32_t threshold, uint64_t squared_norm) noexcept;

// [<z, w> >= offset], with <z, w> summed exactly in 128 bits (|<z, w>| < 2^110 for |z_i| < 2^63,
// |w_i| <= 2^31, z.size() <= 2^16). z.size() == w.size().
[[nodiscard]] bool privunitg_in_cap(span<const int64_t> z, span<const int32_t> w, u128 offset) noexcept;

// Step 5 of B.7: each z_i / 2^15 rounded without bias (up with probability (|z_i| mod 2^15) / 2^15, 15
// bits of one next_u32 per coordinate, whatever z), clamped at +-(2^15 - 1), in place.
template <class Rng>
void privunitg_round(span<int64_t> z, Rng& rng) noexcept {
  constexpr unsigned shift = 15;
  constexpr uint64_t clamp = (uint64_t{1} << shift) - 1;
  for (int64_t& v : z) {
    const uint64_t m = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    const uint64_t up = (rng.next_u32() >> (32 - shift)) < (m & clamp) ? 1 : 0;
    const uint64_t q = (m >> shift) + up;
    const auto magnitude = static_cast<int64_t>(q < clamp ? q : clamp);
    v = v < 0 ? -magnitude : magnitude;
  }
}

// PrivUnitG's steps 1-5 (docs/mechanisms.md B.7) on a direction given as a non-zero integer vector w of
// any dimension k = w.size() (the block's d, or ProjUnit's k after a projection): v = w / ||w|| is the
// real unit vector, squared_norm must be ||w||^2 exactly (1 <= S < 2^62, |w_i| <= 2^31, k <= 2^16).
// Draws want = Bernoulli(keep / 2^keep_bits), then Z in Z^k, each coordinate discrete_gaussian(2^52),
// until [<Z, v> >= g] == want (exact integer test, privunitg_cap_offset / privunitg_in_cap), and writes
// Z / 2^15 rounded without bias, clamped at +-(2^15 - 1), to out (out.size() == k; out is also the
// workspace of Z). No heap, no exceptions, no floating point; the number of draws depends on the
// input (B.7 step 4, timing). The output law is epsilon_impl-LDP over all unit v for
// epsilon_impl = wire::privunitg_epsilon(keep, keep_bits, g).
template <class Rng>
void privunitg_direction(span<const int32_t> w, uint64_t squared_norm, const privunitg_cap& cap, Rng& rng,
                         span<int64_t> out) noexcept {
  const bool want = random::bernoulli(rng, cap.keep, cap.keep_bits);
  const u128 offset = privunitg_cap_offset(cap.threshold, squared_norm);
  do {
    for (int64_t& v : out) v = random::discrete_gaussian(rng, wire::privunitg_sigma2);
  } while (privunitg_in_cap(out, w, offset) != want);
  privunitg_round(out, rng);
}

// B.7 "On the grid" for a direction w that B.6's sign step chose (`positive`: +w, else -w) and whose
// squared norm may be 0 (x = 0, or ProjUnit's W x = 0): then w becomes e_1 (the sign is fair there).
// Turns w into +-w in place and runs privunitg_direction on it.
template <class Rng>
void privunitg_signed_direction(span<int32_t> w, uint64_t squared_norm, bool positive, const privunitg_cap& cap,
                                Rng& rng, span<int64_t> out) noexcept {
  if (squared_norm == 0) {
    w[0] = 1;
    squared_norm = 1;
  }
  if (!positive) {
    for (int32_t& v : w) v = -v;  // |w_i| < 2^31
  }
  privunitg_direction(w, squared_norm, cap, rng, out);
}

// B.6 steps 2-3, shared by the family's devices (ProjUnit's too, B.8): x (d = x.size() coordinates)
// clipped into the ball of `radius` into clipped (clip_to_ball, padded_dim(d) of them), S = ||x||^2
// exactly into *squared_norm, then the sign of the direction, true (+x) with probability
// l2_ball_sign_threshold(S, radius) / 2^32 (one 32-bit word).
template <class Rng>
bool clip_and_draw_sign(span<const int64_t> x, int64_t radius, Rng& rng, span<int32_t> clipped,
                        uint64_t* squared_norm) noexcept {
  const auto d = static_cast<uint32_t>(x.size());
  clip_to_ball(x, radius, padded_log2(d), clipped);
  uint64_t sum = 0;
  for (std::size_t i = 0; i < d; ++i) {
    const auto m = static_cast<uint64_t>(clipped[i] < 0 ? -int64_t{clipped[i]} : int64_t{clipped[i]});
    sum += m * m;
  }
  *squared_norm = sum;
  return random::bernoulli(rng, l2_ball_sign_threshold(sum, radius), 32);
}

// A unit-vector block ready to randomize (see context.h). The workspace holds the clipped input
// (d~ int32, clip_to_ball's padding; PrivUnitG's w) and the d int64 coordinates of Z, then of the report.
class unit_vector_context {
 public:
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    return layout(p).bytes.size();
  }

  // invalid_argument for a block of another family (or a misaligned workspace), validate()'s status
  // for an invalid one, workspace_too_small below workspace_size(p).
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p, unit_vector_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // The report fields of x (exactly d fixed-point coordinates, else invalid_argument; nothing is
  // drawn then): r->values, in the workspace. Any generator with next_u32() and next_u64().
  template <class Rng>
  status fields(span<const int64_t> x, Rng& rng, wire::report* r) noexcept;

  // The report or payload of x (out: max_output_size(p, f) bytes always suffice).
  [[nodiscard]] status randomize(span<const int64_t> x, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) noexcept;

 private:
  struct placement {
    workspace_layout bytes;
    std::size_t clipped = 0, direction = 0;  // byte offsets
  };
  static constexpr placement layout(const wire::params& p) noexcept {
    placement at;
    const auto d = static_cast<uint32_t>(p.get(wire::field::domain));
    at.clipped = at.bytes.place<int32_t>(padded_dim(d));
    at.direction = at.bytes.place<int64_t>(d);
    return at;
  }

  // Clips x into clipped_ (B.6 step 2) and draws the sign of its direction (step 3): true for +x.
  template <class Rng>
  bool clip_and_sign(span<const int64_t> x, Rng& rng, uint64_t* squared_norm) noexcept;
  template <class Rng>
  void l2_ball_fields(span<const int64_t> x, Rng& rng) noexcept;
  template <class Rng>
  void privunitg_fields(span<const int64_t> x, Rng& rng) noexcept;

  validated_block block_{};
  span<int32_t> clipped_{};
  span<int64_t> direction_{};
};

template <class Rng>
status unit_vector_context::fields(span<const int64_t> x, Rng& rng, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = block_.params.mech;
  if (!block_.ready || x.size() != direction_.size()) return status::invalid_argument;
  switch (wire::unit_vector_of(block_.params.mech)) {
    case wire::unit_vector_member::l2_ball: l2_ball_fields(x, rng); break;
    case wire::unit_vector_member::privunitg: privunitg_fields(x, rng); break;
    case wire::unit_vector_member::projunit:
    case wire::unit_vector_member::fastprojunit: return status::invalid_argument;  // projected_unit_context
  }
  r->values = direction_;
  return status::ok;
}

template <class Rng>
bool unit_vector_context::clip_and_sign(span<const int64_t> x, Rng& rng, uint64_t* squared_norm) noexcept {
  return clip_and_draw_sign(x, block_.params.get_signed(wire::field::radius), rng, clipped_, squared_norm);
}

template <class Rng>
void unit_vector_context::l2_ball_fields(span<const int64_t> x, Rng& rng) noexcept {
  const std::size_t d = direction_.size();
  // Step 3's proposal first, from the generator alone: a non-zero draw of the discrete Gaussian with
  // each coordinate below 2^32 in magnitude (a symmetric truncation; sigma = 2^20, so it never binds
  // in practice).
  bool zero = true;
  while (zero) {
    for (std::size_t i = 0; i < d; ++i) {
      int64_t v = 0;
      do {
        v = random::discrete_gaussian(rng, wire::l2_ball_sigma2);
      } while (v <= -(int64_t{1} << 32) || v >= (int64_t{1} << 32));
      direction_[i] = v;
      zero = zero && v == 0;
    }
  }
  // Steps 1-2: the clipped input and the sign of its direction.
  uint64_t squared_norm = 0;
  const bool positive = clip_and_sign(x, rng, &squared_norm);
  // Step 4: the half toward the signed direction with T / 2^w, else the other one; Z -> -Z moves Z
  // to the wanted half without changing its law within the half.
  const bool keep = random::bernoulli(rng, block_.params.get(wire::field::threshold_keep),
                                      static_cast<unsigned>(block_.params.get(wire::field::threshold_bits)));
  const int want = positive == keep ? 1 : -1;
  if (l2_ball_half(direction_, span<const int32_t>(clipped_.data(), d)) != want) {
    for (std::size_t i = 0; i < d; ++i) direction_[i] = -direction_[i];
  }
  // Step 5: the direction on the int16 grid.
  unit_direction(span<const int64_t>(direction_.data(), d), rng, direction_);
}

template <class Rng>
void unit_vector_context::privunitg_fields(span<const int64_t> x, Rng& rng) noexcept {
  // B.7 "On the grid": w = +-x with B.6's sign threshold, then the cap steps on w (the first d
  // coordinates of the clipped input; the rest is clip_to_ball's padding).
  uint64_t squared_norm = 0;
  const bool positive = clip_and_sign(x, rng, &squared_norm);
  privunitg_signed_direction(span<int32_t>(clipped_.data(), direction_.size()), squared_norm, positive,
                             privunitg_cap_of(block_.params), rng, direction_);
}

}  // namespace ldp::device

#endif
