// The discrete Gaussian accountant and the user-level DP-SGD driver (docs/mechanisms.md I.1):
// conversions against numbers computed independently (a fine numpy grid over the Renyi orders of
// CKS 2020 Corollary 13, and the closed form of Bun, Steinke 2016 Prop. 1.3), monotonicity, the
// sigma2 inverse never above its target and minimal, the exact clipping on the grid, the run's
// accounting from the steps it took, and convergence at large epsilon like non-private GD.
// Deterministic (fixed seeds): nothing here fails by chance.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/device/gradient.h"
#include "ldp/random/drbg.h"
#include "ldp/server/central/accountant.h"
#include "ldp/server/central/dp_sgd.h"
#include "ldp/wire/model_broadcast.h"

namespace {

using ldp::span;
using ldp::status;
namespace server = ldp::server;

const unsigned char seed[32] = {15, 1, 1};

double norm2(const std::vector<int64_t>& g) {
  double s = 0;
  for (const int64_t v : g) s += static_cast<double>(v) * static_cast<double>(v);
  return s;
}

}  // namespace

TEST_CASE("zCDP to (epsilon, delta): CKS 2020 Cor. 13 and the simple bound, independent numbers") {
  struct row {
    double rho, delta, tight, simple;
  };
  // numpy: min over a = 1 + b, b on a log grid of 2e6 points in [1e-6, 1e6].
  const row rows[] = {{0.5, 1e-5, 4.728386984956059, 5.298525912188081},
                      {0.1, 1e-6, 2.1419389283857413, 2.4507880004767997},
                      {2.0, 1e-3, 8.416064294485201, 9.433844377699677},
                      {0.01, 1e-9, 0.8101744678684755, 0.9204562776310878}};
  for (const row& r : rows) {
    CAPTURE(r.rho);
    CHECK(server::zcdp_to_epsilon(r.rho, r.delta) == doctest::Approx(r.tight).epsilon(1e-9));
    CHECK(server::zcdp_to_epsilon_simple(r.rho, r.delta) == doctest::Approx(r.simple).epsilon(1e-12));
    CHECK(server::zcdp_to_epsilon(r.rho, r.delta) < server::zcdp_to_epsilon_simple(r.rho, r.delta));
  }
  CHECK(server::zcdp_to_epsilon(0, 1e-6) == 0);
  CHECK(std::isnan(server::zcdp_to_epsilon(1, 0)));
  CHECK(std::isnan(server::zcdp_to_epsilon(-1, 0.5)));
}

TEST_CASE("discrete Gaussian rho: T Delta^2 / (2 sigma2), monotone in every argument") {
  CHECK(server::discrete_gaussian_rho(2, 8, 1) == 0.25);
  CHECK(server::discrete_gaussian_rho(2, 8, 10) == 2.5);
  CHECK(std::isnan(server::discrete_gaussian_rho(2, 0, 1)));
  double previous = 0;
  for (uint64_t steps = 1; steps <= 64; steps *= 2) {
    const double e = server::zcdp_to_epsilon(server::discrete_gaussian_rho(4, 100, steps), 1e-6);
    CHECK(e > previous);
    previous = e;
  }
  previous = 1e300;
  for (double sigma2 = 1; sigma2 < 1e9; sigma2 *= 3) {
    const double e = server::zcdp_to_epsilon(server::discrete_gaussian_rho(4, sigma2, 10), 1e-6);
    CHECK(e < previous);
    previous = e;
  }
  previous = 1e300;
  for (double delta = 1e-12; delta < 0.5; delta *= 10) {
    const double e = server::zcdp_to_epsilon(0.3, delta);
    CHECK(e < previous);
    previous = e;
  }
}

