// Device side of the scalar numeric mechanisms (MECHANISMS.md B.0-B.2): `laplace` and `kent-refine`
// (clamp to the block's range, add exact discrete Laplace noise on the fixed-point grid),
// `laplace-vector` (the same per coordinate, scale from the L1 sensitivity) and `duchi` (one bit
// from an exact integer threshold). Inputs are fixed-point integers x * 2^f (wire::to_fixed rounds
// a real, mean_params.h describes the grid). No floating point, no heap, no exceptions.
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
  const int64_t noise =
      random::discrete_laplace(rng, p.get(wire::field::scale_num), p.get(wire::field::scale_den));
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

// The report (header + payload) of value x for a laplace, kent-refine or duchi block.
// invalid_argument for other mechanisms, validate()'s status for an invalid block (nothing is drawn
// then); buffer_too_small for a short `out` (wire::max_report_size(p) always suffices).
[[nodiscard]] status randomize_value(const wire::params& p, uint64_t fingerprint, int64_t x,
                                     random::drbg& rng, span<unsigned char> out,
                                     std::size_t* written) noexcept;
// The payload only, for a batch record.
[[nodiscard]] status randomize_value_payload(const wire::params& p, int64_t x, random::drbg& rng,
                                             span<unsigned char> out, std::size_t* written) noexcept;

// Values of workspace randomize_vector needs: d for laplace-vector (the noisy coordinates before
// encoding), else 0.
[[nodiscard]] constexpr std::size_t vector_workspace_values(const wire::params& p) noexcept {
  return p.mech == wire::mechanism::laplace_vector ? static_cast<std::size_t>(p.get(wire::field::domain)) : 0;
}

// The report of a laplace-vector block for x (exactly d fixed-point coordinates; invalid_argument
// otherwise); workspace_too_small below vector_workspace_values(p). The vector mechanisms with a
// rotation (vector-duchi, vector-laplace) are in vector_mean.h.
[[nodiscard]] status randomize_vector(const wire::params& p, uint64_t fingerprint, span<const int64_t> x,
                                      random::drbg& rng, span<int64_t> workspace,
                                      span<unsigned char> out, std::size_t* written) noexcept;
[[nodiscard]] status randomize_vector_payload(const wire::params& p, span<const int64_t> x,
                                              random::drbg& rng, span<int64_t> workspace,
                                              span<unsigned char> out, std::size_t* written) noexcept;

}  // namespace ldp::device

#endif
