// Device side of the scalar numeric mechanisms (docs/mechanisms.md B.0-B.2): `laplace` and `kent-refine`
// (clamp to the block's range, add exact discrete Laplace noise on the fixed-point grid) and `duchi`
// (one bit from an exact integer threshold). `laplace-vector` (B.1 per coordinate, scale from the
// L1 sensitivity) takes a vector: vector_mean.h randomizes it. Inputs are fixed-point integers
// x * 2^f (wire::to_fixed rounds a real, mean_params.h describes the grid). No floating point, no heap, no exceptions.
//
// The cores laplace_noisy and duchi_bit are templates on the generator (anything with next_u32 and
// next_u64, e.g. random::drbg) so that the vector mechanisms and the Kent protocols use the same
// code, and tests can feed chosen words.
#ifndef LDP_DEVICE_MEAN_H
#define LDP_DEVICE_MEAN_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/fixed_point.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/random/drbg.h"
#include "ldp/random/samplers.h"
#include "ldp/wire/mean_params.h"
#include "ldp/wire/params.h"

namespace ldp::device {

// B.1: the block's range clamps x (clip, or the broadcast interval of kent-refine), then
// DLap(scale_num / scale_den) is added. The int64 field saturates only with probability below 2^-46
// on valid blocks (mean_params.h); saturation is post-processing, not a privacy loss.
// Precondition: a valid block with scale fields (laplace, laplace-vector, vector-laplace,
// kent-refine).
template <class Rng>
int64_t laplace_noisy(const wire::params& p, int64_t x, Rng& rng) noexcept {
  const int64_t noise = random::discrete_laplace(rng, p.get(wire::field::scale_num), p.get(wire::field::scale_den));
  return saturating_add(wire::clamp_to_range(p, x), noise);
}

// B.2: b = [u < N(x)] with u uniform in [0, 2^w * Q), so P(b = 1) = N(x) / (2^w * Q) exactly
// (wire::duchi_threshold). The draw does not depend on x. Precondition: a valid duchi or
// vector-duchi block.
template <class Rng>
uint8_t duchi_bit(const wire::params& p, int64_t x, Rng& rng) noexcept {
  const uint64_t n = wire::duchi_denominator(p);
  const uint64_t u = n == 0 ? rng.next_u64() : random::uniform_below64(rng, n);
  return u < wire::duchi_threshold(p, x) ? 1 : 0;
}

// A laplace, duchi or kent-refine block ready to randomize fixed-point values (see context.h;
// kent-refine for a local mean the caller computed, user_level.h computes it). No workspace.
class mean_context {
 public:
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params&) noexcept { return 0; }

  // invalid_argument for a block of another mechanism, validate()'s status for an invalid one.
  // *out randomizes nothing (invalid_argument) unless init succeeded.
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p, mean_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // The report or payload of x (out: max_output_size(p, f) bytes always suffice).
  [[nodiscard]] status randomize(int64_t x, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) const noexcept;

 private:
  validated_block block_{};
};

}  // namespace ldp::device

#endif
