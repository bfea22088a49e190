// A Monte-Carlo privacy audit of one step of Levy et al.'s Alg 3 (docs/mechanisms.md I.1 "The
// end-to-end audits"): winsorized_sgd with T = 1, i.e. one query of a winsorized_query_session
// (rotation, PrivateRange, the clamped sum, discrete Laplace noise) and the update from theta0. Two
// neighbouring user sets differ in one user's m samples (all at +1 or all at -1, the box's ends: the
// winsorization clamps it to whichever window PrivateRange picks). Each run keys the session with its
// own seed. The statistic is the released iterate (d = 1); thresholds come from an independent pilot
// (dp_audit.h), and the lower bound over 16 events (alpha = 6e-8 each, false-failure probability
// 9.6e-7) must not exceed the epsilon the run reports as spent (pure DP). Measured at these seeds: 0.31
// against 1 (the noise has half of it, PrivateRange the rest). Power: sessions calibrated for 4
// epsilon, i.e. noise 4 times too narrow for the epsilon reported, give 1.82 > 1.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "dp_audit.h"
#include "ldp/base/span.h"
#include "ldp/server/central/levy_training.h"

namespace {

using ldp::span;
using ldp::status;
namespace server = ldp::server;

constexpr uint32_t users = 8, samples = 2;

// theta1 = theta0 - eta * (the released mean gradient) from sessions keyed by the run numbers; the
// gradient of 1/2 (theta - z)^2 is theta - z and eta = 1, so theta1 is the released mean sample.
std::vector<double> released(double epsilon, double first, uint64_t runs, uint64_t first_run,
                             server::privacy_loss* spent) {
  std::vector<std::vector<double>> data(users);
  for (uint32_t u = 0; u < users; ++u) {
    for (uint32_t k = 0; k < samples; ++k) data[u].push_back(u == 0 ? first : 0.05 * ((u + k) % 3) - 0.05);
  }
  std::vector<span<const double>> views(data.begin(), data.end());
  server::winsorized_sgd_options o;
  o.session.epsilon = epsilon;
  o.session.delta = 0;
  o.session.queries = 1;
  o.session.dim = 1;
  o.session.lo = -1;
  o.session.hi = 1;
  o.session.frac_bits = 8;
  o.session.observations = samples;
  o.session.tau = 0.1;
  o.learning_rate = 1;
  const std::vector<double> theta0{0};
  const server::sample_gradient gradient = [](span<const double> theta, span<const double> z, span<double> g) {
    g[0] = theta[0] - z[0];
  };
  std::vector<double> out;
  bool ok = true;
  for (uint64_t r = first_run; r < first_run + runs && ok; ++r) {
    unsigned char seed[32] = {15, 'l'};
    for (int i = 0; i < 8; ++i) seed[8 + i] = static_cast<unsigned char>(r >> (8 * i));
    server::winsorized_sgd_result result;
    ok = server::winsorized_sgd(o, views, 1, theta0, gradient, seed, &result) == status::ok;
    // theta1 = theta0 - (theta0 - the released mean sample): larger when the first user's are at +1.
    out.push_back(result.last[0]);
    *spent = result.spent;
  }
  REQUIRE(ok);
  return out;
}

// The audit's lower bound for sessions at `epsilon` (pure DP); *spent receives what a run reports.
double audit(double epsilon, server::privacy_loss* spent) {
  const std::vector<double> thresholds = ldp::test::pilot_thresholds(
      released(epsilon, 1, 2000, 0, spent), released(epsilon, -1, 2000, 1000000, spent), {0, 0.5, 1.0, 1.5});
  const std::vector<double> x = released(epsilon, 1, 30000, 2000, spent),
                            y = released(epsilon, -1, 30000, 2000000, spent);
  return ldp::test::epsilon_lower_bound(x, y, thresholds, 0, 6e-8);
}

}  // namespace

TEST_CASE("Alg 3, one step: the audit's epsilon stays within the spent budget, and catches 4 times less noise") {
  server::privacy_loss spent;
  const double found = audit(1, &spent);
  CAPTURE(spent.epsilon);
  CAPTURE(found);
  CHECK(spent.epsilon <= 1);
  CHECK(spent.delta == 0);  // T = 1, one rotated coordinate: the tight rule's one mechanism is pure
  CHECK(found <= spent.epsilon);
  // The noise gets half of the coordinate's epsilon (PrivateRange the other half): the audit reaches
  // most of it.
  CHECK(found >= 0.25 * spent.epsilon);
  // A session calibrated for 4 epsilon but reporting epsilon (the noise 4 times too narrow) is caught.
  server::privacy_loss weak_spent;
  const double weak = audit(4, &weak_spent);
  CAPTURE(weak);
  CHECK(weak > spent.epsilon);
}
