#include "winsorized_session.h"

#include <cmath>

#include "errors.h"
#include "mechanism_options.h"

namespace ldp::tools {

using wire::field;

server::winsorized_session plan_session(double epsilon, double delta, uint64_t queries, uint64_t rotated_dim,
                                        server::budget_rule rule) {
  if (queries < 1) fail("--queries must be at least 1, got {}", queries);
  server::winsorized_session session;
  const status s = server::winsorized_session::create(epsilon, delta, queries, rotated_dim, rule, &session);
  // A tiny epsilon leaves PrivateRange (half of each coordinate's epsilon') nothing it can implement:
  // refused here, before round 1 runs, with the smallest epsilon that works (issue 21).
  const auto usable = [&](double e) {
    server::winsorized_session at;
    double level = 0;
    return server::winsorized_session::create(e, delta, queries, rotated_dim, rule, &at) == status::ok &&
           server::private_range_epsilon(at.eps_coordinate() / 2, &level) == status::ok;
  };
  if (s != status::ok || !usable(epsilon)) {
    fail("cannot split --epsilon {} --delta {} over --queries {} of d~ = {} rotated coordinates: {}{}", epsilon, delta,
         queries, rotated_dim, describe(s != status::ok ? s : status::invalid_argument),
         smallest_epsilon_hint(epsilon, usable));
  }
  static_cast<void>(
      checked_loss(session, session.eps_coordinate()));  // refuses an overspending rule before anything runs
  return session;
}

server::privacy_loss checked_loss(const server::winsorized_session& session, double per_coordinate) {
  const server::privacy_loss loss = session.loss(per_coordinate);
  if (!session.within_budget(loss)) {
    fail(
        "--budget {} gives epsilon' {:.6g} per coordinate, which composes to epsilon {:.6g} over {} mechanisms, above "
        "--epsilon {} (the paper's calibration assumes a small epsilon): use --budget tight",
        budget_rule_name(session.rule()), per_coordinate, loss.epsilon, session.mechanisms(), session.epsilon());
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

const char* budget_rule_name(server::budget_rule rule) {
  return rule == server::budget_rule::paper ? "paper" : "tight";
}

const char* window_rule_name(const wire::params& round2) {
  const uint64_t tau = round2.get(field::bin_half_width), w = round2.get(field::window_half_width);
  if (w == server::window_half_width(tau, server::window_rule::safe)) return "safe";
  if (w == server::window_half_width(tau, server::window_rule::paper)) return "paper";
  return "other";
}

}  // namespace ldp::tools
