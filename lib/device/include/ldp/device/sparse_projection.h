// Device side of Ghazi et al. 2024 sparse vectors (docs/mechanisms.md C.3 "Device"): a device holding a
// vector in fixed point keeps its s largest-magnitude coordinates, clips them to the l2 ball of
// radius L and sends (index, value) pairs in a sparse-projection report (docs/wire_format.md table 5,
// sparse_pairs). The device adds no randomness: a trusted server (or secure aggregation) adds the
// noise. Integer arithmetic only, no heap: the caller lends a workspace of s pairs (context.h).
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
#include "ldp/device/context.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

// A vector as its non-zero candidates (indices[i], values[i]) in fixed point (the block's
// frac_bits): indices strictly increase and lie below d, coordinates not listed are 0 (a dense
// vector passes indices 0..d-1).
struct sparse_input {
  span<const uint32_t> indices;
  span<const int64_t> values;
};

// A sparse-projection block ready to project vectors (see context.h). The workspace holds the s
// kept (index, value) pairs a report points to.
class sparse_projection_context {
 public:
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    return layout(p).bytes.size();
  }

  // invalid_argument for a block that is not sparse-projection (or a misaligned workspace),
  // validate()'s status for an invalid one, workspace_too_small below workspace_size(p). *out
  // projects nothing (invalid_argument) unless init succeeded.
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p,
                                   sparse_projection_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // The report fields of x; r->indices and r->values point into the workspace. invalid_argument for
  // spans of different sizes or indices that do not strictly increase, out_of_range for an index
  // >= d.
  [[nodiscard]] status fields(sparse_input x, wire::report* r) noexcept;

  // The report or payload of x (out: max_output_size(p, f) bytes always suffice). The device adds
  // no randomness: the generator is not drawn from.
  [[nodiscard]] status randomize(sparse_input x, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) noexcept;

 private:
  struct placement {
    workspace_layout bytes;
    std::size_t values = 0, indices = 0;  // byte offsets
  };
  static constexpr placement layout(const wire::params& p) noexcept {
    const auto s =
        p.mech == wire::mechanism::sparse_projection ? static_cast<std::size_t>(p.get(wire::field::sparsity)) : 0;
    placement at;
    at.values = at.bytes.place<int64_t>(s);
    at.indices = at.bytes.place<uint32_t>(s);
    return at;
  }

  validated_block block_{};
  span<uint32_t> indices_{};
  span<int64_t> values_{};
};

}  // namespace ldp::device

#endif
