// Ghazi et al. Algs 3-5 (docs/mechanisms.md I.3.4-I.3.6): the truncated geometric law's masses, the
// amplification and filter arithmetic against numbers computed independently (Python's math), the
// derived sigma2 minimal, the filter never admitting beyond (epsilon, delta) over many seeds, the
// spend computed from the steps taken, convergence at a huge epsilon like plain SGD, and the
// selection's level and choice. Deterministic (fixed seeds): nothing here fails by chance.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/random/drbg.h"
#include "ldp/server/central/accountant.h"
#include "ldp/server/central/ghazi_sgd.h"

namespace {

using ldp::span;
using ldp::status;
namespace server = ldp::server;

const std::vector<double> zero(3);

// f_u(w) = ||w - c_u||^2 / 2 on d = 3: user u's gradient w - c_u on the grid of 2^-f.
struct quadratic {
  std::vector<std::vector<double>> centres;
  unsigned frac_bits = 16;

  explicit quadratic(uint64_t users) {
    for (uint64_t u = 0; u < users; ++u) {
      const double a = static_cast<double>(u % 7) / 7 - 0.4, b = static_cast<double>(u % 5) / 5 - 0.3,
                   c = static_cast<double>(u % 3) / 3 - 0.2;
      centres.push_back({a, b, c});
    }
  }
  server::dp_sgd_gradient gradient() const {
    return [this](uint64_t u, span<const double> w, span<int64_t> out) {
      for (std::size_t j = 0; j < w.size(); ++j)
        out[j] = std::llround(std::ldexp(w[j] - centres[static_cast<std::size_t>(u)][j], static_cast<int>(frac_bits)));
      return status::ok;
    };
  }
  std::vector<double> mean() const {
    std::vector<double> m(3);
    for (const auto& c : centres)
      for (std::size_t j = 0; j < 3; ++j) m[j] += c[j] / static_cast<double>(centres.size());
    return m;
  }
  // The mean over users of ||c_u - c_bar||^2: the variance of a one-user gradient.
  double spread() const {
    const std::vector<double> m = mean();
    double v = 0;
    for (const auto& c : centres)
      for (std::size_t j = 0; j < 3; ++j) v += (c[j] - m[j]) * (c[j] - m[j]) / static_cast<double>(centres.size());
    return v;
  }
};

server::ghazi_sgd_options base_options(uint64_t users) {
  server::ghazi_sgd_options o;
  o.users = users;
  o.epsilon = 1;
  o.delta = 1e-6;
  o.steps = 100;
  o.learning_rate = 0.05;
  o.clip = 1;
  o.frac_bits = 16;
  return o;
}

double distance2(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t j = 0; j < a.size(); ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
  return s;
}

}  // namespace

TEST_CASE("truncated geometric masses: 2^(M-k) / (2^(M+1) - 1), summing to one") {
  CHECK(server::ghazi_level_probability(0, 0) == 1);
  CHECK(server::ghazi_level_probability(2, 0) == doctest::Approx(4.0 / 7).epsilon(1e-15));
  CHECK(server::ghazi_level_probability(2, 1) == doctest::Approx(2.0 / 7).epsilon(1e-15));
  CHECK(server::ghazi_level_probability(2, 2) == doctest::Approx(1.0 / 7).epsilon(1e-15));
  CHECK(server::ghazi_level_probability(2, 3) == 0);
  for (unsigned m : {1u, 5u, 20u, 62u}) {
    double total = 0;
    for (unsigned k = 0; k <= m; ++k) total += server::ghazi_level_probability(m, k);
    CHECK(total == doctest::Approx(1).epsilon(1e-12));
    // Remark 5.2: 1 <= C_M <= 2, i.e. P(N = 0) in [1/2, 1].
    CHECK(server::ghazi_level_probability(m, 0) >= 0.5);
  }
  ldp::random::drbg rng(std::vector<unsigned char>(32, 3).data());
  for (int i = 0; i < 100; ++i) CHECK(server::ghazi_sample_level(rng, 0) == 0);
  for (int i = 0; i < 1000; ++i) CHECK(server::ghazi_sample_level(rng, 4) <= 4);
}

TEST_CASE("subsampling amplification: log(1 + q (e^eps - 1)), independent numbers") {
  CHECK(server::subsampled_epsilon(1, 0.1) == doctest::Approx(0.1585650787404291).epsilon(1e-14));
  CHECK(server::subsampled_epsilon(3, 1.0 / 64) == doctest::Approx(0.2609875591086377).epsilon(1e-14));
  CHECK(server::subsampled_epsilon(2.5, 1) == doctest::Approx(2.5).epsilon(1e-15));
  CHECK(server::subsampled_epsilon(2.5, 0) == 0);
}

