// Device side of the vector mean mechanisms: `laplace-vector` (docs/mechanisms.md B.1, discrete Laplace
// noise on every coordinate, mean.h's core) and, B.5 (`vector-duchi`, `vector-laplace`): clip
// the vector to the L2 ball of radius R, rotate it with U = d~^-1/2 H D (B.4, the signs D from the
// block's public seed), draw one coordinate j uniformly (private but revealed), and randomize the
// rotated coordinate with Duchi's one-bit mechanism (B.2) or discrete Laplace (B.1) on [-r, r]. The
// report is j plus the bit or the noisy value (docs/wire_format.md coordinate_bit, coordinate_value).
//
// Everything is integer arithmetic on the block's fixed-point grid, so a seed gives the same report
// bytes on every architecture: the clip (below), the exact int32 rotation (valid blocks keep every
// partial sum below 2^31), and the scale d~^-1/2 as the exact rational wire::scale_of_rotation with
// unbiased randomized rounding to the grid (B.0). No heap, no exceptions: the rotation signs and the
// rotated vector live in the caller's workspace (vector_mean_context, context.h's pattern).
#ifndef LDP_DEVICE_VECTOR_MEAN_H
#define LDP_DEVICE_VECTOR_MEAN_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/device/mean.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/random/drbg.h"
#include "ldp/random/rotation.h"
#include "ldp/random/samplers.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"
#include "ldp/wire/vector_params.h"

namespace ldp::device {

// x clipped to the L2 ball of radius R (grid units), as int32, into out[0, d), and zeros into
// out[d, 2^log2_dim) (the padding of B.4). A vector with ||x||_2 <= R is copied exactly. A longer
// one becomes sign(x_i) * floor(|x_i'| * floor(R 2^32 / n) / 2^32) with n = ceil(||x'||_2), where
// x' = x with every magnitude shifted right by the fewest bits k that make d * max|x_i'|^2 < 2^64
// (k = 0 unless max|x_i| > R, and x' keeps at least as many significant bits as R): each coordinate
// is within one grid unit below |x_i'| R / n, the norm at most R, and everything exact in 64-bit
// integers (the norm by an integer square root, one division per vector), hence identical on every
// target. Requires 1 <= R, R^2 * 2^log2_dim < 2^62, d = x.size() <= 2^log2_dim <= out.size() (a
// valid vector block guarantees the first two).
void clip_to_ball(span<const int64_t> x, int64_t radius, unsigned log2_dim, span<int32_t> out) noexcept;

// v * s rounded to an integer without bias: floor(v * mult / 2^shift) plus one with probability
// equal to the remainder over 2^shift, decided by the top `shift` bits of one 64-bit word (drawn
// whenever shift > 0, whatever v). Requires |v| * mult < 2^63 (|v| < 2^31 on a valid block).
template <class Rng>
int64_t scale_randomized(int64_t v, wire::rotation_scale s, Rng& rng) noexcept {
  if (s.shift == 0) return v * static_cast<int64_t>(s.mult);
  const int64_t product = v * static_cast<int64_t>(s.mult);
  const int64_t unit = int64_t{1} << s.shift;
  // Floor division by 2^shift, written out: right shifts of negative values are
  // implementation-defined in C++17.
  const int64_t down = product >= 0 ? product / unit : -((-product + unit - 1) / unit);
  const auto remainder = static_cast<uint64_t>(product - down * unit);
  const uint64_t u = rng.next_u64() >> (64 - s.shift);
  return down + (u < remainder ? 1 : 0);
}

// A vector block ready to randomize (see context.h): vector-duchi or vector-laplace (B.5), whose
// rotation signs D init() derives once from the block's public seed into the workspace, followed by
// the d~ int32 values each randomization rotates; or laplace-vector (B.1 per coordinate), whose
// workspace holds the d noisy coordinates a report points to. The kernel table rotates.
class vector_mean_context {
 public:
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    return layout(p).bytes.size();
  }

