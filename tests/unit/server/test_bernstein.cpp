// The iterated Bernstein surrogate of the local Bernstein mechanism (ldp/server/bernstein.h,
// docs/mechanisms.md H.1 "Server: surrogate and minimization"): the basis, the identities of the
// corrected Def 6 (A_h 1 = 1, B_k^{(h)}(w^2) - w^2 = w (1 - w) / k^h), the minimizer of a noiseless
// quadratic loss, the sup-norm inequality of Thm 17's proof with the noise gain, the variance, the
// box minimizer and the grid error bound.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/random/drbg.h"
#include "ldp/server/bernstein.h"
#include "ldp/wire/loss.h"
#include "tables.h"

using ldp::server::bernstein_grid;

namespace {

double binomial(uint32_t k, uint32_t v) {
  double c = 1;
  for (uint32_t i = 1; i <= v; ++i) c = c * (k - v + i) / i;
  return c;
}

std::vector<double> grid_values(bernstein_grid g, double (*f)(const double*)) {
  std::vector<double> values(static_cast<std::size_t>(ldp::server::grid_points(g)));
  std::vector<double> w(g.p);
  for (std::size_t l = 0; l < values.size(); ++l) {
    ldp::wire::grid_point(g.p, g.k, l, w.data());
    values[l] = f(w.data());
  }
  return values;
}

// The surrogate of order h of the grid values at w.
double surrogate(bernstein_grid g, uint32_t h, const std::vector<double>& values, const double* w) {
  const std::vector<double> coef = ldp::server::bernstein_coefficients(g, h, values);
  REQUIRE(coef.size() == values.size());
  return ldp::server::bernstein_value(g, coef, w);
}

// Uniform in [0, 1) with 53 bits.
double uniform(ldp::random::drbg& rng) { return static_cast<double>(rng.next_u64() >> 11) * 0x1p-53; }

}  // namespace

TEST_CASE("the Bernstein basis is the binomial pmf and sums to 1 for every k") {
  for (const uint32_t k : {1u, 2u, 7u, 10u, 37u, 255u, 4000u, 65535u}) {
    std::vector<double> b(k + 1);
    for (const double x : {0.0, 1e-300, 0.013, 0.3, 0.5, 0.77, 1.0 - 1e-16, 1.0}) {
      ldp::server::bernstein_basis(k, x, b.data());
      double sum = 0, smallest = 0;
      for (const double v : b) {
        smallest = std::min(smallest, v);
        sum += v;
      }
      CHECK(smallest == 0);  // none negative
      CHECK(std::fabs(sum - 1) <= 1e-12);
      if (k <= 37 && x > 0 && x < 1e-10) continue;
      if (k <= 37)
        for (uint32_t v = 0; v <= k; ++v)
          CHECK(b[v] == doctest::Approx(binomial(k, v) * std::pow(x, v) * std::pow(1 - x, k - v)).epsilon(1e-13));
    }
  }
}

TEST_CASE("A_h 1 = 1: the surrogate of a constant is that constant") {
  for (const bernstein_grid g : {bernstein_grid{1, 9}, bernstein_grid{2, 5}, bernstein_grid{3, 3}}) {
    for (uint32_t h = 1; h <= 5; ++h) {
      const std::vector<double> ones(static_cast<std::size_t>(ldp::server::grid_points(g)), 1.0);
      for (const double c : ldp::server::bernstein_coefficients(g, h, ones)) CHECK(std::fabs(c - 1) <= 1e-12);
    }
  }
}

