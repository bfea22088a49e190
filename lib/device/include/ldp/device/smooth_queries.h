// Device side of `smooth-queries` (docs/mechanisms.md H.6, Wang et al. Alg 7): x in [-1, 1]^p, given
// as p fixed-point coordinates on the block's grid (clamped), becomes its t^p Chebyshev features
// prod_j T_(v_j)(x_j) by the integer recurrence of wire/chebyshev.h (no floating point, no
// trigonometric call), each then randomized as a laplace-vector coordinate by the vector context
// (vector_mean.h), in its workspace (t^p int64 values). Every feature is computed whatever x is, so
// the work does not depend on the data (security_model.md 5); all of them before anything is drawn.
#ifndef LDP_DEVICE_SMOOTH_QUERIES_H
#define LDP_DEVICE_SMOOTH_QUERIES_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/chebyshev.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

// The report fields of x; invalid_argument, nothing drawn, for a context of another block or x not
// of p = vector_dim coordinates.
template <class Rng>
status smooth_queries_fields(vector_mean_context& c, span<const int64_t> x, Rng& rng, wire::report* r) noexcept {
  const wire::params& p = c.parameters();
  if (p.mech != wire::mechanism::smooth_queries || x.size() != p.get(wire::field::vector_dim)) {
    *r = wire::report{};
    return status::invalid_argument;
  }
  return c.mapped_fields(
      [&](span<int64_t> out) {
        wire::chebyshev_features(x, static_cast<unsigned>(p.get(wire::field::frac_bits)),
                                 static_cast<uint32_t>(p.get(wire::field::degree)), out);
        return true;
      },
      rng, r);
}

// The report or payload of x (out: max_output_size(p, f) bytes always suffice).
[[nodiscard]] inline status randomize_smooth_queries(vector_mean_context& c, span<const int64_t> x, random::drbg& rng,
                                                     span<unsigned char> out, framing f,
                                                     std::size_t* written) noexcept {
  return emit(
      c.parameters(), c.fingerprint(), [&](wire::report* r) { return smooth_queries_fields(c, x, rng, r); }, f, out,
      written);
}

}  // namespace ldp::device

#endif