  // invalid_argument for a block of another mechanism (or a misaligned workspace), validate()'s
  // status for an invalid one, workspace_too_small below workspace_size(p). *out randomizes nothing
  // (invalid_argument) unless init succeeded.
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p, vector_mean_context* out,
                                   const kernels::table& k = kernels::native()) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }
  span<const uint32_t> signs() const noexcept { return rotation_.signs; }

  // The report fields of x (exactly d fixed-point coordinates, else invalid_argument; nothing is
  // drawn then). Rotated: r->index = j, and r->bit (Duchi) or r->value (Laplace); laplace-vector:
  // r->values, in the workspace.
  template <class Rng>
  status fields(span<const int64_t> x, Rng& rng, wire::report* r) noexcept;

  // The report or payload of x (out: max_output_size(p, f) bytes always suffice).
  [[nodiscard]] status randomize(span<const int64_t> x, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) noexcept;

  // The report fields of a laplace-vector block whose d coordinates the device computes itself
  // (wire::is_laplace_vector_block; docs/mechanisms.md H.5): features(span<int64_t>) writes them,
  // in fixed point, into the workspace, where each is then clamped and noised as a laplace-vector
  // coordinate, in place. invalid_argument (nothing drawn) for another block or a feature map that
  // returns false.
  template <class Features, class Rng>
  status mapped_fields(Features features, Rng& rng, wire::report* r) noexcept;

 private:
  struct placement {
    workspace_layout bytes;
    rotation_offsets rotation;
    std::size_t noisy = 0;  // byte offset
  };
  static constexpr bool is_rotated(const wire::params& p) noexcept {
    return p.mech == wire::mechanism::vector_duchi || p.mech == wire::mechanism::vector_laplace;
  }
  static constexpr placement layout(const wire::params& p) noexcept {
    placement at;
    if (is_rotated(p)) {
      at.rotation = place_rotation(at.bytes, static_cast<uint32_t>(p.get(wire::field::hadamard_dim)));
    } else if (wire::is_laplace_vector_block(p)) {
      at.noisy = at.bytes.place<int64_t>(static_cast<std::size_t>(p.get(wire::field::domain)));
    }
    return at;
  }

  validated_block block_{};
  rotation_memory rotation_{};
  span<int64_t> noisy_{};
  const kernels::table* kernels_ = nullptr;
  unsigned log2_dim_ = 0;
};

template <class Rng>
status vector_mean_context::fields(span<const int64_t> x, Rng& rng, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = block_.params.mech;
  if (!block_.ready || x.size() != block_.params.get(wire::field::domain)) return status::invalid_argument;
  if (!is_rotated(block_.params)) {
    // The members with a feature map take their own input (mapped_fields), never d values.
    if (block_.params.mech != wire::mechanism::laplace_vector) return status::invalid_argument;
    return mapped_fields(
        [&](span<int64_t> v) {
          for (std::size_t i = 0; i < v.size(); ++i) v[i] = x[i];
          return true;
        },
        rng, r);
  }
  const span<int32_t> rotated = rotation_.values;
  clip_to_ball(x, block_.params.get_signed(wire::field::radius), log2_dim_, rotated);
  kernels_->rotate_i32(rotated.data(), rotation_.signs.data(), log2_dim_);
  // j first, from the generator alone: it is revealed and must not depend on the data (B.5 step 3).
  const uint32_t j = random::uniform_below(rng, static_cast<uint32_t>(rotated.size()));
  const int64_t y = scale_randomized(rotated[j], wire::scale_of_rotation(log2_dim_), rng);
  r->index = j;
  // The scalar cores clamp y to [-r, r] (B.5 step 4) and randomize it (step 5).
  if (block_.params.mech == wire::mechanism::vector_duchi) {
    r->bit = duchi_bit(block_.params, y, rng);
  } else {
    r->value = laplace_noisy(block_.params, y, rng);
  }
  return status::ok;
}

template <class Features, class Rng>
status vector_mean_context::mapped_fields(Features features, Rng& rng, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = block_.params.mech;
  if (!block_.ready || !wire::is_laplace_vector_block(block_.params) || !features(noisy_)) {
    return status::invalid_argument;
  }
  for (int64_t& v : noisy_) v = laplace_noisy(block_.params, v, rng);
  r->values = noisy_;
  return status::ok;
}

}  // namespace ldp::device

#endif
