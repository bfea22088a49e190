// Device side of the unit-vector family, docs/mechanisms.md B.6 (`l2-ball`, Duchi, Jordan, Wainwright
// 2018): clip x to the L2 ball of radius R (vector_mean.h clip_to_ball), pick the direction v = +x/||x||
// with probability 1/2 + ||x|| / (2R) (else -x/||x||), draw a non-zero Z from the discrete Gaussian
// on Z^d, keep the half-space toward v with probability T / 2^32 (else the other half), and report the
// direction of Z, turned into the chosen half by Z -> -Z, as d int16 coordinates of Z / ||Z|| * 2^14
// (docs/wire_format.md unit_vector). The server multiplies by B.
//
// Privacy is exact on the integers: the discrete Gaussian is symmetric under Z -> -Z and half() below
// is antisymmetric (ties <Z, x> = 0 go by the sign of Z's first non-zero coordinate, whatever x), so
// the two halves each have probability exactly 1/2 for every x and a report z has probability
// 2 D(z) P(want = half(z, x)), between 2 D(z) (1 - T/2^32) and 2 D(z) T/2^32 (B.6 "Privacy").
// Everything else (the sign threshold, the normalization) is utility with documented precision, in
// integers: no floating point on the device.
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

// A unit-vector block ready to randomize (see context.h). The workspace holds the clipped input
// (d~ int32, clip_to_ball's padding) and the d int64 coordinates of Z, then of the report.
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

  validated_block block_{};
  span<int32_t> clipped_{};
  span<int64_t> direction_{};
};

template <class Rng>
status unit_vector_context::fields(span<const int64_t> x, Rng& rng, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = block_.params.mech;
  const std::size_t d = direction_.size();
  if (!block_.ready || x.size() != d) return status::invalid_argument;
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
  const int64_t radius = block_.params.get_signed(wire::field::radius);
  clip_to_ball(x, radius, padded_log2(static_cast<uint32_t>(d)), clipped_);
  uint64_t squared_norm = 0;
  for (std::size_t i = 0; i < d; ++i) {
    const auto m = static_cast<uint64_t>(clipped_[i] < 0 ? -int64_t{clipped_[i]} : int64_t{clipped_[i]});
    squared_norm += m * m;
  }
  const bool positive = random::bernoulli(rng, l2_ball_sign_threshold(squared_norm, radius), 32);
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
  r->values = direction_;
  return status::ok;
}

}  // namespace ldp::device

#endif
