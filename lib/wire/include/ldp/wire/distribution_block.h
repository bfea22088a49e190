// The shape of a distribution block (docs/mechanisms.md G.0, docs/wire_format.md 3.9): Square Wave's
// outputs, the tree forms' fan-out, levels and inner OLH block. Constant expressions of the block,
// because report.h sizes payloads with them; the derivations are in distribution_params.h.
#ifndef LDP_WIRE_DISTRIBUTION_BLOCK_H
#define LDP_WIRE_DISTRIBUTION_BLOCK_H

#include <cstdint>
#include <initializer_list>

#include "ldp/wire/mechanism.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// The most buckets D of a distribution block (the server's histogram, EMS and tree work are O(D)
// per step, security_model.md 4).
inline constexpr uint32_t distribution_max_buckets = uint32_t{1} << 16;

// Square Wave (G.1): outputs y in [0, D + 2b); output y stands for bucket y - b, so the window of
// bucket v is the outputs [v, v + 2b].
[[nodiscard]] constexpr uint64_t square_wave_outputs(const params& p) noexcept {
  return p.get(field::domain) + 2 * p.get(field::window_half_width);
}

// The fan-out B of a tree form: the block's branching (hierarchical), 2 (haar).
[[nodiscard]] constexpr uint64_t distribution_branching(const params& p) noexcept {
  return p.mech == mechanism::haar ? 2 : p.get(field::branching);
}

// The levels h of a tree form, D = B^h; 0 when D is not a power of B (an invalid block) and for
// square_wave. Group g in [0, h) reports level g + 1 of the hierarchical tree (B^(g+1) nodes) or the
// Haar coefficients of level g (2^g nodes, each with the half the value lies in).
[[nodiscard]] constexpr uint32_t distribution_levels(const params& p) noexcept {
  if (p.mech == mechanism::square_wave) return 0;
  const uint64_t b = distribution_branching(p), d = p.get(field::domain);
  if (b < 2) return 0;
  uint32_t h = 0;
  for (uint64_t nodes = 1; nodes < d; nodes *= b) ++h;  // d < 2^33 and b < 2^32: no overflow
  uint64_t nodes = 1;
  for (uint32_t i = 0; i < h; ++i) nodes *= b;
  return nodes == d ? h : 0;
}

// A tree form's inner oracle: OLH over the D items of the block's domain (a level's node, G.2, or
// a coefficient node and half, G.3), the block without its range and fan-out. Its validity is part
// of the distribution block's (validate), and its fingerprint is never on the wire.
[[nodiscard]] constexpr params distribution_inner_block(const params& p) noexcept {
  params q = p;
  q.mech = mechanism::olh;
  for (field f : {field::frac_bits, field::clip_lo, field::clip_hi, field::branching}) {
    q.present &= ~field_bit(f);
    q.value[static_cast<int>(f)] = 0;
  }
  return q;
}

}  // namespace ldp::wire

#endif
