#include "winsorized_session.h"

#include <cmath>

#include "errors.h"

namespace ldp::tools {

using wire::field;

winsorized_budget plan_budget(double epsilon, double delta, uint64_t queries, uint64_t rotated_dim,
                              server::budget_rule rule) {
  if (queries < 1) fail("--queries must be at least 1, got {}", queries);
  winsorized_budget b;
  b.epsilon = epsilon;
  b.delta = delta;
  b.queries = queries;
  b.rotated_dim = rotated_dim;
  b.rule = rule;
  const status s = server::query_step_epsilon(epsilon, delta, queries, rotated_dim, rule, &b.eps_coordinate);
  if (s != status::ok) {
    fail("cannot split --epsilon {} --delta {} over --queries {} of d~ = {} rotated coordinates: {}", epsilon, delta,
         queries, rotated_dim, describe(s));
  }
  session_loss(b, b.eps_coordinate);  // refuses a rule that overspends before anything runs
  return b;
}

privacy_loss session_loss(const winsorized_budget& b, double per_coordinate) {
  const uint64_t mechanisms = b.queries * b.rotated_dim;  // query_step_epsilon checked the product
  privacy_loss loss;
  loss.epsilon = per_coordinate * static_cast<double>(mechanisms);
  loss.basic = true;
  if (b.delta > 0) {
    const double advanced = server::advanced_composition(per_coordinate, mechanisms, b.delta);
    if (advanced < loss.epsilon) loss = {advanced, b.delta, false};
  }
  // The bisection of the tight rule may land a few ulps above epsilon; anything more is the paper
  // rule outside its assumptions.
  if (loss.epsilon > b.epsilon * (1 + 1e-12)) {
    fail("--budget {} gives epsilon' {:.6g} per coordinate, which composes to epsilon {:.6g} over {} mechanisms, above "
         "--epsilon {} (the paper's calibration assumes a small epsilon): use --budget tight",
         budget_rule_name(b.rule), per_coordinate, loss.epsilon, mechanisms, b.epsilon);
  }
  return loss;
}

double private_range_level(double epsilon) {
  double level = 0;
  const status s = server::private_range_epsilon(epsilon, &level);
  if (s != status::ok) fail("PrivateRange refuses epsilon {:.6g} per coordinate: {}", epsilon, describe(s));
  return level;
}

server::budget_rule budget_rule_of(const std::string& name) {
  return name == "paper" ? server::budget_rule::paper : server::budget_rule::tight;
}

server::window_rule window_rule_of(const std::string& name) {
  return name == "paper" ? server::window_rule::paper : server::window_rule::safe;
}

const char* budget_rule_name(server::budget_rule rule) { return rule == server::budget_rule::paper ? "paper" : "tight"; }

const char* window_rule_name(const wire::params& round2) {
  const uint64_t tau = round2.get(field::bin_half_width), w = round2.get(field::window_half_width);
  if (w == server::window_half_width(tau, server::window_rule::safe)) return "safe";
  if (w == server::window_half_width(tau, server::window_rule::paper)) return "paper";
  return "other";
}

}  // namespace ldp::tools