TEST_CASE("sigma2 for a target: never above it, and the smallest integer that fits") {
  const double targets[][3] = {{1, 1e-5, 10}, {0.5, 1e-6, 100}, {8, 1e-3, 1}, {2, 1e-9, 1000}};
  for (const auto& t : targets) {
    const auto steps = static_cast<uint64_t>(t[2]);
    const double sensitivity = 2 * 65536.0;
    const uint64_t s = server::discrete_gaussian_sigma2_for(t[0], t[1], steps, sensitivity);
    CAPTURE(t[0]);
    REQUIRE(s > 1);
    const auto spent = [&](uint64_t sigma2) {
      return server::zcdp_to_epsilon(server::discrete_gaussian_rho(sensitivity, static_cast<double>(sigma2), steps),
                                     t[1]);
    };
    CHECK(spent(s) <= t[0]);
    CHECK(spent(s - 1) > t[0]);
    CHECK(spent(s) > 0.999999 * t[0]);  // the grid is fine: nothing wasted beyond one unit of sigma2
  }
  CHECK(server::discrete_gaussian_sigma2_for(1e6, 1e-5, 1, 1) == 1);
  CHECK(server::discrete_gaussian_sigma2_for(1e-9, 1e-5, 1000, 1e12) == 0);  // beyond 2^52
  CHECK(server::discrete_gaussian_sigma2_for(0, 1e-5, 1, 1) == 0);
  CHECK(server::discrete_gaussian_sigma2_for(1, 1e-5, 0, 1) == 0);
  CHECK(server::dp_sgd_sigma2_for(1, 1e-5, 10, 1, 16) == server::discrete_gaussian_sigma2_for(1, 1e-5, 10, 131072));
}

TEST_CASE("clip_on_grid: the exact L2 norm never exceeds C, short vectors are unchanged") {
  std::vector<int64_t> inside{3, -4};
  server::clip_on_grid(inside, 5);
  CHECK(inside == std::vector<int64_t>{3, -4});
  std::vector<int64_t> outside{30, -40, 0};
  server::clip_on_grid(outside, 5);
  CHECK(norm2(outside) <= 25);
  CHECK(outside[0] >= 2);
  CHECK(outside[1] <= -3);               // the direction kept up to the grid
  std::vector<int64_t> boundary{-1000};  // lands on the sphere, not a grid unit inside it
  server::clip_on_grid(boundary, 1);
  CHECK(boundary == std::vector<int64_t>{-1});
  std::vector<int64_t> diagonal{1, 1};  // rounding to nearest would leave it outside: truncated
  server::clip_on_grid(diagonal, 1);
  CHECK(norm2(diagonal) <= 1);
  std::vector<int64_t> huge{INT64_MAX, INT64_MIN, INT64_MAX};
  server::clip_on_grid(huge, uint64_t{1} << 30);
  CHECK(norm2(huge) <= std::ldexp(1.0, 60));
  CHECK(norm2(huge) > 0.99 * std::ldexp(1.0, 60));
  for (uint64_t c = 1; c < 2000; c = c * 3 + 1) {
    std::vector<int64_t> g{static_cast<int64_t>(c * 7 + 1), static_cast<int64_t>(c * 5 + 3), -static_cast<int64_t>(c)};
    server::clip_on_grid(g, c);
    CHECK(norm2(g) <= static_cast<double>(c) * static_cast<double>(c));
  }
}