TEST_CASE("B_k^(h)(w^2) - w^2 = w (1 - w) / k^h: the corrected Def 6, with B_k^{i-1}") {
  // (I - B_k) w^2 = -w(1-w)/k and (I - B_k) w(1-w) = w(1-w)/k, so (I - B_k)^h w^2 = -w(1-w)/k^h and
  // B^(h) = I - (I - B_k)^h adds w(1-w)/k^h. Def 6 as printed (B_k^{k-1}) fails this for h >= 2.
  for (const uint32_t k : {2u, 3u, 10u, 17u}) {
    const bernstein_grid g{1, k};
    const std::vector<double> squares = grid_values(g, [](const double* w) { return w[0] * w[0]; });
    for (uint32_t h = 1; h <= 3; ++h) {
      for (const double w : {0.0, 0.13, 0.5, 0.77, 1.0}) {
        const double expected = w * (1 - w) / std::pow(k, h);
        CHECK(std::fabs(surrogate(g, h, squares, &w) - w * w - expected) <= 1e-13);
      }
    }
  }
  // Along each axis of a tensor grid: f = w0^2 w1 gives (w0^2 + w0 (1 - w0) / k^h) w1 (B_k keeps
  // linear functions), which tells the axes apart.
  const bernstein_grid g{3, 4};
  const std::vector<double> values = grid_values(g, [](const double* w) { return w[0] * w[0] * w[1]; });
  for (uint32_t h = 1; h <= 3; ++h) {
    for (const double w0 : {0.2, 0.9}) {
      const double w[3] = {w0, 0.35, 0.6};
      const double expected = (w0 * w0 + w0 * (1 - w0) / std::pow(4, h)) * w[1];
      CHECK(std::fabs(surrogate(g, h, values, w) - expected) <= 1e-13);
    }
  }
}

TEST_CASE("noiseless quadratic loss: the surrogate's minimizer is (2 k^h xbar - 1) / (2 (k^h - 1))") {
  // B^(h) of mean (w - x_i)^2 is w^2 + w (1 - w) / k^h - 2 w xbar + const (C.4 "Further tests").
  const double x[] = {0.05, 0.2, 0.3, 0.4, 0.55};  // xbar = 0.3
  const uint32_t k = 10;
  const bernstein_grid g{1, k};
  std::vector<double> values(k + 1);
  for (uint32_t v = 0; v <= k; ++v) {
    for (const double xi : x) values[v] += (v / 10.0 - xi) * (v / 10.0 - xi) / 5;
  }
  for (uint32_t h = 1; h <= 2; ++h) {
    const std::vector<double> coef = ldp::server::bernstein_coefficients(g, h, values);
    const auto m = ldp::server::minimize_on_box(
        1, [&](const double* w) { return ldp::server::bernstein_value(g, coef, w); }, 1);
    const double kh = std::pow(k, h);
    REQUIRE(m.w.size() == 1);
    CHECK(m.w[0] == doctest::Approx((2 * kh * 0.3 - 1) / (2 * (kh - 1))).epsilon(1e-7));
    if (h == 1) CHECK(m.w[0] == doctest::Approx(0.2777778).epsilon(1e-6));
  }
}

