// Levy et al.'s Alg 3, 4, 5 drivers (docs/mechanisms.md I.2): the budget split against the paper's
// formulas and C.2's numbers, the spent (epsilon, delta) never above the request, convergence of
// Alg 3 and Alg 4 on a strongly convex problem at a large epsilon, and Alg 5's random stopping
// against its exact law. Fixed seeds; the statistical checks state their false-failure probability.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "ldp/random/drbg.h"
#include "ldp/server/central/levy_training.h"

namespace {

using ldp::span;
using ldp::status;
namespace server = ldp::server;

const unsigned char seed[32] = {4, 2, 15};

// n users of m samples in R^3 around target: sample k of user u is target + a deterministic spread
// in [-0.1, 0.1] per coordinate. The loss 1/2 ||theta - z||^2 has gradient theta - z; its minimizer
// over the users' first m samples is their mean.
struct population {
  std::vector<std::vector<double>> data;
  std::vector<span<const double>> users;
  std::vector<double> mean = std::vector<double>(3, 0);
  population(std::size_t n, std::size_t m, const double* target) : data(n) {
    for (std::size_t u = 0; u < n; ++u) {
      for (std::size_t k = 0; k < m; ++k) {
        for (std::size_t j = 0; j < 3; ++j) {
          const double spread = static_cast<double>((u * 7 + k * 3 + j * 5) % 11) / 50.0 - 0.1;
          data[u].push_back(target[j] + spread);
          mean[j] += (target[j] + spread) / static_cast<double>(n * m);
        }
      }
    }
    for (const auto& d : data) users.push_back(d);
  }
};

void squared_gradient(span<const double> theta, span<const double> sample, span<double> g) {
  for (std::size_t j = 0; j < theta.size(); ++j) g[j] = theta[j] - sample[j];
}

server::winsorized_sgd_options sgd_options(double epsilon, double delta, uint64_t steps, server::budget_rule rule) {
  server::winsorized_sgd_options o;
  o.session.epsilon = epsilon;
  o.session.delta = delta;
  o.session.queries = steps;
  o.session.dim = 3;
  o.session.lo = -2;
  o.session.hi = 2;
  o.session.frac_bits = 16;
  o.session.observations = 4;
  o.session.budget = rule;
  o.session.tau = 0.2;  // the users' averaged gradients theta - zbar_u lie within 0.1 sqrt(3) of theta - mean
  o.learning_rate = 0.5;
  return o;
}

// 10 times the rms l2 error the noise leaves on an iterate of GD at eta <= 1/2 contracting by at
// most 1/2 per step: a step's noise has E||.||^2 <= 2 d~ (12 tau / (n eps'))^2 (safe window, d~ = 4,
// C.2), the iterate sums it geometrically: rms <= eta sqrt(2 d~) 12 tau / (n eps') / sqrt(3/4). Ten
// rms is beyond any Laplace sum's reach but far below the 0.3 a wrong step would leave.
double noise_tolerance(double eps_coordinate, double tau, double n) {
  return 10 * 0.5 * std::sqrt(8.0) * 12 * tau / (n * eps_coordinate) / std::sqrt(0.75);
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t j = 0; j < a.size(); ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
  return std::sqrt(s);
}

}  // namespace

