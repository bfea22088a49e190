// Device side of Kent M4a's support vote (docs/mechanisms.md C.1 P4 and M4): a voter holds T
// observations of d coordinates and sends one kent-support report. No heap, no exceptions, no
// floating point.
//
// [impl] The report:
// 1. A 64-bit seed, the generator's first draw, before any observation is read: the public signs
//    R_j = +-1 are bit j of ProjUnit's row 0 for that seed (random/projection.h; a set bit is -1),
//    so they do not depend on the data.
// 2. The local sums S_j of the first T~ = min(T, observations) observations, each clamped to
//    [clip_lo, clip_hi] (P6: later observations are never read), exact in int64.
// 3. V_j = 1 for the coordinates with |S_j| >= tau T~, i.e. |local mean_j| >= tau exactly (no
//    rounding of the mean); of those, at most s are kept: the largest |S_j|, ties to the lower index.
// 4. Z = sum_j R_j V_j + DLap(scale_num / scale_den) (B.1's exact sampler, the noise of laplace_noisy).
// The marked set is data dependent and the loop over the coordinates is not constant time on it
// (docs/security_model.md 5: the report is private, the device's timing is not modelled).
#ifndef LDP_DEVICE_KENT_SUPPORT_H
#define LDP_DEVICE_KENT_SUPPORT_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/fixed_point.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/random/drbg.h"
#include "ldp/random/projection.h"
#include "ldp/random/samplers.h"
#include "ldp/wire/kent_support_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

class kent_support_context {
 public:
  // The d sign bits of a report and the s kept coordinates with their |S_j|.
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    return layout(p).bytes.size();
  }

  // invalid_argument for another block (or a misaligned workspace), validate()'s status for an
  // invalid one, workspace_too_small below workspace_size(p).
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p,
                                   kent_support_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // V: the kept coordinates in increasing order (at most s; a view into the workspace, valid until
  // the next call). `observations` holds T >= 1 observations of d coordinates one after the other
  // (coordinate j of observation t at t d + j); invalid_argument for a size that is 0 or not a
  // multiple of d.
  [[nodiscard]] status support(span<const int64_t> observations, span<const uint32_t>* out) noexcept;

  // The report's fields (seed and Z) with any generator having next_u32() and next_u64().
  template <class Rng>
  status fields(span<const int64_t> observations, Rng& rng, wire::report* r) noexcept;

  // The one report (or payload) of this voter (out: max_output_size(p, f) bytes always suffice).
  [[nodiscard]] status randomize(span<const int64_t> observations, random::drbg& rng, span<unsigned char> out,
                                 framing f, std::size_t* written) noexcept;

 private:
  struct placement {
    workspace_layout bytes;
    std::size_t signs = 0, kept = 0, magnitudes = 0;  // byte offsets
  };
  static constexpr placement layout(const wire::params& p) noexcept {
    placement at;
    const auto d = static_cast<uint32_t>(p.get(wire::field::domain));
    const auto s = static_cast<std::size_t>(p.get(wire::field::sparsity));
    at.signs = at.bytes.place<uint32_t>(random::projection_row_words(d));
    at.kept = at.bytes.place<uint32_t>(s);
    at.magnitudes = at.bytes.place<uint64_t>(s);
    return at;
  }
  // sum_j R_j V_j for the seed's signs over the kept coordinates.
  status sign_sum(uint64_t seed, span<const uint32_t> kept, int64_t* out) noexcept;

  validated_block block_{};
  span<uint32_t> signs_{};
  span<uint32_t> kept_{};
  span<uint64_t> magnitudes_{};
};

template <class Rng>
status kent_support_context::fields(span<const int64_t> observations, Rng& rng, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = block_.params.mech;
  if (!block_.ready) return status::invalid_argument;
  r->seed = rng.next_u64();  // the signs must not depend on the data (step 1)
  span<const uint32_t> kept;
  status s = support(observations, &kept);
  if (s != status::ok) return s;
  int64_t sum = 0;
  s = sign_sum(r->seed, kept, &sum);
  if (s != status::ok) return s;
  const int64_t noise = random::discrete_laplace(rng, block_.params.get(wire::field::scale_num),
                                                 block_.params.get(wire::field::scale_den));
  r->value = saturating_add(sum, noise);
  return status::ok;
}

}  // namespace ldp::device

#endif
