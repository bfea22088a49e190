// The shape of a string-discovery block (docs/mechanisms.md F.1, docs/wire_format.md 3.2): its inner
// oracle, its groups and what each group reports. Constant expressions of the block, apart from the
// derivations of string_params.h, because report.h sizes a group_round payload with them.
#ifndef LDP_WIRE_STRING_BLOCK_H
#define LDP_WIRE_STRING_BLOCK_H

#include <cstdint>
#include <initializer_list>

#include "ldp/wire/mechanism.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// The longest string item (bytes), and the derived domain the tool and the C API use by default.
inline constexpr uint32_t max_string_bytes = 64;
inline constexpr uint32_t string_default_domain = uint32_t{1} << 31;
// SFP (F.4): fragments of two bytes at even offsets, each tagged with an 8-bit puzzle hash of the word.
inline constexpr uint32_t sfp_fragment_bytes = 2;
inline constexpr uint32_t sfp_puzzle_values = 256;

// The inner oracle of a string-discovery mechanism.
[[nodiscard]] constexpr mechanism string_inner_mechanism(mechanism m) noexcept {
  switch (string_of(m)) {
    case string_member::pem: return mechanism::olh;
    case string_member::treehist: return mechanism::hcms;
    case string_member::sfp: return mechanism::cms;
  }
  return mechanism::none;
}

// The inner oracle's block: the same fields without string_length and prefix_bits. Its validity
// is part of the discovery block's (validate), and its fingerprint is never on the wire.
[[nodiscard]] constexpr params string_inner_block(const params& p) noexcept {
  params q = p;
  q.mech = string_inner_mechanism(p.mech);
  for (field f : {field::string_length, field::prefix_bits}) {
    q.present &= ~field_bit(f);
    q.value[static_cast<int>(f)] = 0;
  }
  return q;
}

// The groups G of a block: pem and treehist one per prefix length eta, 2 eta, ..., 8 L bits; sfp
// one per fragment offset 0, 2, ..., L - 2, then the word group (g = L / 2).
[[nodiscard]] constexpr uint32_t string_groups(const params& p) noexcept {
  const auto length = static_cast<uint32_t>(p.get(field::string_length));
  if (p.mech == mechanism::sfp) return length / sfp_fragment_bytes + 1;
  const uint64_t eta = p.get(field::prefix_bits);
  return eta == 0 ? 0 : static_cast<uint32_t>(8 * uint64_t{length} / eta);
}

// pem, treehist: the prefix length in bits that group g reports.
[[nodiscard]] constexpr uint32_t string_prefix_length(const params& p, uint32_t g) noexcept {
  return static_cast<uint32_t>((uint64_t{g} + 1) * p.get(field::prefix_bits));
}

// sfp: whether group g reports the whole word (else the fragment at byte offset 2 g).
[[nodiscard]] constexpr bool sfp_word_group(const params& p, uint32_t g) noexcept {
  return g == p.get(field::string_length) / sfp_fragment_bytes;
}

}  // namespace ldp::wire

#endif