TEST_CASE("the noise gain is ||A_h||_inf^p <= (2^h - 1)^p and bounds sup|L~ - L| (Thm 17's proof)") {
  // One loss per dimension: each reads exactly the p coordinates of its grid's points.
  double (*const loss_1)(const double*) = [](const double* w) { return std::log1p(std::exp(2 * w[0] - 1.5)) / 4; };
  double (*const loss_2)(const double*) = [](const double* w) {
    return std::log1p(std::exp(2 * w[0] - 3 * w[1] + 0.5)) / 4;
  };
  auto rng = ldp::test::seeded_drbg("bernstein sup bound");
  const auto u = [&] { return uniform(rng); };
  // Above 512 nodes per axis the gain is the paper's bound, not computed.
  CHECK(ldp::server::bernstein_noise_gain({1, 600}, 2) == 3);
  CHECK(ldp::server::bernstein_noise_gain({1, 600}, 1) == 1);
  for (const bernstein_grid g : {bernstein_grid{1, 8}, bernstein_grid{2, 6}}) {
    const auto n = static_cast<std::size_t>(ldp::server::grid_points(g));
    const auto loss = g.p == 1 ? loss_1 : loss_2;
    const std::vector<double> exact = grid_values(g, loss);
    for (uint32_t h = 1; h <= 3; ++h) {
      const double gain = ldp::server::bernstein_noise_gain(g, h);
      CHECK(gain <= std::pow(std::pow(2, h) - 1, g.p) + 1e-12);
      if (h == 1) CHECK(gain == doctest::Approx(1).epsilon(1e-13));
      // The gain from the explicit matrix A_h (x) ... (x) A_h: column l is the coefficients of e_l.
      std::vector<double> row_sums(n);
      for (std::size_t l = 0; l < n; ++l) {
        std::vector<double> unit(n);
        unit[l] = 1;
        const std::vector<double> column = ldp::server::bernstein_coefficients(g, h, unit);
        for (std::size_t r = 0; r < n; ++r) row_sums[r] += std::fabs(column[r]);
      }
      CHECK(*std::max_element(row_sums.begin(), row_sums.end()) == doctest::Approx(gain).epsilon(1e-12));
      if (h == 2 && g.p == 1) {  // A_2 = 2I - M: row u sums to 3 - 2 M[u][u], largest at u = k/2
        std::vector<double> b(g.k + 1);
        ldp::server::bernstein_basis(g.k, 0.5, b.data());
        CHECK(gain == doctest::Approx(3 - 2 * b[g.k / 2]).epsilon(1e-13));
      }
      // Random perturbations of size at most delta: pointwise
      // |L~(w) - L(w)| <= |B^(h) L(w) - L(w)| + gain max_v |L~(v) - L(v)|.
      const double delta = 0.01;
      for (int trial = 0; trial < 20; ++trial) {
        std::vector<double> noisy = exact;
        double largest = 0;
        for (double& v : noisy) {
          const double e = delta * (2 * u() - 1);
          v += e;
          largest = std::max(largest, std::fabs(e));
        }
        const std::vector<double> c_noisy = ldp::server::bernstein_coefficients(g, h, noisy);
        const std::vector<double> c_exact = ldp::server::bernstein_coefficients(g, h, exact);
        for (int point = 0; point < 50; ++point) {
          const double w[2] = {u(), u()};
          const double truth = loss(w);
          const double lhs = std::fabs(ldp::server::bernstein_value(g, c_noisy, w) - truth);
          const double approx = std::fabs(ldp::server::bernstein_value(g, c_exact, w) - truth);
          CHECK(lhs <= approx + gain * largest + 1e-14);
        }
      }
    }
  }
}

TEST_CASE("bernstein_variance is sum_v var_v c_v(w)^2 for independent grid values") {
  const bernstein_grid g{2, 3};
  const auto n = static_cast<std::size_t>(ldp::server::grid_points(g));
  const double w[2] = {0.31, 0.84};
  for (uint32_t h = 1; h <= 3; ++h) {
    // One unit variance at a time: the variance is the square of that value's weight c_v(w).
    for (std::size_t l = 0; l < n; ++l) {
      std::vector<double> unit(n);
      unit[l] = 1;
      const double weight = surrogate(g, h, unit, w);
      CHECK(ldp::server::bernstein_variance(g, h, unit, w) == doctest::Approx(weight * weight).epsilon(1e-12));
    }
  }
  // Monte Carlo: uniform perturbations with variances var_v, R = 20000 replicates. The estimator's
  // excess kurtosis is in [-1.2, 0] (a weighted sum of uniforms), so the sample variance has relative
  // standard deviation at most sqrt(2 / R) = 1.0 %; 5.2 % is 5 standard deviations (false failure
  // about 2e-7 with the normal approximation).
  auto rng = ldp::test::seeded_drbg("bernstein variance");
  const auto u = [&] { return uniform(rng); };
  const uint32_t h = 2;
  std::vector<double> variances(n);
  for (double& v : variances) v = 0.5 + 1.5 * u();
  const std::vector<double> zero(n);
  const int replicates = 20000;
  double sum = 0, sum_squares = 0;
  for (int r = 0; r < replicates; ++r) {
    std::vector<double> noise(n);
    for (std::size_t l = 0; l < n; ++l) noise[l] = std::sqrt(3 * variances[l]) * (2 * u() - 1);
    const double s = surrogate(g, h, noise, w);
    sum += s;
    sum_squares += s * s;
  }
  const double mean = sum / replicates;
  const double sample_variance = (sum_squares - replicates * mean * mean) / (replicates - 1);
  const double predicted = ldp::server::bernstein_variance(g, h, variances, w);
  CHECK(std::fabs(sample_variance / predicted - 1) <= 0.052);
}

