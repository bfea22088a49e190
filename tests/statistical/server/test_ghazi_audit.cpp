// Monte-Carlo privacy audits of Ghazi et al.'s Algorithm 2 (release_cs_mean) and Algorithm 6
// (release_output_perturbation) at toy sizes (docs/mechanisms.md I.3 "The audits"). Each draws the
// release 60,000 times on each of two neighbouring data sets (replace one point, n public) with the
// server's DRBG and projects it on the direction the replaced point moves it; thresholds come from an
// independent pilot (tests/support/dp_audit.h) and the empirical lower bound over 24 threshold events
// (alpha = 4e-8 each: false-failure probability 9.6e-7 per audit, 1.9e-6 for the file) must not exceed
// the (epsilon_impl, delta) the release reports (epsilon 4, delta 1e-2). Power: the same release with
// the noise of half the sensitivity (calibrated for the epsilon of 4 times the claim's rho) must give
// a bound above the claim. Measured at these seeds (claim 4.00 for both): Algorithm 2 2.15, weakened
// 4.83; Algorithm 6 2.12, weakened 4.87 (the slack is the zCDP conversion's over the exact Gaussian
// profile). The library with its sensitivity halved (2 floor(C / gamma) -> floor(C / gamma) in
// Algorithm 2, 2G / (lambda n) -> G / (lambda n) in Algorithm 6) fails the first check: 4.83, 4.93.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "dp_audit.h"
#include "ldp/base/span.h"
#include "ldp/random/drbg.h"
#include "ldp/server/central/compressed_sensing.h"
#include "ldp/server/central/output_perturbation.h"