TEST_CASE("Alg 3 budget: the paper's epsilon', delta' and per-coordinate split, and the tight rule (C.2)") {
  server::levy_budget b;
  REQUIRE(server::levy_step_budget(1, 1e-6, 50, 128, &b) == status::ok);
  CHECK(b.eps_step == doctest::Approx(1 / (2 * std::sqrt(2 * 50 * std::log(2 / 1e-6)))).epsilon(1e-14));
  CHECK(b.delta_step == doctest::Approx(1e-6 / 100).epsilon(1e-14));
  // Thm 3 per coordinate: eps / (8 sqrt(d K ln(2 / delta) ln(2 K / delta))), and C.2's numbers.
  const double paper = 1 / (8 * std::sqrt(128.0 * 50 * std::log(2 / 1e-6) * std::log(100 / 1e-6)));
  CHECK(b.eps_coordinate_paper == doctest::Approx(paper).epsilon(1e-12));
  CHECK(b.eps_coordinate_paper == doctest::Approx(9.56e-5).epsilon(1e-3));
  CHECK(b.eps_coordinate_tight == doctest::Approx(1.19e-3).epsilon(5e-3));
  // The tight rule composes to epsilon exactly: advanced composition of K d~ mechanisms.
  CHECK(server::advanced_composition(b.eps_coordinate_tight, 50 * 128, 1e-6) == doctest::Approx(1).epsilon(1e-9));
  // Pure DP: basic composition.
  REQUIRE(server::levy_step_budget(2, 0, 4, 8, &b) == status::ok);
  CHECK(b.eps_step == doctest::Approx(0.5).epsilon(1e-15));
  CHECK(b.eps_coordinate_tight == doctest::Approx(2.0 / 32).epsilon(1e-15));
  CHECK(server::levy_step_budget(0, 1e-6, 4, 8, &b) == status::invalid_argument);
  CHECK(server::levy_step_budget(1, 1e-6, 0, 8, &b) == status::invalid_argument);
}

TEST_CASE("C.2's tau for Alg 3: 2.5 t* from sigma, H, R, d, m, n, alpha") {
  const double sigma = 0.5, h = 2, r = 3, alpha = 0.01;
  const double d = 10, m = 100, n = 1000;
  const double net = std::min(1.0, std::sqrt(2.0) * sigma / (4 * h) * std::sqrt(d / m));
  const double expected = 2.5 * sigma * std::sqrt(2 / m * (d * std::log(5 + 10 * r / net) + std::log(n / alpha)));
  CHECK(server::levy_gradient_tau(sigma, h, r, 10, 100, 1000, alpha) == doctest::Approx(expected).epsilon(1e-14));
  CHECK(std::isnan(server::levy_gradient_tau(0, h, r, 10, 100, 1000, alpha)));
  CHECK(std::isnan(server::levy_gradient_tau(sigma, h, r, 10, 100, 1000, 1)));
}

TEST_CASE("Alg 3 converges like gradient descent at a large epsilon; spends at most the request") {
  const double target[3] = {0.3, -0.2, 0.5};
  const population pop(2000, 4, target);
  const std::vector<double> theta0(3, 0);
  // The tight rule (the paper's epsilon' is 18x smaller here: its noise is covered by the spent test).
  {
    const auto o = sgd_options(50, 1e-6, 12, server::budget_rule::tight);
    server::winsorized_sgd_result r;
    REQUIRE(server::winsorized_sgd(o, pop.users, 3, theta0, squared_gradient, seed, &r) == status::ok);
    CHECK(r.steps == 12);
    // Non-private GD from 0 at eta = 1/2 leaves 2^-12 of the start; the averaged iterate is
    // (1 - (1 - 2^-12) / 12) of the way; the noise stays within noise_tolerance (a sign error or a missing step diverges or stays at 0, 0.6 away).
    const double tol = noise_tolerance(r.eps_coordinate, 0.2, 2000);
    CAPTURE(tol);
    CHECK(tol < 0.1);
    CHECK(distance(r.last, pop.mean) < tol);
    std::vector<double> averaged(3);
    for (std::size_t j = 0; j < 3; ++j) averaged[j] = pop.mean[j] * (1 - (1 - std::ldexp(1.0, -12)) / 12);
    CHECK(distance(r.theta, averaged) < tol);
    CHECK(r.spent.epsilon <= 50 * (1 + 1e-12));
    CHECK(r.spent.delta <= 1e-6);
  }
}

TEST_CASE("Alg 3: the spent (epsilon, delta) never exceeds the request, paper and tight, pure and approximate") {
  const double target[3] = {0.1, 0.1, 0.1};
  const population pop(50, 2, target);
  const std::vector<double> theta0(3, 0);
  for (const double eps : {0.1, 1.0, 4.0}) {
    for (const double delta : {0.0, 1e-8, 1e-3}) {
      for (const auto rule : {server::budget_rule::paper, server::budget_rule::tight}) {
        auto o = sgd_options(eps, delta, 5, rule);
        o.session.frac_bits = 8;
        server::winsorized_sgd_result r;
        const status s = server::winsorized_sgd(o, pop.users, 3, theta0, squared_gradient, seed, &r);
        if (s != status::ok) continue;  // the paper's rule outside its assumptions is refused
        CAPTURE(eps);
        CAPTURE(delta);
        CHECK(r.spent.epsilon <= eps * (1 + 1e-12));
        CHECK(r.spent.delta <= delta);
      }
    }
  }
}