namespace {

// User u's loss is 1/2 ||w - a_u||^2 (strongly convex, minimizer the mean of the a_u): averaged
// gradient w - a_u, on the grid.
struct quadratic_users {
  unsigned frac_bits;
  std::vector<std::vector<double>> targets;
  status operator()(uint64_t u, span<const double> w, span<int64_t> out) const {
    for (std::size_t j = 0; j < w.size(); ++j) {
      out[j] = static_cast<int64_t>(
          std::llround(std::ldexp(w[j] - targets[static_cast<std::size_t>(u)][j], static_cast<int>(frac_bits))));
    }
    return status::ok;
  }
};

quadratic_users make_users(uint64_t n, unsigned frac_bits) {
  quadratic_users q{frac_bits, {}};
  for (uint64_t u = 0; u < n; ++u) {
    const double x = static_cast<double>(u);
    q.targets.push_back({0.3 + 0.01 * x, -0.2 + 0.005 * x, std::sin(x) / 4});
  }
  return q;
}

// The two convergence runs' options: n users, 200 steps of 0.1, clip 4 on the grid of 2^-20, the
// ball of `radius`, the noise for `epsilon` at `delta`.
server::dp_sgd_options convergence_options(uint64_t n, double radius, double epsilon, double delta) {
  server::dp_sgd_options o;
  o.users = n;
  o.steps = 200;
  o.learning_rate = 0.1;
  o.clip = 4;
  o.frac_bits = 20;
  o.radius = radius;
  o.delta = delta;
  o.sigma2 = server::dp_sgd_sigma2_for(epsilon, o.delta, o.steps, o.clip, o.frac_bits);
  return o;
}

}  // namespace

TEST_CASE("run_dp_sgd at large epsilon follows non-private projected GD to the minimizer") {
  const uint64_t n = 40, steps = 200;
  const quadratic_users users = make_users(n, 20);
  const server::dp_sgd_options o = convergence_options(n, 10, 1e4, 1e-6);
  REQUIRE(o.sigma2 >= 1);
  ldp::random::drbg rng(seed);
  const std::vector<double> w0{1, 1, 1};
  const server::dp_sgd_result r = server::run_dp_sgd(o, w0, users, rng);
  REQUIRE(r.code == status::ok);
  CHECK(r.steps_taken == steps);
  CHECK(r.epsilon <= 1e4);
  // Non-private GD with the same steps, and the minimizer.
  std::vector<double> w = w0, mean(3, 0);
  for (const auto& a : users.targets) {
    for (std::size_t j = 0; j < 3; ++j) mean[j] += a[j] / static_cast<double>(n);
  }
  for (uint64_t t = 0; t < steps; ++t) {
    for (std::size_t j = 0; j < 3; ++j) w[j] -= o.learning_rate * (w[j] - mean[j]);
  }
  // The iterate's stationary noise: the noisy mean has sd s = sigma / (n 2^f) per coordinate and
  // w_j - w*_j has sd lr s / sqrt(2 lr - lr^2); 6 sd (false failure < 1e-8 per coordinate) plus
  // the grid's rounding. At this epsilon the noise is small against the distance (~1) GD covers.
  const double s = std::sqrt(static_cast<double>(o.sigma2)) / (static_cast<double>(n) * std::ldexp(1.0, 20));
  const double tolerance =
      6 * o.learning_rate * s / std::sqrt(2 * o.learning_rate - o.learning_rate * o.learning_rate) + 1e-5;
  REQUIRE(tolerance < 0.05);
  for (std::size_t j = 0; j < 3; ++j) {
    CHECK(std::fabs(r.last[j] - w[j]) < tolerance);
    CHECK(std::fabs(w[j] - mean[j]) < 1e-6);
    CHECK(std::fabs(r.averaged[j] - mean[j]) < 0.1);  // the average carries the early iterates
  }
}

