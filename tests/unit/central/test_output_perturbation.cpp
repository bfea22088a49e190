// Ghazi et al. Algorithm 6 (docs/mechanisms.md I.3.2): the l-infinity projection against its minimal
// distance, the solver's sensitivity on neighbouring data, the calibration, and the excess-risk
// inequality the projection buys. Deterministic checks at fixed seeds: none can fail by chance.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/random.h"
#include "ldp/server/central/output_perturbation.h"
#include "tables.h"

namespace {

using ldp::span;
using ldp::status;
using ldp::server::output_perturbation_options;
using ldp::server::output_perturbation_release;
using ldp::server::project_linf_to_l1_ball;
using ldp::server::release_output_perturbation;
using ldp::server::solve_regularized_erm;

double uniform(ldp::random::drbg& rng) { return static_cast<double>(rng.next_u64() >> 11) * 0x1p-53; }

double linf(const std::vector<double>& u, const std::vector<double>& v) {
  double m = 0;
  for (std::size_t j = 0; j < u.size(); ++j) m = std::max(m, std::fabs(u[j] - v[j]));
  return m;
}

double l1(const std::vector<double>& u, const std::vector<double>& v) {
  double s = 0;
  for (std::size_t j = 0; j < u.size(); ++j) s += std::fabs(u[j] - v[j]);
  return s;
}

double l2(const std::vector<double>& u, const std::vector<double>& v) {
  double s = 0;
  for (std::size_t j = 0; j < u.size(); ++j) s += (u[j] - v[j]) * (u[j] - v[j]);
  return std::sqrt(s);
}

// Logistic loss on s-sparse features of l2 norm <= 1, labels +-1: convex, 1-Lipschitz, 1/4-smooth,
// per-sample gradients s-sparse.
struct sparse_logistic {
  std::vector<std::vector<uint32_t>> index;
  std::vector<std::vector<double>> value;
  std::vector<double> label;

  double loss(const std::vector<double>& w) const {
    double total = 0;
    for (std::size_t i = 0; i < label.size(); ++i) {
      double margin = 0;
      for (std::size_t k = 0; k < index[i].size(); ++k) margin += value[i][k] * w[index[i][k]];
      total += std::log1p(std::exp(-label[i] * margin));
    }
    return total / static_cast<double>(label.size());
  }

  void gradient(span<const double> w, span<double> g) const {
    std::fill(g.begin(), g.end(), 0.0);
    const double n = static_cast<double>(label.size());
    for (std::size_t i = 0; i < label.size(); ++i) {
      double margin = 0;
      for (std::size_t k = 0; k < index[i].size(); ++k) margin += value[i][k] * w[index[i][k]];
      const double weight = -label[i] / (1 + std::exp(label[i] * margin));
      for (std::size_t k = 0; k < index[i].size(); ++k) g[index[i][k]] += weight * value[i][k] / n;
    }
  }
};

sparse_logistic make_data(ldp::random::drbg& rng, std::size_t n, uint32_t d, uint32_t s) {
  sparse_logistic data;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<uint32_t> idx;
    while (idx.size() < s) {
      const auto j = static_cast<uint32_t>(rng.next_u64() % d);
      if (std::find(idx.begin(), idx.end(), j) == idx.end()) idx.push_back(j);
    }
    std::vector<double> val(s);
    for (double& v : val) v = (uniform(rng) * 2 - 1) / std::sqrt(static_cast<double>(s));
    data.index.push_back(idx);
    data.value.push_back(val);
    // Labels from a sparse planted direction (coordinates 0..4 positive), flipped with probability 0.1.
    double margin = 0;
    for (uint32_t k = 0; k < s; ++k) margin += idx[k] < 5 ? val[k] : 0.0;
    double label = margin >= 0 ? 1.0 : -1.0;
    if (uniform(rng) < 0.1) label = -label;
    data.label.push_back(label);
  }
  return data;
}

