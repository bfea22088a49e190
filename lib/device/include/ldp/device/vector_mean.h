// Device side of vector mean estimation, MECHANISMS.md B.5 (`vector-duchi`, `vector-laplace`): clip
// the vector to the L2 ball of radius R, rotate it with U = d~^-1/2 H D (B.4, the signs D from the
// block's public seed), draw one coordinate j uniformly (private but revealed), and randomize the
// rotated coordinate with Duchi's one-bit mechanism (B.2) or discrete Laplace (B.1) on [-r, r]. The
// report is j plus the bit or the noisy value (docs/wire_format.md coordinate_bit, coordinate_value).
//
// Everything is integer arithmetic on the block's fixed-point grid, so a seed gives the same report
// bytes on every architecture: the clip (below), the exact int32 rotation (valid blocks keep every
// partial sum below 2^31), and the scale d~^-1/2 as the exact rational wire::scale_of_rotation with
// unbiased randomized rounding to the grid (B.0). No heap, no exceptions: the rotation signs live in
// caller memory (vector_mean_context, ARCHITECTURE.md's init(span) pattern), the rotated vector in a
// caller workspace of d~ int32 values.
#ifndef LDP_DEVICE_VECTOR_MEAN_H
#define LDP_DEVICE_VECTOR_MEAN_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
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

// A vector-duchi or vector-laplace block ready to randomize: the block, its fingerprint, the
// rotation signs D derived once from its public seed into caller memory (which must outlive the
// context), and the kernel table that rotates. A small value type (a copy of the block and a few
// words), so firmware may keep it in .bss.
class vector_mean_context {
 public:
  // uint32 words of sign memory init() needs: ceil(d~ / 32), at least 1.
  [[nodiscard]] static constexpr std::size_t sign_words(const wire::params& p) noexcept {
    return random::rotation_sign_words(static_cast<uint32_t>(p.get(wire::field::hadamard_dim)));
  }
  // int32 values of workspace each randomization needs: d~ (the padded, rotated vector).
  [[nodiscard]] static constexpr std::size_t workspace_values(const wire::params& p) noexcept {
    return static_cast<std::size_t>(p.get(wire::field::hadamard_dim));
  }

  // invalid_argument for a block of another mechanism, validate()'s status for an invalid one,
  // workspace_too_small when `signs` holds fewer than sign_words(p) words. Until init succeeds the
  // context randomizes nothing (invalid_argument).
  [[nodiscard]] status init(const wire::params& p, span<uint32_t> signs,
                            const kernels::table& k = kernels::native()) noexcept;

  const wire::params& parameters() const noexcept { return params_; }
  uint64_t fingerprint() const noexcept { return fingerprint_; }
  span<const uint32_t> signs() const noexcept { return signs_; }

  // The report fields of x (exactly d fixed-point coordinates, else invalid_argument; a workspace
  // below workspace_values() is workspace_too_small): r->index = j, and r->bit (Duchi) or r->value
  // (Laplace). Nothing is drawn unless the arguments are good.
  template <class Rng>
  status fields(span<const int64_t> x, Rng& rng, span<int32_t> workspace, wire::report* r) const noexcept;

  // The report (header + payload); buffer_too_small for a short `out` (wire::max_report_size of the
  // block always suffices).
  [[nodiscard]] status randomize(span<const int64_t> x, random::drbg& rng, span<int32_t> workspace,
                                 span<unsigned char> out, std::size_t* written) const noexcept;
  // The payload only, for a batch record.
  [[nodiscard]] status randomize_payload(span<const int64_t> x, random::drbg& rng, span<int32_t> workspace,
                                         span<unsigned char> out, std::size_t* written) const noexcept;

 private:
  wire::params params_{};
  uint64_t fingerprint_ = 0;
  span<const uint32_t> signs_{};
  const kernels::table* kernels_ = nullptr;
  unsigned log2_dim_ = 0;
};

template <class Rng>
status vector_mean_context::fields(span<const int64_t> x, Rng& rng, span<int32_t> workspace,
                                   wire::report* r) const noexcept {
  *r = wire::report{};
  r->mech = params_.mech;
  if (kernels_ == nullptr || x.size() != params_.get(wire::field::domain)) return status::invalid_argument;
  if (workspace.size() < workspace_values(params_)) return status::workspace_too_small;
  clip_to_ball(x, params_.get_signed(wire::field::radius), log2_dim_, workspace);
  kernels_->rotate_i32(workspace.data(), signs_.data(), log2_dim_);
  // j first, from the generator alone: it is revealed and must not depend on the data (B.5 step 3).
  const uint32_t j = random::uniform_below(rng, static_cast<uint32_t>(workspace_values(params_)));
  const int64_t y = scale_randomized(workspace[j], wire::scale_of_rotation(log2_dim_), rng);
  r->index = j;
  // The scalar cores clamp y to [-r, r] (B.5 step 4) and randomize it (step 5).
  if (params_.mech == wire::mechanism::vector_duchi) {
    r->bit = duchi_bit(params_, y, rng);
  } else {
    r->value = laplace_noisy(params_, y, rng);
  }
  return status::ok;
}

}  // namespace ldp::device

#endif