TEST_CASE("the plan: the filter's rho budget, the level costs and the smallest sigma2 that fits") {
  server::ghazi_sgd_options o = base_options(64);
  server::ghazi_step_budget b;
  REQUIRE(server::ghazi_plan(o, &b) == status::ok);
  CHECK(b.max_level == 5);  // the largest M with 2^(M+1) <= 64
  // Python: L = ln(2 / 1e-6), (sqrt(L + 1) - sqrt(L))^2.
  CHECK(b.rho_budget == doctest::Approx(0.016661676695158105).epsilon(1e-11));
  CHECK(b.rho_budget < 0.016661676695158105);
  CHECK(server::zcdp_to_epsilon_simple(b.rho_budget, o.delta / 2) <= o.epsilon);
  CHECK(b.delta_budget == o.delta / 2);
  CHECK(b.delta_batch == doctest::Approx(o.delta / 2 * 64 / (64.0 * 100)).epsilon(1e-15));
  const double c = std::ldexp(1.0, 16);
  CHECK(b.rho_mean == doctest::Approx(2 * c * c / static_cast<double>(b.sigma2)).epsilon(1e-15));
  CHECK(b.epsilon_batch == server::zcdp_to_epsilon(3 * b.rho_mean, b.delta_batch));
  double expected = 0;
  for (unsigned k = 0; k <= 5; ++k) {
    const double q = std::ldexp(1.0, static_cast<int>(k) + 1) / 64;
    CHECK(b.level_epsilon[k] == doctest::Approx(std::log1p(q * std::expm1(b.epsilon_batch))).epsilon(1e-14));
    CHECK(b.level_delta[k] == doctest::Approx(q * b.delta_batch).epsilon(1e-15));
    expected += b.level_probability[k] * b.level_epsilon[k] * b.level_epsilon[k] / 2;
  }
  CHECK(b.expected_rho == doctest::Approx(expected).epsilon(1e-14));
  // sigma2 fits T expected steps, sigma2 - 1 does not.
  CHECK(100 * b.expected_rho <= b.rho_budget);
  server::ghazi_sgd_options tighter = o;
  tighter.sigma2 = b.sigma2 - 1;
  server::ghazi_step_budget worse;
  REQUIRE(server::ghazi_plan(tighter, &worse) == status::ok);
  CHECK(100 * worse.expected_rho > worse.rho_budget);
  // A given sigma2 is kept; a smaller M is kept.
  tighter.sigma2 = 12345;
  tighter.max_level = 2;
  REQUIRE(server::ghazi_plan(tighter, &worse) == status::ok);
  CHECK(worse.sigma2 == 12345);
  CHECK(worse.level_epsilon.size() == 3);
}

TEST_CASE("argument checks") {
  server::ghazi_step_budget b;
  server::ghazi_sgd_options o = base_options(64);
  o.users = 1;
  CHECK(server::ghazi_plan(o, &b) == status::invalid_argument);
  o = base_options(64);
  o.max_level = 6;  // 2^7 > 64 users
  CHECK(server::ghazi_plan(o, &b) == status::invalid_argument);
  o = base_options(64);
  o.delta = 1;
  CHECK(server::ghazi_plan(o, &b) == status::invalid_argument);
  o = base_options(64);
  o.sparsity = -1;
  CHECK(server::ghazi_plan(o, &b) == status::invalid_argument);
  o = base_options(64);
  o.epsilon = 1e-300;  // nothing up to the sampler's largest sigma2 fits
  CHECK(server::ghazi_plan(o, &b) == status::overflow);

  const quadratic q(64);
  ldp::random::drbg rng(std::vector<unsigned char>(32, 4).data());
  std::vector<double> w(3), out(3);
  o = base_options(64);
  CHECK(server::ghazi_debiased_gradient(o, 100, 6, q.gradient(), w, rng, out) == status::invalid_argument);
  CHECK(server::ghazi_debiased_gradient(o, 0, 1, q.gradient(), w, rng, out) == status::invalid_argument);
  const std::vector<uint64_t> outside = {3, 64};
  CHECK(server::ghazi_private_mean(o, 100, q.gradient(), w, outside, rng, out) == status::invalid_argument);
  CHECK(server::ghazi_private_mean(o, 100, q.gradient(), w, {}, rng, out) == status::invalid_argument);
  server::ghazi_sgd_result r;
  CHECK(server::run_ghazi_sgd(o, {}, q.gradient(), rng, &r) == status::invalid_argument);
  CHECK(server::run_ghazi_sgd(o, w, {}, rng, &r) == status::invalid_argument);
}