TEST_CASE("Alg 3 refuses bad arguments") {
  const double target[3] = {0, 0, 0};
  const population pop(10, 1, target);
  const std::vector<double> theta0(3, 0), short_theta(2, 0);
  const auto o = sgd_options(1, 1e-6, 2, server::budget_rule::tight);
  server::winsorized_sgd_result r;
  CHECK(server::winsorized_sgd(o, pop.users, 3, short_theta, squared_gradient, seed, &r) == status::invalid_argument);
  CHECK(server::winsorized_sgd(o, pop.users, 3, theta0, nullptr, seed, &r) == status::invalid_argument);
  auto bad = o;
  bad.learning_rate = 0;
  CHECK(server::winsorized_sgd(bad, pop.users, 3, theta0, squared_gradient, seed, &r) == status::invalid_argument);
}

TEST_CASE("Alg 3: the public regularizer is added outside the private mean, the projection applies") {
  // lambda / 2 ||theta - c||^2 with the data's mean m: the minimizer is (m + lambda c) / (1 + lambda).
  const double target[3] = {0.4, 0.4, 0.4};
  const population pop(2000, 4, target);
  const std::vector<double> theta0(3, 0);
  auto o = sgd_options(50, 1e-6, 30, server::budget_rule::tight);
  o.learning_rate = 0.4;
  o.lambda = 1;
  o.center = {-0.4, 0, 0.4};
  server::winsorized_sgd_result r;
  REQUIRE(server::winsorized_sgd(o, pop.users, 3, theta0, squared_gradient, seed, &r) == status::ok);
  std::vector<double> expected(3);
  for (std::size_t j = 0; j < 3; ++j) expected[j] = (pop.mean[j] + o.center[j]) / 2;
  CHECK(distance(r.last, expected) < noise_tolerance(r.eps_coordinate, 0.2, 2000));
  o.lambda = 0;
  o.radius = 0.1;
  REQUIRE(server::winsorized_sgd(o, pop.users, 3, theta0, squared_gradient, seed, &r) == status::ok);
  CHECK(distance(r.last, std::vector<double>(3, 0)) <= 0.1 * (1 + 1e-12));
  CHECK(r.last[0] == doctest::Approx(0.1 / std::sqrt(3.0)).epsilon(1e-2));
}

TEST_CASE("Alg 4: disjoint halving groups, 4^t lambda, parallel composition, convergence") {
  const double target[3] = {0.3, -0.2, 0.5};
  const population pop(4000, 4, target);
  const std::vector<double> theta0(3, 0);
  server::phased_erm_options o;
  o.step = sgd_options(50, 1e-6, 12, server::budget_rule::tight);
  o.phases = 3;
  o.lambda = 1.0 / 64;
  server::phased_erm_result r;
  REQUIRE(server::phased_erm(o, pop.users, 3, theta0, squared_gradient, seed, &r) == status::ok);
  CHECK(r.phase_users == std::vector<uint64_t>{2000, 1000, 1000});
  // Each phase spends at most (eps, delta) on its own users: the run too, not three times it.
  CHECK(r.spent.epsilon <= 50 * (1 + 1e-12));
  CHECK(r.spent.epsilon > 25);
  CHECK(r.spent.delta <= 1e-6);
  CHECK(distance(r.theta, pop.mean) < 0.03);
  o.phases = 13;  // 4000 >> 12 = 0 users in phase 12
  CHECK(server::phased_erm(o, pop.users, 3, theta0, squared_gradient, seed, &r) == status::invalid_argument);
}

