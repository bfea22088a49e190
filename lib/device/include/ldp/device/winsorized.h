// Device side of Levy et al. 2021's user-level mean (MECHANISMS.md C.2 "Device/server split"): a
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
#include "ldp/random/rotation.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

// Caller memory: `rotated` and `values` hold d~ entries, `signs` winsorized_sign_words(p) words.
struct winsorized_workspace {
  span<int32_t> rotated;
  span<uint32_t> signs;
  span<int64_t> values;
};

[[nodiscard]] constexpr std::size_t winsorized_rotated_size(const wire::params& p) noexcept {
  return static_cast<std::size_t>(p.get(wire::field::hadamard_dim));
}

[[nodiscard]] constexpr std::size_t winsorized_sign_words(const wire::params& p) noexcept {
  return random::rotation_sign_words(static_cast<uint32_t>(p.get(wire::field::hadamard_dim)));
}

// ws.rotated <- H D X: X the mean of the first min(count, m) samples (samples holds count x d values,
// sample after sample; each clamped to [clip_lo, clip_hi]), rounded half to even per coordinate and
// padded with zeros to d~. invalid_argument for a block that is not winsorized-bins/-sums, count 0,
// or samples.size() != count * d; workspace_too_small.
[[nodiscard]] status winsorized_rotated_mean(const wire::params& p, span<const int64_t> samples, std::size_t count,
                                             const winsorized_workspace& ws) noexcept;

// The report fields: round 1 the d~ bins, round 2 the d~ clamped values, both in ws.values (which
// r->values points to). Round 2 needs the broadcast window list (wire::check_window_list: a list
// whose digest is not the block's is parameter_mismatch); round 1 ignores `windows`.
[[nodiscard]] status winsorized_fields(const wire::params& p, span<const unsigned char> windows,
                                       span<const int64_t> samples, std::size_t count,
                                       const winsorized_workspace& ws, wire::report* r) noexcept;

// The report bytes (header + payload), and the payload alone for a batch record.
[[nodiscard]] status encode_winsorized(const wire::params& p, uint64_t fingerprint, span<const unsigned char> windows,
                                       span<const int64_t> samples, std::size_t count,
                                       const winsorized_workspace& ws, span<unsigned char> out,
                                       std::size_t* written) noexcept;
[[nodiscard]] status encode_winsorized_payload(const wire::params& p, span<const unsigned char> windows,
                                               span<const int64_t> samples, std::size_t count,
                                               const winsorized_workspace& ws, span<unsigned char> out,
                                               std::size_t* written) noexcept;

}  // namespace ldp::device

#endif