TEST_CASE("minimize_on_box finds known minima in p = 1, 2, 3, 5, 20") {
  for (const uint32_t p : {1u, 2u, 3u, 5u, 20u}) {
    std::vector<double> a(p), b(p);
    for (uint32_t j = 0; j < p; ++j) {
      a[j] = 0.2 + 0.6 * j / p;
      b[j] = 0.8 - 0.5 * j / p;
    }
    // Convex and ill-conditioned along rotated axes: |D^(1/2) H (w - a)|^2 with H the Householder
    // reflection of v = (1, 2, 3, 1, 2, 3, ...) and D from 1 to 100 (10^4 at p = 20); minimum 0 at
    // a. At p = 20 the local search must follow a valley no coordinate axis is aligned with, within
    // its budget (a compass search without pattern moves ends 3e-4 away).
    const auto convex = [&](const double* w) {
      double vz = 0, vv = 0;
      for (uint32_t j = 0; j < p; ++j) {
        vz += (1 + j % 3) * (w[j] - a[j]);
        vv += (1 + j % 3) * (1 + j % 3);
      }
      double s = 0;
      for (uint32_t j = 0; j < p; ++j) {
        const double y = (w[j] - a[j]) - 2 * (1 + j % 3) * vz / vv;
        s += (p == 1 ? 1 : std::pow(p == 20 ? 1e4 : 100.0, static_cast<double>(j) / (p - 1))) * y * y;
      }
      return s;
    };
    auto m = ldp::server::minimize_on_box(p, convex, 3);
    REQUIRE(m.w.size() == p);
    for (uint32_t j = 0; j < p; ++j) CHECK(m.w[j] == doctest::Approx(a[j]).epsilon(1e-6));
    CHECK(m.value == doctest::Approx(convex(m.w.data())));
    // Minimum on the boundary: the separable (w_j - c_j)^2 with c outside the box is at clamp(c).
    const auto outside = [&](const double* w) {
      double s = 0;
      for (uint32_t j = 0; j < p; ++j) s += (w[j] - (j % 2 ? 1.4 : -0.3)) * (w[j] - (j % 2 ? 1.4 : -0.3));
      return s;
    };
    m = ldp::server::minimize_on_box(p, outside, 3);
    for (uint32_t j = 0; j < p; ++j) CHECK(m.w[j] == doctest::Approx(j % 2 ? 1.0 : 0.0));
    // Two wells: a wide shallow one at a (value 0.02) and the global one at b (value 0). Up to
    // p = 3 the global well is narrow (curvature 25, the dense grid must find it); at p = 5 both
    // are wide (a random multistart has no dense grid).
    const double narrow = p <= 3 ? 25 : 1;
    const auto two_wells = [&](const double* w) {
      double da = 0, db = 0;
      for (uint32_t j = 0; j < p; ++j) {
        da += (w[j] - a[j]) * (w[j] - a[j]);
        db += (w[j] - b[j]) * (w[j] - b[j]);
      }
      return std::min(da + 0.02, narrow * db);
    };
    m = ldp::server::minimize_on_box(p, two_wells, 3);
    for (uint32_t j = 0; j < p; ++j) CHECK(m.w[j] == doctest::Approx(b[j]).epsilon(1e-6));
    CHECK(m.value <= 1e-12);
    // NaN counts as +inf: the convex function, undefined where w_0 < 0.4, is minimal at a with its
    // first coordinate raised to 0.4 (a_0 = 0.2; the coupled quadratic's optimum on that face).
    const auto partial = [&](const double* w) { return w[0] < 0.4 ? std::nan("") : convex(w); };
    m = ldp::server::minimize_on_box(p, partial, 3);
    CHECK(m.w[0] == doctest::Approx(0.4).epsilon(1e-6));
    CHECK(std::isfinite(m.value));
  }
}

