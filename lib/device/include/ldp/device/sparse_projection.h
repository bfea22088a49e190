// Device side of Ghazi et al. 2024 sparse vectors (MECHANISMS.md C.3 "Device"): a device holding a
// vector in fixed point keeps its s largest-magnitude coordinates, clips them to the l2 ball of
// radius L and sends (index, value) pairs in a sparse-projection report (docs/wire_format.md table 5,
// sparse_pairs). The device adds no randomness: a trusted server (or secure aggregation) adds the
// noise. Integer arithmetic only, no heap: the caller lends a workspace of s entries.
//
// [impl] Order of the steps and rounding:
//   1. keep the s coordinates of largest |x_j| (ties go to the lower index); zeros are never sent;
//   2. clamp each kept value to [-L, L] (the box around the ball; keeps the sums below in 64 bits);
//   3. if sum x_j^2 > L^2, scale by L / c with c = ceil(sqrt(sum x_j^2)), rounding toward zero;
//      values that round to 0 are dropped.
// Inputs are already on the grid (frac_bits of the block), so there is no separate quantization; the
// only rounding is step 3's, toward zero, which cannot leave the ball: ||x||_2 <= L holds exactly,
// hence ||x||_0 <= s and ||x||_1 <= floor(L sqrt(s)) = R1 (wire::sparse_l1_bound) with no slack to
// budget and no re-clipping.
#ifndef LDP_DEVICE_SPARSE_PROJECTION_H
#define LDP_DEVICE_SPARSE_PROJECTION_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

// Caller memory for the kept coordinates: both spans hold at least sparse_workspace_size(p) entries.
struct sparse_workspace {
  span<uint32_t> indices;
  span<int64_t> values;
};

// s, the entries each span of a sparse_workspace needs.
[[nodiscard]] constexpr std::size_t sparse_workspace_size(const wire::params& p) noexcept {
  return static_cast<std::size_t>(p.get(wire::field::sparsity));
}

// The report fields for the vector whose non-zero candidates are (indices[i], values[i]) in fixed
// point (the block's frac_bits); indices strictly increase and lie below d, and coordinates not
// listed are 0 (a dense vector passes indices 0..d-1). r->indices and r->values point into `ws`.
// invalid_argument for a block that is not a valid sparse-projection block, spans of different sizes,
// or indices that do not strictly increase; out_of_range for an index >= d; workspace_too_small.
[[nodiscard]] status sparse_projection_fields(const wire::params& p, span<const uint32_t> indices,
                                          span<const int64_t> values, sparse_workspace ws,
                                          wire::report* r) noexcept;

// The report bytes (header + payload); out needs wire::max_report_size(p) bytes at most.
[[nodiscard]] status encode_sparse_projection(const wire::params& p, uint64_t fingerprint,
                                          span<const uint32_t> indices, span<const int64_t> values,
                                          sparse_workspace ws, span<unsigned char> out,
                                          std::size_t* written) noexcept;

// The payload only, for a batch record.
[[nodiscard]] status encode_sparse_projection_payload(const wire::params& p, span<const uint32_t> indices,
                                                  span<const int64_t> values, sparse_workspace ws,
                                                  span<unsigned char> out, std::size_t* written) noexcept;

}  // namespace ldp::device

#endif
