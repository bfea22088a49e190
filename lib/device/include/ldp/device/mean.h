// Device side of the scalar numeric mechanisms (docs/mechanisms.md B.0-B.2): `laplace` and `kent-refine`
// (clamp to the block's range, add exact discrete Laplace noise on the fixed-point grid) and `duchi`
// (one bit from an exact integer threshold), memoized by alpha-point rounding when its block says so
// (E.2). `laplace-vector` (B.1 per coordinate, scale from the
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
#include "ldp/device/coins.h"
#include "ldp/device/context.h"
#include "ldp/device/memo.h"
#include "ldp/device/memo_key.h"
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

// [u < threshold] with u uniform in [0, denominator), denominator 0 standing for 2^64 (one raw
// word): probability threshold / denominator exactly.
template <class Rng>
bool below_fraction(Rng& rng, uint64_t threshold, uint64_t denominator) noexcept {
  const uint64_t u = denominator == 0 ? rng.next_u64() : random::uniform_below64(rng, denominator);
  return u < threshold;
}

// B.2: b = [u < N(x)] with u uniform in [0, 2^w * Q), so P(b = 1) = N(x) / (2^w * Q) exactly
// (wire::duchi_threshold). The draw does not depend on x. Precondition: a valid duchi or
// vector-duchi block.
template <class Rng>
uint8_t duchi_bit(const wire::params& p, int64_t x, Rng& rng) noexcept {
  return below_fraction(rng, wire::duchi_threshold(p, x), wire::duchi_denominator(p)) ? 1 : 0;
}

// The permanent draws of a memoized device (docs/mechanisms.md E.2, E.3): each is made by a fresh
// random::drbg seeded with memo_seed() from the device secret, so the same call always gives the
// same answer and nothing is stored. The privacy audit replaces it with enumerating coins of the
// same interface.
class memo_permanent {
 public:
  memo_permanent(const kernels::table& k, const unsigned char* secret, memo_scope scope) noexcept
      : kernels_(k), secret_(secret), scope_(scope) {}

  // Device-permanent: uniform in [0, n) (n >= 1), from the stream of memo_purpose::device.
  uint64_t device_uniform(uint64_t n) const noexcept;
  // Permanent for `input`: [u < threshold] with u uniform in [0, denominator) (0: 2^64), from the
  // stream of memo_purpose::value, input.
  bool value_bit(uint32_t input, uint64_t threshold, uint64_t denominator) const noexcept;

 private:
  const kernels::table& kernels_;
  const unsigned char* secret_;
  memo_scope scope_;
};

// E.2: the reported bit of a memoized duchi device holding x. The flip (instantaneous, from
// `instant`, drawn first) and alpha (device-permanent) do not depend on x; x picks the grid point j
// by alpha-point rounding, whose permanent duchi bit is flipped with Phi / 2^32. Precondition: a
// valid memoized duchi block.
template <class Permanent, class Coins>
uint8_t memoized_duchi_bit(const wire::params& p, int64_t x, Permanent& permanent, Coins& instant) noexcept {
  const uint64_t flip_threshold = p.get(wire::field::output_flip);
  const bool flip = flip_threshold != 0 && instant.bernoulli(flip_threshold);
  const uint64_t alpha = permanent.device_uniform(wire::memo_grid_step(p));
  const uint32_t j = wire::memo_grid_index(p, x, alpha);
  const bool bit =
      permanent.value_bit(j, wire::duchi_threshold(p, wire::memo_grid_point(p, j)), wire::duchi_denominator(p));
  return bit != flip ? 1 : 0;
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

  // The report or payload of x (out: max_output_size(p, f) bytes always suffice). invalid_argument
  // for a memoized block (it needs the device secret: randomize_memoized).
  [[nodiscard]] status randomize(int64_t x, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) const noexcept;

  // The report or payload of x under a memoized duchi block (docs/mechanisms.md E.2): permanent
  // draws from key's secret and use case (memo.h), the flip from rng. invalid_argument for a block
  // that is not memoized or a key without a secret.
  [[nodiscard]] status randomize_memoized(int64_t x, const memo_key& key, random::drbg& rng, span<unsigned char> out,
                                          framing f, std::size_t* written) const noexcept;

 private:
  validated_block block_{};
};

}  // namespace ldp::device

#endif
