// Device side of ProjUnit and FastProjUnit (Asi, Feldman, Nelson, Nguyen, Talwar 2023;
// docs/mechanisms.md B.8): draw a 64-bit seed from the generator before reading x, clip x to the L2
// ball and draw B.6's sign, project the clipped vector with the public W the seed names
// (random/projection.h, exact integers), scale the k projected coordinates down to an int32 grid
// direction w, and run PrivUnitG's device step (B.7, privunitg_direction) on +-w in k dimensions. The
// report is the seed and the k int16 coordinates (docs/wire_format.md projected_unit).
//
// Privacy: W depends on the seed alone and the seed on nothing, so for every seed the output is
// PrivUnitG's on some direction w(x, seed), whose law is epsilon_impl-LDP over all directions (B.7);
// the pair (seed, report) is therefore epsilon_impl-LDP (B.8 "Privacy"). Everything between the clip
// and PrivUnitG's step is a deterministic function of (x, seed): utility only.
#ifndef LDP_DEVICE_PROJECTED_UNIT_H
#define LDP_DEVICE_PROJECTED_UNIT_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/device/unit_vector.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/drbg.h"
#include "ldp/random/projection.h"
#include "ldp/random/samplers.h"
#include "ldp/wire/params.h"
#include "ldp/wire/projunit_params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

// w = y / 2^e with each magnitude rounded down, e >= 0 the smallest shift for which ||w||^2 < 2^62
// (so |w_i| < 2^31), into w (w.size() == y.size() <= 2^16); returns ||w||^2 (0 for y = 0). |y_i| < 2^63.
// Rounding down keeps ||w|| <= ||y|| / 2^e; the direction moves by at most sqrt(k) / ||w|| with
// ||w|| >= 2^29.5 whenever e > 0 (B.8 "Precision").
[[nodiscard]] uint64_t projected_direction(span<const int64_t> y, span<int32_t> w) noexcept;

// A projunit or fastprojunit block ready to randomize (see context.h). The workspace holds the
// clipped input (d~ int32, the FWHT's in place for FastProjUnit), the projection's sign words
// (ProjUnit: one row of G, ceil(d / 32); FastProjUnit: D, ceil(d~ / 32)), the k int64 projected
// coordinates (then PrivUnitG's Z and the report) and the k int32 of w: for d = 784, k = 784 about
// 13.6 KB for either.
class projected_unit_context {
 public:
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    return layout(p).bytes.size();
  }

  // invalid_argument for a block that is not projunit or fastprojunit (or a misaligned workspace),
  // validate()'s status for an invalid one, workspace_too_small below workspace_size(p).
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p,
                                   projected_unit_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // The report fields of x (exactly d fixed-point coordinates, else invalid_argument; nothing is
  // drawn then): r->seed and r->values (k, in the workspace). Any generator with next_u32() and
  // next_u64(). The seed is the generator's first draw, before x is read.
  template <class Rng>
  status fields(span<const int64_t> x, Rng& rng, wire::report* r) noexcept;

  [[nodiscard]] status randomize(span<const int64_t> x, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) noexcept;

 private:
  struct placement {
    workspace_layout bytes;
    std::size_t clipped = 0, signs = 0, projected = 0, direction = 0;  // byte offsets
  };
  static constexpr std::size_t sign_words(const wire::params& p) noexcept {
    const auto d = static_cast<uint32_t>(p.get(wire::field::domain));
    return p.mech == wire::mechanism::fastprojunit ? random::rotation_sign_words(padded_dim(d))
                                                   : random::projection_row_words(d);
  }
  static constexpr placement layout(const wire::params& p) noexcept {
    placement at;
    const auto d = static_cast<uint32_t>(p.get(wire::field::domain));
    const auto k = static_cast<std::size_t>(p.get(wire::field::projection_dim));
    at.clipped = at.bytes.place<int32_t>(padded_dim(d));
    at.signs = at.bytes.place<uint32_t>(sign_words(p));
    at.projected = at.bytes.place<int64_t>(k);
    at.direction = at.bytes.place<int32_t>(k);
    return at;
  }

  // y = W x (up to W's 1/sqrt(k)) of the clipped input, from the seed's key.
  status project(const unsigned char key[random::chacha20_key_size]) noexcept;

  validated_block block_{};
  uint32_t dim_ = 0;
  span<int32_t> clipped_{};
  span<uint32_t> signs_{};
  span<int64_t> projected_{};
  span<int32_t> direction_{};
};

template <class Rng>
status projected_unit_context::fields(span<const int64_t> x, Rng& rng, wire::report* r) noexcept {
  *r = wire::report{};
  r->mech = block_.params.mech;
  if (!block_.ready || x.size() != dim_) return status::invalid_argument;
  // The seed first: W must not depend on x (B.8 "Privacy").
  r->seed = rng.next_u64();
  unsigned char key[random::chacha20_key_size];
  random::projection_key(r->seed, key);
  // B.6 steps 2-3: the clipped input and the sign of its direction with E[sign] = ||x|| / R (from x,
  // not W x); W^T W x / ||W x|| has mean c x / ||x||, c the block's projection_norm_mean (B.8).
  uint64_t squared_norm = 0;
  const bool positive =
      clip_and_draw_sign(x, block_.params.get_signed(wire::field::radius), rng, clipped_, &squared_norm);
  const status s = project(key);
  if (s != status::ok) return s;
  const uint64_t direction_norm = projected_direction(projected_, direction_);
  privunitg_signed_direction(direction_, direction_norm, positive, privunitg_cap_of(block_.params), rng, projected_);
  r->values = projected_;
  return status::ok;
}

}  // namespace ldp::device

#endif