TEST_CASE("the filter never admits beyond (epsilon, delta); the spend is the steps taken's") {
  const quadratic q(64);
  for (unsigned seed = 0; seed < 40; ++seed) {
    CAPTURE(seed);
    server::ghazi_sgd_options o = base_options(64);
    o.epsilon = 0.5 + seed % 4;
    o.steps = 400;
    // The noise of a 40-step plan: the 400-step run must meet the filter.
    server::ghazi_sgd_options plan = o;
    plan.steps = 40;
    server::ghazi_step_budget b;
    REQUIRE(server::ghazi_plan(plan, &b) == status::ok);
    o.sigma2 = b.sigma2;
    std::vector<unsigned char> key(32, 9);
    key[0] = static_cast<unsigned char>(seed);
    ldp::random::drbg rng(key.data());
    server::ghazi_sgd_result r;
    REQUIRE(server::run_ghazi_sgd(o, zero, q.gradient(), rng, &r) == status::ok);
    CHECK(r.filter_stopped);
    CHECK(r.steps_taken < o.steps);
    CHECK(r.epsilon_spent <= o.epsilon);
    CHECK(r.delta_spent <= o.delta);
    double rho = 0, delta = 0;
    uint64_t steps = 0;
    for (unsigned k = 0; k <= r.budget.max_level; ++k) {
      rho += static_cast<double>(r.level_counts[k]) * r.budget.level_epsilon[k] * r.budget.level_epsilon[k] / 2;
      delta += static_cast<double>(r.level_counts[k]) * r.budget.level_delta[k];
      steps += r.level_counts[k];
    }
    CHECK(steps == r.steps_taken);
    CHECK(r.rho_spent == doctest::Approx(rho).epsilon(1e-12));
    CHECK(r.rho_spent <= r.budget.rho_budget);
    CHECK(r.epsilon_spent == doctest::Approx(server::zcdp_to_epsilon_simple(rho, o.delta / 2)).epsilon(1e-12));
    CHECK(r.delta_spent == doctest::Approx(o.delta / 2 + delta).epsilon(1e-12));
    // The stop was forced: the most expensive level would not have fitted.
    const double top = r.budget.level_epsilon[r.budget.max_level];
    CHECK(r.rho_spent + top * top / 2 > r.budget.rho_budget);
  }
}

TEST_CASE("the observer stops the run and a failing callback's step is not counted") {
  const quadratic q(64);
  server::ghazi_sgd_options o = base_options(64);
  ldp::random::drbg rng(std::vector<unsigned char>(32, 5).data());
  server::ghazi_sgd_result r;
  REQUIRE(server::run_ghazi_sgd(o, zero, q.gradient(), rng, &r,
                                [](uint64_t step, span<const double>) { return step < 3; }) == status::ok);
  CHECK(r.steps_taken == 3);
  CHECK_FALSE(r.filter_stopped);
  uint64_t calls = 0;
  const server::dp_sgd_gradient failing = [&](uint64_t u, span<const double> w, span<int64_t> out) {
    return ++calls > 40 ? status::out_of_range : q.gradient()(u, w, out);
  };
  REQUIRE(server::run_ghazi_sgd(o, zero, failing, rng, &r) == status::out_of_range);
  CHECK(r.steps_taken < 40);
  double rho = 0;
  for (unsigned k = 0; k <= r.budget.max_level; ++k)
    rho += static_cast<double>(r.level_counts[k]) * r.budget.level_epsilon[k] * r.budget.level_epsilon[k] / 2;
  CHECK(r.rho_spent == doctest::Approx(rho).epsilon(1e-12));
}

