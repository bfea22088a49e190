// Device side of the distribution family (docs/mechanisms.md G): square-wave, hierarchical and haar. A
// device holds one fixed-point value x (x * 2^f, clamped to the block's range), whose bucket v in
// [0, D) is wire::range_cell(p, x), and sends one report on v.
//
// Square Wave (G.1): with T / 2^32 an output uniform in v's window [v, v + 2b], else one uniform
// among the D - 1 outputs of [0, D + 2b) outside it. The tree forms (G.2, G.3): the level g uniform
// in [0, h) first, from the generator alone, then the inner OLH report (frequency_context on
// wire::distribution_inner_block) of v's item of level g (wire::distribution_item).
//
// Privacy: Square Wave's outputs have the probabilities of docs/mechanisms.md G.1, whose largest
// ratio is e^{epsilon_impl} (wire::detail::square_wave_epsilon). In the tree forms g says nothing
// about x, and for every g the rest is an OLH report of some item of [0, D), epsilon-LDP over all
// items, so the pair is LDP with the inner block's epsilon (as string.h argues for string
// discovery). No floating point, no heap, no exceptions.
#ifndef LDP_DEVICE_DISTRIBUTION_H
#define LDP_DEVICE_DISTRIBUTION_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/coins.h"
#include "ldp/device/context.h"
#include "ldp/device/frequency.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/distribution_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/range_cells.h"
#include "ldp/wire/report.h"

namespace ldp::device {

// A distribution block ready to randomize fixed-point values (see context.h). The tree forms keep a
// frequency_context of their inner OLH block on the same workspace (OLH needs none, so neither does
// any distribution block); Square Wave draws its output directly.
class distribution_context {
 public:
  [[nodiscard]] static constexpr std::size_t workspace_size(const wire::params& p) noexcept {
    return p.mech == wire::mechanism::square_wave
               ? 0
               : frequency_context::workspace_size(wire::distribution_inner_block(p));
  }

  // invalid_argument for a block that is not of the distribution family, validate()'s status for an
  // invalid one, unsupported for thresholds out of another 2^w than 2^32 (the coins compare 32-bit
  // words; the tree forms' inner frequency_context refuses them alike). *out randomizes nothing
  // unless init succeeded.
  [[nodiscard]] static status init(span<std::byte> workspace, const wire::params& p,
                                   distribution_context* out) noexcept;

  const wire::params& parameters() const noexcept { return block_.params; }
  uint64_t fingerprint() const noexcept { return block_.fingerprint; }

  // The report fields of x with coins from `coins` (drbg_coins on the device; the audits pass their
  // own): square-wave r->index; the tree forms r->group, then the inner OLH's seed and bucket
  // (r->mech is the outer mechanism). Every x is accepted (it is clamped to the range).
  template <class Coins>
  status fields(int64_t x, Coins& coins, wire::report* r) noexcept;

  // The report or payload of x (out: max_output_size(p, f) bytes always suffice).
  [[nodiscard]] status randomize(int64_t x, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) noexcept;

 private:
  validated_block block_{};
  frequency_context inner_{};
};

namespace detail {

// G.1: bucket v's output among D + 2b. In the window with T / 2^32 (2b + 1 outputs, uniform), else
// uniform over the D - 1 outputs outside it: u in [0, D - 1) skips the window. Which draws are made
// depends on the Bernoulli coin only, never on v.
template <class Coins>
uint32_t square_wave_output(uint32_t v, uint64_t buckets, uint64_t half_width, uint64_t keep, Coins& coins) noexcept {
  const auto window = static_cast<uint32_t>(2 * half_width + 1);  // <= 2^17 + 1 on valid blocks
  if (coins.bernoulli(keep)) return v + coins.uniform_below(window);
  const uint32_t u = coins.uniform_below(static_cast<uint32_t>(buckets - 1));
  return u + (u >= v ? window : 0u);
}

}  // namespace detail

template <class Coins>
status distribution_context::fields(int64_t x, Coins& coins, wire::report* r) noexcept {
  using wire::field;
  const wire::params& p = block_.params;
  *r = wire::report{};
  r->mech = p.mech;
  if (!block_.ready) return status::invalid_argument;
  switch (wire::distribution_of(p.mech)) {  // init() accepted the distribution family only
    case wire::distribution_member::square_wave:
      r->index = detail::square_wave_output(wire::range_cell(p, x), p.get(field::domain),
                                            p.get(field::window_half_width), p.get(field::threshold_keep), coins);
      return status::ok;
    case wire::distribution_member::hierarchical:
    case wire::distribution_member::haar: {
      // The level is the first coin and does not depend on x (G.2).
      const uint32_t g = coins.uniform_below(wire::distribution_levels(p));
      const status inner = inner_.fields(wire::distribution_item(p, g, wire::range_cell(p, x)), coins, r);
      r->mech = p.mech;
      r->group = g;
      return inner;
    }
  }
  return status::invalid_argument;  // a value outside the enumeration
}

}  // namespace ldp::device

#endif
