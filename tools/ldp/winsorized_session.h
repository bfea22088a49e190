// The CLI side of a winsorized-mean session (docs/cli.md "Central DP"; docs/mechanisms.md C.2): the
// window rule (--window), the budget rule (--budget) and K queries (--queries) over d~ rotated
// coordinates. The accounting itself is server::winsorized_session's; this file turns its refusals
// into errors naming the options at fault. ldp simulate and ldp estimate (releasing a saved round-2
// state) both go through it, so the same options give the same epsilon' and the same reported loss.
#ifndef LDP_TOOLS_WINSORIZED_SESSION_H
#define LDP_TOOLS_WINSORIZED_SESSION_H

#include <cstdint>
#include <string>

#include "ldp/server/central/winsorized.h"
#include "ldp/wire/params.h"

namespace ldp::tools {

// The server's session for the options. Throws cli_error naming the options at fault, also when
// its epsilon' overspends (checked_loss).
server::winsorized_session plan_session(double epsilon, double delta, uint64_t queries, uint64_t rotated_dim,
                                        server::budget_rule rule);

// session.loss(per_coordinate); throws cli_error when that exceeds the session's epsilon (the
// paper's rule at a large epsilon and a large delta, outside the paper's assumptions).
server::privacy_loss checked_loss(const server::winsorized_session& session, double per_coordinate);

// The level PrivateRange implements when asked for `epsilon` (it depends on nothing else; ldp
// estimate, which does not see round 1, counts the window selection with it).
double private_range_level(double epsilon);

server::budget_rule budget_rule_of(const std::string& name);  // "tight" or "paper" (CLI-checked)
server::window_rule window_rule_of(const std::string& name);  // "safe" or "paper"
const char* budget_rule_name(server::budget_rule rule);
// "safe" or "paper" from a winsorized-sums block (w = 3 tau or 2 tau), "other" for any other w.
const char* window_rule_name(const wire::params& round2);

}  // namespace ldp::tools

#endif
