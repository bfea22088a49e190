// The choices of a winsorized-mean session in the tool (docs/cli.md "Central DP"; MECHANISMS.md
// C.2): the window rule (--window), the budget rule (--budget) and K queries (--queries) over d~
// rotated coordinates. Each query is a WinsorizedMeanHighD call of d~ coordinate mechanisms, each
// spending epsilon' (half on PrivateRange, half on the noise), so a session is K d~ mechanisms.
// ldp simulate and ldp estimate (releasing a saved round-2 state) use the same arithmetic, so the
// same options give the same epsilon' and the same reported loss.
#ifndef LDP_TOOLS_WINSORIZED_SESSION_H
#define LDP_TOOLS_WINSORIZED_SESSION_H

#include <cstdint>
#include <string>

#include "ldp/server/central/winsorized.h"
#include "ldp/wire/params.h"

namespace ldp::tools {

struct winsorized_budget {
  double epsilon = 0;  // of the whole session, per user
  double delta = 0;    // 0: pure DP
  uint64_t queries = 1;
  uint64_t rotated_dim = 0;
  server::budget_rule rule = server::budget_rule::tight;
  double eps_coordinate = 0;  // epsilon' of every coordinate mechanism of every query
};

// epsilon' for the options: server::query_step_epsilon (delta = 0: basic composition epsilon / (K d~);
// tight: the larger of that and one advanced composition over all K d~ mechanisms; paper: Alg 2 for
// one query, Thm 3's split for K > 1). Throws cli_error naming the options at fault, also when
// epsilon' overspends (session_loss).
winsorized_budget plan_budget(double epsilon, double delta, uint64_t queries, uint64_t rotated_dim,
                              server::budget_rule rule);

struct privacy_loss {
  double epsilon = 0;
  double delta = 0;
  bool basic = false;  // basic composition (pure DP), else advanced at the session's delta
};

// What the session spends when each of its K d~ mechanisms is `per_coordinate`-DP (as implemented,
// at most epsilon'): the smaller of basic and advanced composition (advanced needs delta > 0).
// Throws cli_error when that exceeds the session's epsilon (the paper's rule at a large epsilon
// and a large delta, outside the paper's assumptions).
privacy_loss session_loss(const winsorized_budget& b, double per_coordinate);

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
