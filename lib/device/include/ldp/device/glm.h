// Device side of glm-copies (docs/mechanisms.md H.4; Wang, Gaboardi, Smith, Xu, Algorithms 4 and 5,
// steps 2-9): a user with features x in [0, 1]^p and a label s in [-1, 1] (hinge and logistic:
// s = 2 y - 1) sends D = d (d + 1) + 1 noisy copies of (x, s). No heap, no exceptions, no floating
// point.
//
// [impl] Input on the block's grid of Q = 2^frac_bits units: x_j in [0, Q], s in [-Q, Q], each
// clamped to its range (the clamp is what bounds the sensitivity). Entry c (p + 1) + j of the
// fixed_vector report is x_j + N_Z(0, sigma2) for j < p and s + N_Z(0, sigma2) for j = p, copy by
// copy, with the exact sampler of random/discrete_gaussian.h. Every draw is independent of the data
// (the noise is added, never selected by the value), so the draws are in a fixed order.
//
// The compile-time budget LDP_CONFIG_MAX_GLM_COPIES (ldp/base/config.h) bounds D: init() refuses a
// block above it with limit_exceeded.
#ifndef LDP_DEVICE_GLM_H
#define LDP_DEVICE_GLM_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/config.h"
#include "ldp/base/fixed_point.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/random/discrete_gaussian.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/glm_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

static_assert(wire::glm_max_sigma2 == random::discrete_gaussian_max_sigma2,
              "glm-copies blocks must name sigma2 the exact sampler accepts");

// The copies this build's devices accept (LDP_CONFIG_MAX_GLM_COPIES).
inline constexpr uint64_t glm_max_copies = LDP_CONFIG_MAX_GLM_COPIES;

class glm_context {
 public:
  // The D (p + 1) noisy entries of one report.
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    workspace_layout l;
    l.place<int64_t>(static_cast<std::size_t>(p.get(wire::field::domain)));
    return l.size();
  }

  // invalid_argument for another block (or a misaligned workspace), validate()'s status for an
  // invalid one, limit_exceeded above glm_max_copies copies, workspace_too_small below
  // workspace_size(p).
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p, glm_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // The report's entries (x: p features in fixed point, s: the label in fixed point) with any
  // generator having next_u64(); invalid_argument unless x has p entries.
  template <class Rng>
  status fields(span<const int64_t> x, int64_t s, Rng& rng, wire::report* r) noexcept;

  // One report (or payload); out: max_output_size(p, f) bytes always suffice.
  [[nodiscard]] status randomize(span<const int64_t> x, int64_t s, random::drbg& rng, span<unsigned char> out,
                                 framing f, std::size_t* written) noexcept;

 private:
  validated_block block_{};
  span<int64_t> entries_{};
};

template <class Rng>
status glm_context::fields(span<const int64_t> x, int64_t s, Rng& rng, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = block_.params.mech;
  if (!block_.ready) return status::invalid_argument;
  const wire::params& p = block_.params;
  const auto dim = static_cast<std::size_t>(p.get(wire::field::vector_dim));
  if (x.size() != dim) return status::invalid_argument;
  const int64_t q = int64_t{1} << p.get(wire::field::frac_bits);
  const uint64_t sigma2 = p.get(wire::field::noise_sigma2);
  const std::size_t width = dim + 1, copies = entries_.size() / width;
  for (std::size_t c = 0; c < copies; ++c) {
    for (std::size_t j = 0; j < width; ++j) {
      // |value| <= 2^30 and |noise| < 2^63 - 2^30 in any draw that can occur (the sampler's tails
      // beyond 2^40 sigma have probability below 2^-2^70): saturating_add guards the rest.
      const int64_t value = j < dim ? (x[j] < 0 ? 0 : x[j] > q ? q : x[j]) : (s < -q ? -q : s > q ? q : s);
      entries_[c * width + j] = saturating_add(value, random::discrete_gaussian(rng, sigma2));
    }
  }
  r->values = entries_;
  return status::ok;
}

}  // namespace ldp::device

#endif
