// The group_round payload's shape (docs/wire_format.md 5): a report names its group, then carries
// the payload of the family's inner oracle. String discovery's groups are prefix lengths or fragment
// offsets (docs/mechanisms.md F.1), the tree forms' are levels (G.2, G.3). Constant expressions of
// the block, because report.h sizes payloads with them.
#ifndef LDP_WIRE_GROUP_BLOCK_H
#define LDP_WIRE_GROUP_BLOCK_H

#include <cstdint>

#include "ldp/wire/distribution_block.h"
#include "ldp/wire/mechanism.h"
#include "ldp/wire/params.h"
#include "ldp/wire/string_block.h"

namespace ldp::wire {

// The groups G of a group_round block (0 for other blocks).
[[nodiscard]] constexpr uint32_t group_count(const params& p) noexcept {
  if (kind_of(p.mech) != payload_kind::group_round) return 0;
  return in_family(p.mech, mechanism_family::string_discovery) ? string_groups(p) : distribution_levels(p);
}

// The inner oracle's block of a group_round block.
[[nodiscard]] constexpr params group_inner_block(const params& p) noexcept {
  return in_family(p.mech, mechanism_family::string_discovery) ? string_inner_block(p) : distribution_inner_block(p);
}

}  // namespace ldp::wire

#endif