namespace {

using ldp::span;
using ldp::status;
namespace server = ldp::server;

constexpr double epsilon = 4, delta = 1e-2, alpha = 4e-8;
constexpr int pilot_runs = 2000, audit_runs = 60000;

// One release on the data set `first` (x) or its neighbour (y): the statistic and the claim.
struct claim {
  double epsilon = 0, delta = 0;
};
using release_fn = std::function<double(bool neighbour, ldp::random::drbg& rng, claim* c)>;

std::vector<double> draw(const release_fn& release, bool neighbour, int runs, ldp::random::drbg& rng, claim* c) {
  std::vector<double> out;
  for (int r = 0; r < runs; ++r) out.push_back(release(neighbour, rng, c));
  return out;
}

// The lower bound of the audit of `release`; *c receives the claim of its last run.
double audit(const release_fn& release, const unsigned char seed[32], claim* c) {
  ldp::random::drbg rng(seed);
  const std::vector<double> thresholds =
      ldp::test::pilot_thresholds(draw(release, false, pilot_runs, rng, c), draw(release, true, pilot_runs, rng, c),
                                  {1.0, 1.5, 2.0, 2.5, 3.0, 3.5});
  const std::vector<double> x = draw(release, false, audit_runs, rng, c), y = draw(release, true, audit_runs, rng, c);
  return ldp::test::epsilon_lower_bound(x, y, thresholds, c->delta, alpha);
}

// Algorithm 2 on n = 5 one-sparse points in R^8, m = 4 measurements, L = 1, eta = 0 (the clip is at L):
// the replaced point is +e_j or -e_j for the column j of A of the largest norm (> 1, so its
// measurement is clipped to exactly C and the two differ by 2C, the sensitivity). The statistic is
// the measured mean on A e_j's direction.
release_fn cs_release(double calibrated) {
  server::cs_release_options o;
  o.measurements = 4;
  o.matrix_seed = 15;
  o.rip_slack = 0;
  o.epsilon = calibrated;
  o.delta = delta;
  o.frac_bits = 12;
  o.iterations = 1;  // the decoder is post-processing: the audit reads the measured mean
  std::vector<double> a;
  REQUIRE(server::cs_matrix(4, 8, 15, &a) == status::ok);
  uint32_t column = 0;
  double best = 0;
  for (uint32_t j = 0; j < 8; ++j) {
    double norm = 0;
    for (uint32_t i = 0; i < 4; ++i) norm += a[i * 8 + j] * a[i * 8 + j];
    if (norm > best) best = norm, column = j;
  }
  REQUIRE(best > 1.05);
  std::vector<double> direction(4);
  for (uint32_t i = 0; i < 4; ++i) direction[i] = a[i * 8 + column] / std::sqrt(best);
  std::vector<server::sparse_point> points{{{column}, {1}}, {{1}, {0.5}}, {{3}, {-0.4}}, {{6}, {0.7}}, {{7}, {0.2}}};
  return [o, points, direction](bool neighbour, ldp::random::drbg& rng, claim* c) {
    std::vector<server::sparse_point> p = points;
    if (neighbour) p[0].value[0] = -1;
    server::cs_release r;
    REQUIRE(server::release_cs_mean(p, 8, o, rng, &r) == status::ok);
    *c = claim{r.epsilon_impl, o.delta};
    double s = 0;
    for (std::size_t i = 0; i < 4; ++i) s += r.measured_mean[i] * direction[i];
    return s;
  };
}

// Algorithm 6 on the linear loss f_i(w) = -y_i w in d = 1 (convex, G = 1, beta = 0), y_i = +-1, n = 10,
// lambda = 1: the minimizer is the mean label over lambda, and replacing y_0 = +1 by -1 moves it by
// 2G / (lambda n), the sensitivity Algorithm 6 calibrates to. The statistic is the noisy minimizer.
release_fn output_release(double calibrated) {
  server::output_perturbation_options o;
  o.n = 10;
  o.lipschitz = 1;
  o.smoothness = 0;
  o.regularization = 1;
  o.epsilon = calibrated;
  o.delta = delta;
  o.frac_bits = 12;
  return [o](bool neighbour, ldp::random::drbg& rng, claim* c) {
    const double sum = (neighbour ? -1.0 : 1.0) + 1 - 1 + 1 + 1 - 1 + 1 - 1 - 1 + 1;
    const server::erm_gradient gradient = [sum](span<const double>, span<double> g) { g[0] = -sum / 10; };
    const std::vector<double> w0{0};
    server::output_perturbation_release r;
    REQUIRE(server::release_output_perturbation(w0, gradient, o, rng, &r) == status::ok);
    *c = claim{r.epsilon_impl, o.delta};
    return r.noisy[0];
  };
}

void check_audit(const std::function<release_fn(double)>& make, const unsigned char seed[32]) {
  claim c, weak_claim;
  const double found = audit(make(epsilon), seed, &c);
  CAPTURE(c.epsilon);
  CAPTURE(found);
  CHECK(c.epsilon <= epsilon);
  CHECK(found <= c.epsilon);
  CHECK(found >= 0.4 * c.epsilon);  // not a vacuous audit: its events see the replaced point
  // The release calibrated to half the sensitivity: 4 times the rho of the claim (the simple zCDP
  // conversion the calibration uses, rho + 2 sqrt(rho ln(1/delta)) = epsilon, solved for rho).
  const double l = std::log(1 / delta), rho = std::pow(std::sqrt(l + c.epsilon) - std::sqrt(l), 2);
  const double weak = audit(make(4 * rho + 2 * std::sqrt(4 * rho * l)), seed, &weak_claim);
  CAPTURE(weak);
  CHECK(weak > c.epsilon);
}

}  // namespace

TEST_CASE("Algorithm 2 (compressed-sensing mean): the audit's epsilon stays within epsilon_impl") {
  const unsigned char seed[32] = {15, 'c', 's'};
  check_audit(cs_release, seed);
}

TEST_CASE("Algorithm 6 (output perturbation): the audit's epsilon stays within epsilon_impl") {
  const unsigned char seed[32] = {15, 'o', 'p'};
  check_audit(output_release, seed);
}
