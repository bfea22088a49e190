// Ghazi et al. Algorithm 7 (docs/mechanisms.md I.3.3): the net's points and size against a count by
// hand, the integer scores (clamp, grid, sensitivity), and the draw against its exact law (chi-square,
// false-failure probability about 1e-6 at the fixed seed).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "ldp/random.h"
#include "ldp/server/central/sparse_net.h"
#include "tables.h"

namespace {

using ldp::span;
using ldp::status;
using ldp::server::sparse_exponential_mechanism;
using ldp::server::sparse_net;
using ldp::server::sparse_net_choice;
using ldp::server::sparse_net_draw;
using ldp::server::sparse_net_epsilon;
using ldp::server::sparse_net_options;
using ldp::server::sparse_net_scores;

// Absolute error of a linear prediction: |<x_i, w> - y_i|, on a fixed toy data set of 3 features.
struct toy_regression {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  double operator()(std::size_t i, span<const double> w) const {
    double p = 0;
    for (std::size_t j = 0; j < w.size(); ++j) p += x[i][j] * w[j];
    return std::fabs(p - y[i]);
  }
};

toy_regression toy() {
  return toy_regression{{{1, 0, 0.5}, {0.2, 1, 0}, {0, 0.3, 1}, {1, 1, 0}, {0.5, 0, 0}}, {0.8, 0.1, -0.4, 1.0, 0.3}};
}

}  // namespace

TEST_CASE("sparse_net: every point k-sparse on the grid in the l1 ball, and the count by hand") {
  sparse_net_options o;
  o.d = 4;
  o.sparsity = 2;
  o.levels = 2;
  o.radius = 3;
  o.n = 1;
  std::vector<double> points;
  REQUIRE(sparse_net(o, &points) == status::ok);
  // 1 (zero) + 4 supports x {+-1, +-2} + 6 pairs x (+-1, +-1) = 41.
  REQUIRE(points.size() == 41 * 4);
  std::set<std::vector<double>> distinct;
  for (std::size_t p = 0; p < 41; ++p) {
    const std::vector<double> w(points.begin() + static_cast<std::ptrdiff_t>(4 * p),
                                points.begin() + static_cast<std::ptrdiff_t>(4 * p + 4));
    double mass = 0;
    int nonzero = 0;
    for (double v : w) {
      mass += std::fabs(v);
      nonzero += v != 0 ? 1 : 0;
      CHECK(std::fabs(v / 1.5 - std::round(v / 1.5)) < 1e-12);  // multiples of R / q
    }
    CHECK(mass <= 3 + 1e-12);
    CHECK(nonzero <= 2);
    distinct.insert(w);
  }
  CHECK(distinct.size() == 41);
  o.sparsity = 1;
  REQUIRE(sparse_net(o, &points) == status::ok);
  CHECK(points.size() == 17 * 4);
  o.max_points = 16;
  CHECK(sparse_net(o, &points) == status::invalid_argument);
}

TEST_CASE("sparse_net_scores: clamped to [0, B] and rounded to the grid B 2^-f") {
  sparse_net_options o;
  o.d = 1;
  o.n = 3;
  o.loss_bound = 2;
  o.frac_bits = 4;  // grid 2/16 = 0.125
  const std::vector<double> points{0.0, 1.0};
  // Sample 0: 0.3 -> round(2.4) = 2; sample 1: 7 -> clamped to B -> 16; sample 2: -5 -> 0.
  auto loss = [](std::size_t i, span<const double> w) { return (i == 0 ? 0.3 : i == 1 ? 7.0 : -5.0) * (1 + w[0]); };
  std::vector<uint64_t> scores;
  REQUIRE(sparse_net_scores(o, points, loss, &scores) == status::ok);
  REQUIRE(scores.size() == 2);
  CHECK(scores[0] == 2 + 16 + 0);
  CHECK(scores[1] == 5 + 16 + 0);  // 0.6 -> round(4.8) = 5
  auto bad = [](std::size_t, span<const double>) { return std::nan(""); };
  CHECK(sparse_net_scores(o, points, bad, &scores) == status::invalid_argument);
  CHECK(sparse_net_epsilon(1.0 + 0x1p-30) == 1.0);
}

TEST_CASE("sparse_net_draw: the exact law exp(-eps' U / (2 2^f)), chi-square") {
  sparse_net_options o;
  o.d = 3;
  o.sparsity = 1;
  o.levels = 2;
  o.radius = 1;
  o.n = 5;
  o.loss_bound = 1;
  o.epsilon = 1;
  o.frac_bits = 12;
  std::vector<double> points;
  REQUIRE(sparse_net(o, &points) == status::ok);
  std::vector<uint64_t> scores;
  REQUIRE(sparse_net_scores(o, points, toy(), &scores) == status::ok);
  const std::size_t size = scores.size();
  REQUIRE(size == 13);
  std::vector<double> p(size);
  double total = 0;
  for (std::size_t k = 0; k < size; ++k) {
    p[k] = std::exp(-sparse_net_epsilon(o.epsilon) * static_cast<double>(scores[k]) / (2 * 4096.0));
    total += p[k];
  }
  for (double& v : p) v /= total;
  CHECK(*std::max_element(p.begin(), p.end()) / *std::min_element(p.begin(), p.end()) > 2);  // a non-flat law
  auto rng = ldp::test::seeded_drbg("sparse net law");
  const int draws = 100000;
  std::vector<double> count(size, 0);
  int refused = 0;
  for (int t = 0; t < draws; ++t) {
    std::size_t index = 0;
    refused += sparse_net_draw(o, scores, rng, &index) != status::ok ? 1 : 0;
    count[index] += 1;
  }
  REQUIRE(refused == 0);
  double chi2 = 0;
  for (std::size_t k = 0; k < size; ++k) {
    const double expected = draws * p[k];
    REQUIRE(expected > 100);
    chi2 += (count[k] - expected) * (count[k] - expected) / expected;
  }
  // The 1 - 1e-6 quantile of chi-square with 12 degrees of freedom by Wilson-Hilferty (z = 4.753): 51.8.
  const double df = static_cast<double>(size - 1);
  const double h = 2 / (9 * df);
  const double quantile = df * std::pow(1 - h + 4.753 * std::sqrt(h), 3);
  CHECK(chi2 < quantile);
}

TEST_CASE("sparse_exponential_mechanism: at a large epsilon the minimizer of the scores") {
  sparse_net_options o;
  o.d = 3;
  o.sparsity = 2;
  o.levels = 4;
  o.radius = 1;
  o.n = 5;
  o.epsilon = 40;
  auto rng = ldp::test::seeded_drbg("sparse net minimizer");
  sparse_net_choice c;
  REQUIRE(sparse_exponential_mechanism(o, toy(), rng, &c) == status::ok);
  std::vector<double> points;
  REQUIRE(sparse_net(o, &points) == status::ok);
  std::vector<uint64_t> scores;
  REQUIRE(sparse_net_scores(o, points, toy(), &scores) == status::ok);
  const auto best = static_cast<std::size_t>(std::min_element(scores.begin(), scores.end()) - scores.begin());
  const std::vector<double> argmin(points.begin() + static_cast<std::ptrdiff_t>(3 * best),
                                   points.begin() + static_cast<std::ptrdiff_t>(3 * best + 3));
  CHECK(c.w == argmin);
  CHECK(c.net_size == scores.size());
  CHECK(c.epsilon_impl == 40);
  o.n = 0;
  CHECK(sparse_exponential_mechanism(o, toy(), rng, &c) == status::invalid_argument);
}