// The smallest t with sum_j max(|v_j| - t, 0) <= radius: the l-infinity distance from v to the l1
// ball, by bisection in long double (independent of l1_projection.h's sort).
double linf_distance_to_ball(const std::vector<double>& v, double radius) {
  long double lo = 0, hi = 0;
  for (double x : v) hi = std::max(hi, static_cast<long double>(std::fabs(x)));
  for (int it = 0; it < 200; ++it) {
    const long double mid = (lo + hi) / 2;
    long double mass = 0;
    for (double x : v) mass += std::max(static_cast<long double>(std::fabs(x)) - mid, 0.0L);
    (mass > radius ? lo : hi) = mid;
  }
  return static_cast<double>(hi);
}

}  // namespace

TEST_CASE("project_linf_to_l1_ball: a nearest point in l-infinity of the l1 ball around the centre") {
  auto rng = ldp::test::seeded_drbg("linf projection");
  for (int trial = 0; trial < 50; ++trial) {
    const auto d = static_cast<std::size_t>(1 + rng.next_u64() % 40);
    std::vector<double> v(d), center(d), shifted(d);
    for (std::size_t j = 0; j < d; ++j) {
      center[j] = uniform(rng) - 0.5;
      v[j] = center[j] + (uniform(rng) * 2 - 1) * (trial % 2 == 0 ? 1.0 : 10.0);
      shifted[j] = v[j] - center[j];
    }
    const double radius = 0.5 + uniform(rng) * 3;
    std::vector<double> out;
    REQUIRE(project_linf_to_l1_ball(v, center, radius, &out) == status::ok);
    CHECK(l1(out, center) <= radius * (1 + 1e-12));
    const double best = l1(v, center) <= radius ? 0.0 : linf_distance_to_ball(shifted, radius);
    CHECK(linf(out, v) == doctest::Approx(best).epsilon(1e-9));
  }
  const std::vector<double> one{1.0}, two{0.0, 0.0};
  std::vector<double> out;
  CHECK(project_linf_to_l1_ball(one, two, 1, &out) == status::invalid_argument);
}

TEST_CASE("solve_regularized_erm: within tau of the minimizer; neighbours within 2G/(lambda n) + 2 tau") {
  auto rng = ldp::test::seeded_drbg("output perturbation solver");
  const uint32_t d = 40;
  sparse_logistic data = make_data(rng, 200, d, 3);
  output_perturbation_options o;
  o.n = 200;
  o.lipschitz = 1;
  o.smoothness = 0.25;
  o.regularization = 0.05;
  const std::vector<double> w0(d, 0.0);
  auto grad = [&](const sparse_logistic& s) {
    return [&s](span<const double> w, span<double> g) { s.gradient(w, g); };
  };
  std::vector<double> w, precise;
  uint64_t steps = 0;
  REQUIRE(solve_regularized_erm(w0, grad(data), o, &w, &steps) == status::ok);
  CHECK(steps > 0);
  output_perturbation_options tight = o;
  tight.solver_fraction = 1e-9;
  REQUIRE(solve_regularized_erm(w0, grad(data), tight, &precise, &steps) == status::ok);
  const double sensitivity = 2 * o.lipschitz / (o.regularization * 200);
  CHECK(l2(w, precise) <= 1e-3 * sensitivity * (1 + 1e-9) + 1e-9 * sensitivity);
  // Replace one sample by its label-flipped copy: the exact minimizers move by at most 2G/(lambda n).
  double largest = 0;
  for (std::size_t i : {0, 17, 99}) {
    sparse_logistic other = data;
    other.label[i] = -other.label[i];
    other.value[i][0] = 0;
    std::vector<double> moved;
    REQUIRE(solve_regularized_erm(w0, grad(other), tight, &moved, &steps) == status::ok);
    largest = std::max(largest, l2(moved, precise));
  }
  CHECK(largest <= sensitivity * (1 + 1e-6));
  CHECK(largest > 0.05 * sensitivity);  // the data do move the minimizer
}

