// The inner aggregators of a group_round block (wire/group_block.h): string discovery's groups
// (docs/mechanisms.md F.1) and the tree forms' levels (G.2, G.3) each count their reports in one
// frequency aggregator of the inner block. Ingestion, merge and the saved body are the inner
// oracle's, group by group (docs/wire_format.md 7.4, 7.5); group_state.cpp.
#ifndef LDP_SERVER_SRC_GROUP_STATE_H
#define LDP_SERVER_SRC_GROUP_STATE_H

#include <cstdint>
#include <memory>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/frequency.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::server::detail {

using group_list = std::vector<std::unique_ptr<frequency_aggregator>>;

// Static members only: aggregator.h befriends it, so it drives the inner aggregators' protected
// ingestion, merge and body.
struct group_state {
  // Empty inner aggregators, one per group. The outer block's validation covered the inner block,
  // and the outer memory check its state (aggregator_bytes), so the inner blocks do not go
  // through aggregator::create's ceiling.
  [[nodiscard]] static status make(const wire::params& p, group_list* out);

  // An upper bound of the body for n reports (family.h "grouped"): the n_g heads, then the inner
  // bodies for the n reports in one group each, at most 12 n_g bytes for OLH (its list form; the
  // counts form is shorter) and independent of n_g for the sketches, so the sum over any split is
  // at most min(G f(n), 12 n) for OLH and G f(0) otherwise.
  [[nodiscard]] static bool body_size(const wire::params& p, uint64_t n, uint64_t* out);

  // The report into its group's aggregator, with its mechanism and fingerprint set to the inner
  // block's; the inner n counts it (below the outer n, which aggregator::accept caps).
  [[nodiscard]] static status ingest(group_list& groups, const wire::report& r) noexcept;

  // All or nothing: the merged groups are built beside the current ones (for OLH a copy of both
  // lists, what merging appends anyway), then swapped in. The caller checked the sum of all n.
  [[nodiscard]] static status merge(const wire::params& p, group_list& groups, const group_list& other);

  // G x u64 n_g, then each group's inner body in group order.
  static void write(const group_list& groups, std::vector<unsigned char>& out);
  // The body write() makes, for n reports in all: the n_g must sum to n (malformed_report), each
  // inner length is checked before it is read (wrong_length), nothing may follow the last group.
  [[nodiscard]] static status read(const wire::params& p, group_list& groups, uint64_t n,
                                   span<const unsigned char> body);
};

}  // namespace ldp::server::detail

#endif
