// Server side of smooth-queries (docs/mechanisms.md H.6, ldp/server/smooth_queries.h): the separable
// DCT against the direct t^p x t^p sum, exact interpolation of polynomials of degree < t per axis,
// the answer's value, variance and interval, and the built-in query family.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "ldp/server/smooth_queries.h"
#include "ldp/wire/smooth_params.h"

using ldp::server::chebyshev_coefficients;
using ldp::server::chebyshev_node;

namespace {

constexpr double pi = 3.14159265358979323846;

// c_v = prod_j (2 - [v_j = 0]) / t sum_k g_k prod_j cos(pi v_j (k_j + 1/2) / t), the whole sum at once.
std::vector<double> direct_coefficients(uint32_t p, uint32_t t, const std::vector<double>& g) {
  const std::size_t n = g.size();
  std::vector<double> c(n);
  for (std::size_t v = 0; v < n; ++v) {
    double sum = 0;
    for (std::size_t k = 0; k < n; ++k) {
      double term = g[k];
      std::size_t rv = v, rk = k;
      for (uint32_t j = 0; j < p; ++j) {
        term *= std::cos(pi * static_cast<double>(rv % t) * (static_cast<double>(rk % t) + 0.5) / t);
        rv /= t;
        rk /= t;
      }
      sum += term;
    }
    std::size_t rv = v;
    for (uint32_t j = 0; j < p; ++j) {
      sum *= (rv % t == 0 ? 1.0 : 2.0) / t;
      rv /= t;
    }
    c[v] = sum;
  }
  return c;
}

}  // namespace

TEST_CASE("the separable DCT equals the direct sum") {
  // Fails (checked): the weight 2/t on v = 0 too, and the nodes k / t instead of (k + 1/2) / t.
  for (const auto& shape : std::vector<std::pair<uint32_t, uint32_t>>{{1, 9}, {2, 5}, {3, 3}, {2, 2}}) {
    const uint32_t p = shape.first, t = shape.second;  // named copies: clang 14 cannot capture bindings
    const auto n = static_cast<std::size_t>(ldp::wire::smooth_feature_count(p, t));
    std::vector<double> g(n);
    for (std::size_t l = 0; l < n; ++l)
      g[l] = std::sin(1.7 * static_cast<double>(l) + 0.3) + 0.1 * static_cast<double>(l % 3);
    const std::vector<double> fast = chebyshev_coefficients(p, t, g), direct = direct_coefficients(p, t, g);
    REQUIRE(fast.size() == direct.size());
    for (std::size_t v = 0; v < n; ++v) {
      CAPTURE(p);
      CAPTURE(t);
      CAPTURE(v);
      CHECK(fast[v] == doctest::Approx(direct[v]).epsilon(1e-12).scale(1.0));
    }
  }
  CHECK_THROWS_AS((void)chebyshev_coefficients(2, 3, std::vector<double>(8)), std::invalid_argument);
}

TEST_CASE("polynomials of degree < t per axis are reproduced exactly") {
  // Fails (checked): the nodes' coordinates transposed (axis p - 1 fastest).
  // x^2 y = (T_0(x) + T_2(x)) / 2 * T_1(y): c at v = (0, 1) and (2, 1) is 1/2, all others 0.
  ldp::server::smooth_query q;
  q.kind = ldp::server::smooth_query_kind::monomial;
  q.point = {2, 1};
  const std::vector<double> c = chebyshev_coefficients(2, 3, [&](const double* x) { return evaluate(q, x); });
  REQUIRE(c.size() == 9);
  for (std::size_t v = 0; v < 9; ++v) {
    CAPTURE(v);
    const double want = v == 0 + 3 * 1 || v == 2 + 3 * 1 ? 0.5 : 0.0;
    CHECK(c[v] == doctest::Approx(want).scale(1.0).epsilon(1e-14));
  }
  // And the interpolant through the nodes takes f's value anywhere.
  const double x[2] = {0.3, -0.7};
  double sum = 0;
  for (std::size_t v = 0; v < 9; ++v) {
    sum += c[v] * std::cos(static_cast<double>(v % 3) * std::acos(x[0])) *
           std::cos(static_cast<double>(v / 3) * std::acos(x[1]));
  }
  CHECK(sum == doctest::Approx(0.09 * -0.7).epsilon(1e-13));
  CHECK(chebyshev_node(4, 0) == doctest::Approx(std::cos(pi / 8)));
}

TEST_CASE("a smooth query's interpolant converges: the Gaussian kernel at degree 12") {
  ldp::server::smooth_query q;
  q.point = {0.2, -0.1};
  q.width = 0.5;
  const uint32_t t = 12;
  const std::vector<double> c = chebyshev_coefficients(2, t, [&](const double* x) { return evaluate(q, x); });
  double worst = 0;
  for (double a = -1; a <= 1; a += 0.125) {
    for (double b = -1; b <= 1; b += 0.125) {
      double sum = 0;
      for (std::size_t v = 0; v < c.size(); ++v) {
        sum += c[v] * std::cos(static_cast<double>(v % t) * std::acos(a)) *
               std::cos(static_cast<double>(v / t) * std::acos(b));
      }
      const double xy[2] = {a, b};
      worst = std::max(worst, std::fabs(sum - evaluate(q, xy)));
    }
  }
  MESSAGE("largest interpolation error " << worst);
  CHECK(worst < 1e-3);
}

TEST_CASE("the answer: sum c_v p_v, variance sum c_v^2 var_v, interval -+ z sd") {
  // Fails (checked): the variance summed with |c_v| instead of c_v^2.
  const std::vector<double> c = {0.5, -2.0, 0.25};
  std::vector<ldp::server::estimate> e(3);
  e[0].value = 1.0;
  e[0].variance = 0.04;
  e[1].value = 0.3;
  e[1].variance = 0.01;
  e[2].value = -0.2;
  e[2].variance = 0.16;
  const ldp::server::smooth_answer a = ldp::server::answer_smooth_query(c, e, 0.95);
  CHECK(a.value == doctest::Approx(0.5 - 0.6 - 0.05));
  CHECK(a.variance == doctest::Approx(0.25 * 0.04 + 4 * 0.01 + 0.0625 * 0.16));
  CHECK(a.ci_high - a.value == doctest::Approx(1.959963985 * std::sqrt(a.variance)));
  CHECK(a.value - a.ci_low == doctest::Approx(1.959963985 * std::sqrt(a.variance)));
  CHECK_THROWS_AS((void)ldp::server::answer_smooth_query({1.0}, e, 0.95), std::invalid_argument);
}

TEST_CASE("the built-in queries") {
  ldp::server::smooth_query g;
  g.point = {0.5, 0.0};
  g.width = 0.5;
  const double at[2] = {0.0, 0.5};
  CHECK(evaluate(g, at) == doctest::Approx(std::exp(-0.5 / 0.5)));
  ldp::server::smooth_query s = g;
  s.kind = ldp::server::smooth_query_kind::smooth_step;
  CHECK(evaluate(s, g.point.data()) == doctest::Approx(0.25));
}