TEST_CASE("Alg 5 random stopping against its exact law (fixed scores)") {
  // K = 4 candidates with scores in the order 2 < 0 < 3 < 1; gamma = 1/4. With N ~ Geometric(gamma)
  // draws, P(every draw ranks >= r) = E[x^N] = gamma x / (1 - (1 - gamma) x), x = (K - r + 1) / K,
  // and P(output = rank r) = E[x_r^N] - E[x_{r+1}^N]. Chi-square, 3 dof, 40000 runs: P(X > 30.7) ~ 1e-6.
  const double scores[4] = {1, 3, 0, 2};
  const unsigned rank_of[4] = {1, 3, 0, 2};
  const double gamma = 0.25;
  const auto tail = [&](unsigned r) {
    const double x = (4.0 - r) / 4;
    return gamma * x / (1 - (1 - gamma) * x);
  };
  ldp::random::drbg rng(seed);
  const server::candidate_score score = [&](uint64_t k, double* v) {
    *v = scores[k];
    return status::ok;
  };
  std::vector<double> counts(4, 0);
  const int runs = 40000;
  double draws = 0;
  for (int i = 0; i < runs; ++i) {
    server::selection_result r;
    REQUIRE(server::random_stopping_selection(4, uint64_t{1} << 30, score, rng, &r) == status::ok);
    CHECK(r.score == scores[r.candidate]);
    counts[rank_of[r.candidate]] += 1;
    draws += static_cast<double>(r.draws);
  }
  double chi2 = 0;
  for (unsigned r = 0; r < 4; ++r) {
    const double expected = runs * (tail(r) - (r + 1 < 4 ? tail(r + 1) : 0));
    chi2 += (counts[r] - expected) * (counts[r] - expected) / expected;
  }
  CHECK(chi2 < 30.7);
  // E[N] = 4, Var N = (1 - gamma) / gamma^2 = 12: the mean over 40000 runs has sd 0.017; 0.1 is ~6 sd.
  CHECK(draws / runs == doctest::Approx(4).epsilon(0.025));
  CHECK(server::random_stopping_selection(0, 1, score, rng, nullptr) == status::invalid_argument);
}

TEST_CASE("Alg 5 on a toy class selects the best candidate") {
  // Candidates theta in {0, 0.5, 1}, loss (theta - z)^2 in [0, 1], z near 0.5: candidate 1 is best by
  // 0.25. gamma = 2^-16: the chance that candidate 1 is never drawn is 2 gamma ~ 3e-5; at eps = 30 the
  // noise (scale about 12 tau / (n eps / 3), tau default) is far below the gap.
  std::vector<std::vector<double>> data(300);
  std::vector<span<const double>> users;
  for (std::size_t u = 0; u < data.size(); ++u) {
    data[u].push_back(0.45 + static_cast<double>(u % 11) / 100);
    users.push_back(data[u]);
  }
  server::private_selection_options o;
  o.epsilon = 30;
  o.candidates = 3;
  o.bound = 1;
  o.observations = 1;
  o.gamma_num = uint64_t{1} << 16;
  const server::sample_loss loss = [](uint64_t k, span<const double> z) {
    const double theta = static_cast<double>(k) / 2;
    return (theta - z[0]) * (theta - z[0]);
  };
  server::selection_result r;
  REQUIRE(server::private_selection(o, users, 1, loss, seed, &r) == status::ok);
  CHECK(r.candidate == 1);
  // The mean loss of candidate 1 is 0.001; the minimum over its ~2^16 / 3 noisy scores lies a few
  // times the scale (ln of the draws) below it.
  CHECK(std::abs(r.score - 0.001) < 0.1);
  CHECK(r.epsilon_impl <= 30);
  CHECK(r.epsilon_impl > 29);
  o.candidates = 0;
  CHECK(server::private_selection(o, users, 1, loss, seed, &r) == status::invalid_argument);
  o.candidates = 3;
  o.bound = 1e6;
  o.frac_bits = 40;
  o.observations = 1u << 20;  // 2^20 x 2^60: a user's sum would overflow int64
  CHECK(server::private_selection(o, users, 1, loss, seed, &r) == status::invalid_argument);
}