TEST_CASE("run_dp_sgd with a projection: the iterate stays in the ball and reaches the constrained minimizer") {
  // For 1/2 ||w - a||^2 averaged, the minimizer over the ball of radius R is a's mean scaled to R.
  const uint64_t n = 40;
  const quadratic_users users = make_users(n, 20);
  const server::dp_sgd_options o = convergence_options(n, 0.1, 1e9, server::dp_sgd_options{}.delta);
  ldp::random::drbg rng(seed);
  const std::vector<double> w0{0, 0, 0};
  const server::dp_sgd_result r = server::run_dp_sgd(o, w0, users, rng);
  REQUIRE(r.code == status::ok);
  std::vector<double> mean(3, 0);
  for (const auto& a : users.targets) {
    for (std::size_t j = 0; j < 3; ++j) mean[j] += a[j] / static_cast<double>(n);
  }
  const double norm = std::sqrt(mean[0] * mean[0] + mean[1] * mean[1] + mean[2] * mean[2]);
  REQUIRE(norm > 0.3);
  // The projected step contracts by 1 - lr (projection is nonexpansive), so the distance to the
  // noiseless iterate stays below the largest noise norm lr / lr = 1 times 6 sd sqrt(3) (each
  // step's noise beyond 6 sd: ~1e-8); the noiseless one is within 0.9^200 of the minimizer.
  const double s = std::sqrt(static_cast<double>(o.sigma2)) / (static_cast<double>(n) * std::ldexp(1.0, 20));
  const double tolerance = 6 * std::sqrt(3.0) * s + 1e-6;
  REQUIRE(tolerance < 1e-3);
  double last2 = 0;
  for (std::size_t j = 0; j < 3; ++j) {
    last2 += r.last[j] * r.last[j];
    CHECK(std::fabs(r.last[j] - mean[j] * o.radius / norm) < tolerance);
  }
  CHECK(std::sqrt(last2) <= o.radius * (1 + 1e-12));
}

TEST_CASE("run_dp_sgd: the noise is there at small epsilon, and the spend counts the steps taken") {
  const quadratic_users users = make_users(10, 16);
  server::dp_sgd_options o;
  o.users = 10;
  o.steps = 10;
  o.learning_rate = 0.5;
  o.clip = 1;
  o.frac_bits = 16;
  o.delta = 1e-5;
  o.sigma2 = server::dp_sgd_sigma2_for(1, o.delta, o.steps, o.clip, o.frac_bits);
  ldp::random::drbg rng(seed);
  const std::vector<double> w0{0, 0, 0};
  uint64_t seen = 0;
  const server::dp_sgd_result r = server::run_dp_sgd(o, w0, users, rng, [&](uint64_t step, span<const double>) {
    seen = step;
    return step < 3;
  });
  REQUIRE(r.code == status::ok);
  CHECK(seen == 3);
  CHECK(r.steps_taken == 3);
  const double c = 65536;
  CHECK(r.rho == doctest::Approx(3 * (2 * c) * (2 * c) / (2 * static_cast<double>(o.sigma2))));
  CHECK(r.epsilon == doctest::Approx(server::zcdp_to_epsilon(r.rho, o.delta)));
  CHECK(r.epsilon < 1);
  // A failing callback stops the run; the step it failed in released nothing.
  ldp::random::drbg rng2(seed);
  const server::dp_sgd_result failed = server::run_dp_sgd(
      o, w0, [](uint64_t, span<const double>, span<int64_t>) { return status::invalid_argument; }, rng2);
  CHECK(failed.code == status::invalid_argument);
  CHECK(failed.steps_taken == 0);
  CHECK(failed.epsilon == 0);
  server::dp_sgd_options bad = o;
  bad.sigma2 = 0;
  CHECK(server::run_dp_sgd(bad, w0, users, rng2).code == status::invalid_argument);
}