TEST_CASE("solve_regularized_erm: a linear loss around w0 != 0 has the minimizer w0 - c / lambda") {
  // F(w) = <c, w>: G = ||c||_2, beta = 0 (one step of length 1 / lambda is exact).
  const std::vector<double> w0{1, -2, 3}, c{0.3, 0.0, -0.4};
  auto linear = [&c](span<const double>, span<double> g) { std::copy(c.begin(), c.end(), g.begin()); };
  output_perturbation_options o;
  o.n = 50;
  o.lipschitz = 0.5;
  o.smoothness = 0;
  o.regularization = 2;
  std::vector<double> w;
  uint64_t steps = 0;
  REQUIRE(solve_regularized_erm(w0, linear, o, &w, &steps) == status::ok);
  const std::vector<double> expected{1 - 0.15, -2, 3 + 0.2};
  CHECK(l2(w, expected) <= 1e-12);
  CHECK(steps == 1);
}

TEST_CASE("release_output_perturbation: calibration, the l-infinity fact (8) and the excess risk") {
  auto rng = ldp::test::seeded_drbg("output perturbation data");
  const uint32_t d = 60, s = 3;
  const sparse_logistic data = make_data(rng, 400, d, s);
  auto grad = [&data](span<const double> w, span<double> g) { data.gradient(w, g); };
  output_perturbation_options o;
  o.n = 400;
  o.lipschitz = 1;
  o.smoothness = 0.25;
  o.regularization = 0.02;
  o.epsilon = 2;
  o.delta = 1e-6;
  o.frac_bits = 20;
  const std::vector<double> w0(d, 0.0);
  std::vector<double> w;
  uint64_t steps = 0;
  REQUIRE(solve_regularized_erm(w0, grad, o, &w, &steps) == status::ok);
  o.l1_radius = 1.5 * l1(w, w0);  // the minimizer is feasible
  auto noise = ldp::test::seeded_drbg("output perturbation noise");
  output_perturbation_release r;
  REQUIRE(release_output_perturbation(w0, grad, o, noise, &r) == status::ok);
  // Sensitivity in grid units: (2G/(lambda n)) (1 + 2 * 1e-3) 2^20 + sqrt(60), rounded up.
  const double expected = std::ceil(2.0 / (0.02 * 400) * (1 + 2e-3) * 1048576 + std::sqrt(60.0));
  CHECK(static_cast<double>(r.sensitivity) == expected);
  const double log_term = std::log(1e6);
  const double root = 2 / (std::sqrt(log_term + 2) + std::sqrt(log_term));
  const double ideal = expected * expected / (2 * root * root);
  CHECK(static_cast<double>(r.sigma2) >= ideal);
  CHECK(static_cast<double>(r.sigma2) <= ideal * 1.001 + 1);
  CHECK(r.epsilon_impl <= 2);
  // (8): ||w_hat - w||_inf <= 2 ||noisy - w||_inf for the feasible w; and by convexity and the
  // gradients' l1 norm <= G sqrt(s): F(w_hat) - F(w) <= 2 G sqrt(s) ||noisy - w||_inf.
  const double xi = linf(r.noisy, w);
  CHECK(l1(r.projected, w0) <= o.l1_radius * (1 + 1e-12));
  CHECK(linf(r.projected, w) <= 2 * xi * (1 + 1e-12));
  CHECK(data.loss(r.projected) - data.loss(w) <= 2 * std::sqrt(static_cast<double>(s)) * xi);
  // The projection pays off here: the unprojected output's excess risk is larger.
  CHECK(data.loss(r.projected) < data.loss(r.noisy));
}

TEST_CASE("release_output_perturbation: arguments") {
  const std::vector<double> w0(4, 0.0);
  auto zero = [](span<const double>, span<double> g) { std::fill(g.begin(), g.end(), 0.0); };
  auto rng = ldp::test::seeded_drbg("output perturbation arguments");
  output_perturbation_release r;
  output_perturbation_options o;
  CHECK(release_output_perturbation(w0, zero, o, rng, &r) == status::invalid_argument);  // n = 0
  o.n = 10;
  CHECK(release_output_perturbation(w0, zero, o, rng, &r) == status::ok);
  o.regularization = 0;
  CHECK(release_output_perturbation(w0, zero, o, rng, &r) == status::invalid_argument);
  o.regularization = 1;
  o.delta = 0;
  CHECK(release_output_perturbation(w0, zero, o, rng, &r) == status::invalid_argument);
}