TEST_CASE("bernstein_grid_error_bound is Lemma 18's 2 N sqrt(ln(2 N / beta)) / (sqrt(n) eps)") {
  // p = 2, k = 1: N = 4; n = 10^4, eps = 1, beta = 0.05: 8 sqrt(ln 160) / 100.
  CHECK(ldp::server::bernstein_grid_error_bound({2, 1}, 10000, 1.0, 0.05) ==
        doctest::Approx(8 * std::sqrt(std::log(160.0)) / 100).epsilon(1e-14));
  CHECK(ldp::server::bernstein_grid_error_bound({1, 9}, 400, 0.5, 0.01) ==
        doctest::Approx(2 * 10 * std::sqrt(std::log(2000.0)) / (20 * 0.5)).epsilon(1e-14));
  CHECK(std::isinf(ldp::server::bernstein_grid_error_bound({2, 1}, 5, 1.0, 0.05)));  // n < ln(160)
  CHECK(std::isnan(ldp::server::bernstein_grid_error_bound({2, 1}, 0, 1.0, 0.05)));
  CHECK(std::isnan(ldp::server::bernstein_grid_error_bound({2, 1}, 100, 0.0, 0.05)));
  CHECK(std::isnan(ldp::server::bernstein_grid_error_bound({2, 1}, 100, 1.0, 1.0)));
  CHECK(std::isnan(ldp::server::bernstein_grid_error_bound({0, 1}, 100, 1.0, 0.05)));
}

TEST_CASE("invalid grids, orders and lengths give empty coefficients and NaN") {
  const std::vector<double> four(4, 0.5);
  CHECK(ldp::server::grid_points({0, 3}) == 0);
  CHECK(ldp::server::grid_points({1, 0}) == 0);
  CHECK(ldp::server::grid_points({2, 255}) == 65536);
  CHECK(ldp::server::grid_points({2, 256}) == 0);
  CHECK(ldp::server::bernstein_coefficients({1, 3}, 0, four).empty());
  CHECK(ldp::server::bernstein_coefficients({1, 4}, 1, four).empty());
  const double w[2] = {0.5, 0.5};
  CHECK(std::isnan(ldp::server::bernstein_value({1, 4}, four, w)));
  CHECK(std::isnan(ldp::server::bernstein_variance({2, 1}, 0, four, w)));
  CHECK(std::isnan(ldp::server::bernstein_noise_gain({2, 1}, 0)));
  const auto none = ldp::server::minimize_on_box(
      0, [](const double*) { return 0.0; }, 1);
  CHECK(none.w.empty());
  CHECK(std::isnan(none.value));
}

TEST_CASE("to_grid_estimate takes the mean aggregator's value and variance per coordinate") {
  std::vector<ldp::server::estimate> coordinates(3);
  for (uint32_t l = 0; l < 3; ++l) coordinates[l] = {l, 0.1 * (l + 1), 0.01 * (l + 2), 0, 1};
  const auto grid = ldp::server::to_grid_estimate(coordinates);
  REQUIRE(grid.value.size() == 3);
  REQUIRE(grid.variance.size() == 3);
  for (uint32_t l = 0; l < 3; ++l) {
    CHECK(grid.value[l] == coordinates[l].value);
    CHECK(grid.variance[l] == coordinates[l].variance);
  }
}
