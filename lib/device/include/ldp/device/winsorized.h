// Device side of Levy et al. 2021's user-level mean (docs/mechanisms.md C.2 "Device/server split"): a
// device holding m samples of a d-vector averages them (contribution bounding: at most m samples,
// each clamped to [clip_lo, clip_hi]) in fixed point, rotates the mean with the public signs of the
// round (B.4, unnormalized int32 FWHT), and reports either the bin of every rotated coordinate
// (round 1, winsorized-bins) or every rotated coordinate clamped to the window the server broadcast
// (round 2, winsorized-sums). The device adds no noise: the trusted server (or secure aggregation
// plus server noise) does. lib/wire central_params.h defines the grid, the bins and the windows.
#ifndef LDP_DEVICE_WINSORIZED_H
#define LDP_DEVICE_WINSORIZED_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/random/drbg.h"
#include "ldp/random/rotation.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

// A winsorized-bins or winsorized-sums block ready to take users' samples (see context.h). The
// workspace holds the d~ reported values (a report points to them), the rotated mean, and the
// sign words of D, derived once by init(). Round 2 keeps a view of the broadcast window list.
class winsorized_context {
 public:
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    return layout(p).bytes.size();
  }

  // invalid_argument for a block that is not winsorized-bins/-sums (or a misaligned workspace),
  // validate()'s status for an invalid one; round 2 checks `windows`, the broadcast window list
  // (wire::check_window_list: a list whose digest is not the block's is parameter_mismatch), which
  // must outlive the context; round 1 ignores it. workspace_too_small below workspace_size(p). *out
  // takes nothing (invalid_argument) unless init succeeded.
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p, span<const unsigned char> windows,
                                   winsorized_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // *rotated <- H D X, in the workspace: X the mean of the first min(count, m) samples (samples
  // holds count >= 1 samples of d values, one after the other; each clamped to [clip_lo,
  // clip_hi]), rounded half to even per coordinate and padded with zeros to d~. invalid_argument
  // for a size that is 0 or not a multiple of d.
  [[nodiscard]] status rotated_mean(span<const int64_t> samples, span<const int32_t>* rotated) noexcept;

  // The report fields: round 1 the d~ bins, round 2 the d~ values clamped to their windows, in the
  // workspace (which r->values points to).
  [[nodiscard]] status fields(span<const int64_t> samples, wire::report* r) noexcept;

  // The report or payload of a user's samples (out: max_output_size(p, f) bytes always suffice).
  // The device adds no randomness: the generator is not drawn from.
  [[nodiscard]] status randomize(span<const int64_t> samples, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) noexcept;

 private:
  struct placement {
    workspace_layout bytes;
    std::size_t values = 0;  // byte offset
    rotation_offsets rotation;
  };
  static constexpr bool is_winsorized(const wire::params& p) noexcept {
    return p.mech == wire::mechanism::winsorized_bins || p.mech == wire::mechanism::winsorized_sums;
  }
  static constexpr placement layout(const wire::params& p) noexcept {
    const auto padded = is_winsorized(p) ? static_cast<uint32_t>(p.get(wire::field::hadamard_dim)) : 0;
    placement at;
    at.values = at.bytes.place<int64_t>(padded);
    at.rotation = place_rotation(at.bytes, padded);
    return at;
  }

  validated_block block_{};
  span<const unsigned char> windows_{};
  span<int64_t> values_{};
  rotation_memory rotation_{};
};

}  // namespace ldp::device

#endif