namespace {

// n users of m = 4 logistic samples (p = 2), each contribution computed as a device would
// (device/gradient.h) from the broadcast of the current iterate, which the server encodes per step.
struct logistic_round {
  static constexpr uint32_t p = 2, m = 4;
  static constexpr unsigned frac_bits = 16;
  std::vector<std::vector<double>> features, labels;
  explicit logistic_round(uint64_t n) {
    for (uint64_t u = 0; u < n; ++u) {
      std::vector<double> x, y;
      for (uint32_t k = 0; k < m; ++k) {
        const double a = std::sin(static_cast<double>(u * m + k) * 1.7), b = std::cos(static_cast<double>(u + k) * 0.9);
        x.push_back(a);
        x.push_back(b);
        y.push_back((a + 0.5 * b > 0.2) != ((u + k) % 5 == 0) ? 1 : 0);  // a fifth flipped: a finite optimum
      }
      features.push_back(x);
      labels.push_back(y);
    }
  }
  status operator()(uint64_t u, span<const double> w, span<int64_t> out) const {
    const ldp::wire::model_header h{{ldp::wire::model_kind::logistic, p, 1}, ldp::wire::weight_format::f64, 1};
    std::vector<unsigned char> broadcast(ldp::wire::model_broadcast_size(h));
    std::size_t written = 0;
    if (ldp::wire::encode_model_broadcast(h, w, broadcast, &written) != status::ok) return status::invalid_argument;
    const ldp::device::gradient_bound bound{ldp::wire::model_broadcast_digest(broadcast), m, frac_bits,
                                            int64_t{1} << frac_bits};  // G = 1
    std::vector<double> workspace(ldp::device::gradient_workspace_size(h));
    return ldp::device::user_gradient<double>(
        broadcast, bound, {features[static_cast<std::size_t>(u)].data(), labels[static_cast<std::size_t>(u)].data(), m},
        workspace, out);
  }
};

}  // namespace

TEST_CASE("run_dp_sgd over device contributions (logistic model): epsilon 1e7 follows the noiseless run") {
  const uint64_t n = 30, steps = 60;
  const logistic_round users(n);
  server::dp_sgd_options o;
  o.users = n;
  o.steps = steps;
  o.learning_rate = 0.5;
  o.clip = 1;
  o.frac_bits = logistic_round::frac_bits;
  o.l2_regularization = 0.05;
  o.delta = 1e-6;
  o.sigma2 = server::dp_sgd_sigma2_for(1e7, o.delta, steps, o.clip, o.frac_bits);
  ldp::random::drbg rng(seed);
  const std::vector<double> w0{0, 0, 0};
  const server::dp_sgd_result r = server::run_dp_sgd(o, w0, users, rng);
  REQUIRE(r.code == status::ok);
  // The noiseless run: the same contributions (the server's re-clipping changes none of them),
  // summed exactly.
  std::vector<double> w = w0;
  std::vector<int64_t> g(3), clipped(3);
  for (uint64_t t = 0; t < steps; ++t) {
    std::vector<double> sum(3, 0);
    for (uint64_t u = 0; u < n; ++u) {
      REQUIRE(users(u, w, g) == status::ok);
      clipped = g;
      server::clip_on_grid(clipped, uint64_t{1} << logistic_round::frac_bits);
      CHECK(clipped == g);
      for (std::size_t j = 0; j < 3; ++j) sum[j] += static_cast<double>(g[j]);
    }
    for (std::size_t j = 0; j < 3; ++j) {
      w[j] -= o.learning_rate * (sum[j] / (static_cast<double>(n) * 65536) + o.l2_regularization * w[j]);
    }
  }
  // The step map w -> w - lr (grad + lambda w) is nonexpansive (lr (L + lambda) <= 2: the logistic
  // loss is ||(x, 1)||^2 / 4 <= 3/4-smooth), so the runs differ by at most lr times the sum over
  // steps of the noise's norm (each <= 6 sd sqrt(3) but with probability ~1e-8) plus the grid's
  // rounding (sqrt(3) 2^-17 per contribution, both runs).
  const double s = std::sqrt(static_cast<double>(o.sigma2)) / (static_cast<double>(n) * 65536);
  const double tolerance =
      o.learning_rate * static_cast<double>(steps) * std::sqrt(3.0) * (6 * s + std::ldexp(1.0, -16)) + 1e-9;
  REQUIRE(tolerance < 0.05);
  CHECK(std::fabs(w[0]) > 0.5);  // the noiseless run moved: the comparison is not vacuous
  for (std::size_t j = 0; j < 3; ++j) CHECK(std::fabs(r.last[j] - w[j]) < tolerance);
}