TEST_CASE("convergence at a huge epsilon: the averaged iterate like one-user SGD's") {
  // sigma2 = 1 grid unit: the noise is negligible, so the oracle is A(b_0) plus the telescoping
  // term's noise, i.e. SGD on one user's gradient; averaged SGD on this quadratic (Hessian I) has
  // E ||w_bar - c_bar||^2 about V / T, V the one-user gradient variance (Polyak-Juditsky).
  const quadratic q(64);
  server::ghazi_sgd_options o = base_options(64);
  o.epsilon = 1e30;
  o.sigma2 = 1;
  o.steps = 4000;
  o.learning_rate = 0.05;
  ldp::random::drbg rng(std::vector<unsigned char>(32, 6).data());
  server::ghazi_sgd_result r;
  REQUIRE(server::run_ghazi_sgd(o, zero, q.gradient(), rng, &r) == status::ok);
  CHECK(r.steps_taken == o.steps);
  CHECK_FALSE(r.filter_stopped);
  const std::vector<double> target = q.mean();
  const double start = distance2(zero, target);
  const double bound = q.spread() / static_cast<double>(o.steps);
  CHECK(distance2(r.averaged, target) < 10 * bound + 1e-3 * start);
  // The last iterate sits in SGD's noise ball of radius^2 about eta V / 2.
  CHECK(distance2(r.last, target) < 10 * o.learning_rate * q.spread() / 2);
  // The regularizer, public and outside the private mean: with lambda = 1 the minimizer is c_bar / 2
  // and the one-user variance is V / 4 at Hessian 2 I.
  server::ghazi_sgd_options ridge = o;
  ridge.l2_regularization = 1;
  REQUIRE(server::run_ghazi_sgd(ridge, zero, q.gradient(), rng, &r) == status::ok);
  std::vector<double> half = target;
  for (double& v : half) v /= 2;
  CHECK(distance2(r.averaged, half) < 10 * bound / 4 + 1e-3 * start);
  CHECK(distance2(r.averaged, target) > 0.2 * start);
  // The projection caps the iterate.
  server::ghazi_sgd_options bounded = o;
  bounded.radius = 0.01;
  bounded.steps = 50;
  REQUIRE(server::run_ghazi_sgd(bounded, zero, q.gradient(), rng, &r) == status::ok);
  CHECK(distance2(r.last, zero) <= 1e-4 * (1 + 1e-12));
}

TEST_CASE("Alg 5: the selection's level within (epsilon, delta) and the better candidate chosen") {
  const quadratic q(64);
  server::ghazi_selection_options s;
  server::ghazi_sgd_options good = base_options(64), idle = base_options(64);
  good.sigma2 = idle.sigma2 = 1;
  good.steps = idle.steps = 200;
  good.learning_rate = 0.05;
  idle.learning_rate = 1e-6;  // stays at 0: a larger loss
  s.candidates = {idle, good};
  s.epsilon = 1e30;
  s.delta = 1e-6;
  s.loss_bound = 1;
  s.gamma_num = uint64_t{1} << 26;  // gamma = 1/64: the better one is missed with probability 1/65
  const server::ghazi_user_loss loss = [&](uint64_t u, span<const double> w) {
    return distance2(std::vector<double>(w.begin(), w.end()), q.centres[static_cast<std::size_t>(u)]) / 2;
  };
  ldp::random::drbg rng(std::vector<unsigned char>(32, 7).data());
  server::ghazi_selection_result r;
  REQUIRE(server::select_ghazi_sgd(s, zero, q.gradient(), loss, rng, &r) == status::ok);
  CHECK(r.candidate == 1);
  CHECK(distance2(r.weights, q.mean()) < 0.01);
  CHECK(r.runs >= 1);
  CHECK(r.runs <= r.max_runs);
  CHECK(r.max_runs == static_cast<uint64_t>(std::ceil(64 * std::log(2 / 1e-6))));

  // The level at a realistic epsilon: Liu-Talwar Thm 3.4 with the numbers computed here.
  s.epsilon = 2;
  s.gamma_num = 0;  // 1 / K = 1/2
  for (server::ghazi_sgd_options& c : s.candidates) {
    c.sigma2 = 0;
    c.frac_bits = 8;  // at eps_1 / 2 and delta_1 ~ 1e-16 a 2^16 grid would need sigma2 beyond the sampler's
    c.steps = 50;
  }
  REQUIRE(server::select_ghazi_sgd(s, zero, q.gradient(), loss, rng, &r) == status::ok);
  const double t_cap = std::ceil(2 * std::log(2 / 1e-6));
  CHECK(r.max_runs == static_cast<uint64_t>(t_cap));
  const double root = 1e-6 / (2 * t_cap), eps1 = 2.0 / 3 - root;
  CHECK(r.base_delta == doctest::Approx(root * root / 2).epsilon(1e-12));
  CHECK(r.base_epsilon <= eps1);
  CHECK(r.base_epsilon > eps1 * (1 - 1e-3));  // the score's ceil(range / (eps_1 / 2)): a relative 1 / t
  CHECK(r.epsilon_spent == doctest::Approx(3 * r.base_epsilon + 3 * root).epsilon(1e-14));
  CHECK(r.epsilon_spent <= s.epsilon);
  CHECK(r.delta_spent == doctest::Approx(root * t_cap + 1e-6 / 2).epsilon(1e-14));
  CHECK(r.delta_spent <= s.delta);
  s.candidates[1].users = 32;
  CHECK(server::select_ghazi_sgd(s, zero, q.gradient(), loss, rng, &r) == status::invalid_argument);
}
