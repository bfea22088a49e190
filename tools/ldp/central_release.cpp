#include "central_release.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "errors.h"
#include "ldp/random/drbg.h"
#include "ldp/server/central/sparse_projection.h"
#include "ldp/server/central/winsorized.h"
#include "mechanism_options.h"
#include "seeding.h"
#include "winsorized_session.h"

namespace ldp::tools {

bool is_central(wire::mechanism m) {
  const wire::mechanism_row* row = wire::find_mechanism(m);
  if (row == nullptr) return false;
  for (const tool_mechanism& t : tool_mechanisms()) {
    if (std::strcmp(t.name, row->cli_name) == 0) return is_central(t.input);
  }
  return false;
}

double normal_z(double confidence) {
  // Bisection on P(|Z| > z) = erfc(z / sqrt 2), decreasing in z: 200 halvings reach double precision.
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (std::erfc(mid / std::sqrt(2.0)) > 1 - confidence ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

std::vector<server::estimate> noise_estimates(const std::vector<double>& values, double variance, double confidence,
                                              server::variance_kind kind) {
  const double half = normal_z(confidence) * std::sqrt(variance);
  std::vector<server::estimate> out;
  for (std::size_t j = 0; j < values.size(); ++j) {
    out.push_back({static_cast<uint32_t>(j), values[j], variance, values[j] - half, values[j] + half, kind});
  }
  return out;
}

namespace {

// The checks every release makes, and its server DRBG.
random::drbg release_drbg(const server::aggregator& agg, const release_request& q) {
  check_epsilon(q.epsilon);
  if (!(q.delta >= 0 && q.delta < 1)) fail("--delta must be in [0, 1), got {}", q.delta);
  if (agg.reports() == 0) fail("the state holds no reports: there is no mean to release");
  return seeded_drbg(q.seed, seed_purpose::server_noise, 0);
}

}  // namespace

estimate_report sparse_release_report(const server::aggregator& agg, const release_request& q, double confidence,
                                      std::size_t top) {
  random::drbg rng = release_drbg(agg, q);
  server::sparse_release rel;
  const status s = server::release_sparse_mean(agg, {q.epsilon, q.delta}, rng, &rel);
  if (s != status::ok) {
    fail(
        "the projection mechanism refused --epsilon {} --delta {} on this state: {} (a noise scale beyond the "
        "samplers: use fewer --frac-bits)",
        q.epsilon, q.delta, describe(s));
  }
  estimate_report r =
      // The projection onto the l1 ball is non-expansive: the noise variances bound the total squared error.
      make_estimate_report(noise_estimates(rel.mean, rel.noise_variance, confidence, server::variance_kind::bound),
                           true, confidence, top);
  release_summary summary;
  summary.epsilon_impl = rel.epsilon_impl;
  summary.delta = rel.delta;
  const char* noise = q.delta > 0 ? "discrete Gaussian" : "discrete Laplace";
  summary.text = fmt::format(
      "central-DP release (projection mechanism, {} noise of scale {:.6g} on the mean, server seed {}): epsilon "
      "{:.15g} implemented, delta {:g}; estimates projected onto the l1 ball of radius {:.6g}, intervals of the "
      "noise alone",
      noise, rel.noise_scale, q.seed, rel.epsilon_impl, rel.delta, rel.l1_radius);
  summary.details = {{"kind", "sparse-projection"},    {"noise", noise},
                     {"noise_scale", rel.noise_scale}, {"noise_variance", rel.noise_variance},
                     {"l1_radius", rel.l1_radius},     {"release_seed", q.seed},
                     {"unprojected", rel.noisy_mean}};
  r.release = std::move(summary);
  return r;
}

estimate_report winsorized_release_report(const server::aggregator& agg, const release_request& q, double confidence,
                                          std::size_t top) {
  const wire::params& p = agg.parameters();
  random::drbg rng = release_drbg(agg, q);
  const uint64_t padded = p.get(wire::field::hadamard_dim);
  const server::winsorized_session budget =
      plan_session(q.epsilon, q.delta, q.queries, padded, budget_rule_of(q.budget));
  if (q.users != 0 && q.users < agg.reports()) {
    fail("--users {} is below the state's {} reports (n counts every user of round 1)", q.users, agg.reports());
  }
  server::winsorized_release rel;
  const status s = server::release_winsorized_mean(agg, budget.eps_coordinate(), q.users, rng, &rel);
  if (s != status::ok) {
    fail("the release refused this state at epsilon' {:.6g} per coordinate: {}", budget.eps_coordinate(), describe(s));
  }
  const double per_coordinate = private_range_level(budget.eps_coordinate() / 2) + rel.epsilon_impl;
  const server::privacy_loss loss = checked_loss(budget, per_coordinate);
  const char* window = window_rule_name(p);
  estimate_report r =
      // Exactly the noise's variance around the mean of the values clamped to the public windows.
      make_estimate_report(noise_estimates(rel.mean, rel.noise_variance, confidence, server::variance_kind::exact),
                           true, confidence, top);
  release_summary summary;
  summary.epsilon_impl = loss.epsilon;
  summary.delta = loss.delta;
  summary.text = fmt::format(
      "central-DP release (WinsorizedMeanHighD, {} windows, discrete Laplace noise on the rotated sums, release seed "
      "{}): epsilon {:.15g} implemented{}, delta {:g} ({} composition of {} x d~ = {} coordinate mechanisms at "
      "epsilon' {:.6g} each, --budget {}); intervals of the noise alone (not of the winsorization)",
      window, q.seed, loss.epsilon, q.queries > 1 ? " for the session" : "", loss.delta,
      loss.basic ? "basic" : "advanced", q.queries, padded, per_coordinate, budget_rule_name(budget.rule()));
  summary.details = {{"kind", "winsorized-mean"},
                     {"window_rule", window},
                     {"budget_rule", budget_rule_name(budget.rule())},
                     {"queries", q.queries},
                     {"epsilon_coordinate", per_coordinate},
                     {"composition", loss.basic ? "basic" : "advanced"},
                     {"rotated_dim", padded},
                     {"users", rel.users},
                     {"sum_noise_scale", static_cast<double>(rel.scale_num) / static_cast<double>(rel.scale_den)},
                     {"noise_variance", rel.noise_variance},
                     {"release_seed", q.seed}};
  r.release = std::move(summary);
  return r;
}

}  // namespace ldp::tools
