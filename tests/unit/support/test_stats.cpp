// The statistics helpers of the statistical suites, against closed forms and high-precision
// reference values (mpmath, 30 digits). A wrong helper would make every statistical test
// meaningless, so the tolerances are tight.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "stats.h"

using namespace ldp::test;

namespace {

bool close_rel(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want); }

// P(X < n) for X ~ Poisson(x), which equals Q(n, x) for integer n.
double poisson_cdf_below(int n, double x) {
  long double term = std::exp(-static_cast<long double>(x));
  long double sum = 0;
  for (int k = 0; k < n; ++k) {
    sum += term;
    term *= static_cast<long double>(x) / (k + 1);
  }
  return static_cast<double>(sum);
}

// P(X >= k) for X ~ Binomial(n, p), which equals I_p(k, n - k + 1).
double binomial_upper(int k, int n, double p) {
  long double sum = 0;
  for (int i = k; i <= n; ++i) {
    const long double log_pmf = std::lgamma(n + 1.0L) - std::lgamma(i + 1.0L) - std::lgamma(n - i + 1.0L) +
                                i * std::log(static_cast<long double>(p)) +
                                (n - i) * std::log1p(-static_cast<long double>(p));
    sum += std::exp(log_pmf);
  }
  return static_cast<double>(sum);
}

}  // namespace

TEST_CASE("chi-square survival function at textbook critical values") {
  // The 0.95 quantiles of chi-square(1) and chi-square(10), to double precision.
  CHECK(close_rel(chi_square_sf(3.841458820694124, 1), 0.05, 1e-13));
  CHECK(close_rel(chi_square_sf(18.307038053275146, 10), 0.05, 1e-13));
  CHECK(chi_square_sf(0.0, 5) == 1.0);
  CHECK(chi_square_sf(-1.0, 5) == 1.0);
  // chi-square(2) is exponential with mean 2, chi-square(1) the square of a standard normal.
  for (double x : {0.01, 1.0, 7.5, 40.0, 300.0, 1000.0}) {
    CHECK(close_rel(chi_square_sf(x, 2), std::exp(-x / 2), 1e-12));
    CHECK(close_rel(chi_square_sf(x, 1), std::erfc(std::sqrt(x / 2)), 1e-12));
  }
  // Many degrees of freedom, as a chi-square over a large domain has.
  CHECK(close_rel(chi_square_sf(101000, 1e5), 0.012868840377233669864, 1e-12));
  // Degenerate: dof 0 is the point mass at 0.
  CHECK(chi_square_sf(0.0, 0) == 1.0);
  CHECK(chi_square_sf(1e-9, 0) == 0.0);
}

TEST_CASE("upper regularized incomplete gamma") {
  for (double x : {1e-8, 0.3, 1.0, 1.9, 2.1, 10.0, 50.0, 700.0}) {
    CHECK(close_rel(regularized_gamma_q(1.0, x), std::exp(-x), 1e-12));
    CHECK(close_rel(regularized_gamma_q(0.5, x), std::erfc(std::sqrt(x)), 1e-12));
  }
  for (int n : {2, 5, 17, 60}) {
    for (double x : {0.5, n - 1.0, n + 0.5, 2.0 * n, 4.0 * n}) {
      CHECK(close_rel(regularized_gamma_q(n, x), poisson_cdf_below(n, x), 1e-12));
    }
  }
  // Both sides of the series / continued fraction switch at x = a + 1, and deep tails.
  CHECK(close_rel(regularized_gamma_q(1e5, 1e5), 0.49957947788963482331, 1e-12));
  CHECK(close_rel(regularized_gamma_q(1e5, 99000), 0.99924258007882523203, 1e-12));
  CHECK(close_rel(regularized_gamma_q(1e5, 101000), 0.00080842151292559073247, 1e-12));
  CHECK(close_rel(regularized_gamma_q(1e5, 102000), 1.6506061359362833963e-10, 1e-12));
  CHECK(close_rel(regularized_gamma_q(50000, 51500), 1.528913011730235185e-11, 1e-12));
  CHECK(close_rel(regularized_gamma_q(12.5, 40), 1.141061172719878249e-7, 1e-12));
  CHECK(close_rel(regularized_gamma_q(0.5, 60), 6.3260682636772614882e-28, 1e-12));
  CHECK(close_rel(regularized_gamma_q(3.5, 1e-3), 0.99999999999728344833, 1e-14));
  CHECK(close_rel(regularized_gamma_q(100, 200), 1.8438936497115741514e-15, 1e-12));
  CHECK(close_rel(regularized_gamma_q(1000.5, 1200), 1.4146350331749400916e-9, 1e-12));
  CHECK(regularized_gamma_q(3.0, 0.0) == 1.0);
  CHECK(regularized_gamma_q(3.0, INFINITY) == 0.0);
  CHECK(std::isnan(regularized_gamma_q(0.0, 1.0)));
  CHECK(std::isnan(regularized_gamma_q(1.0, -1.0)));
  CHECK(close_rel(log_gamma(10.0), std::log(362880.0), 1e-14));
}

TEST_CASE("regularized incomplete beta") {
  for (double x : {1e-9, 0.01, 0.25, 0.5, 0.75, 0.99, 1 - 1e-9}) {
    CHECK(close_rel(regularized_beta(1, 1, x), x, 1e-14));
    for (double a : {0.5, 3.0, 40.0, 1e3}) {
      CHECK(close_rel(regularized_beta(a, 1, x), std::pow(x, a), 1e-12));
      CHECK(close_rel(regularized_beta(1, a, x), -std::expm1(a * std::log1p(-x)), 1e-12));
    }
  }
  for (double a : {0.5, 1.0, 7.0, 123.5, 1e4, 1e6}) {
    CHECK(close_rel(regularized_beta(a, a, 0.5), 0.5, 1e-12));
  }
  // Binomial tails: I_p(k, n - k + 1) = P(Bin(n, p) >= k).
  for (int n : {1, 10, 200}) {
    for (int k = 1; k <= n; k += 1 + n / 7) {
      for (double p : {0.01, 0.3, 0.5, 0.9}) {
        const double want = binomial_upper(k, n, p);
        if (want < 1e-250) continue;  // keep clear of subnormals
        CHECK(close_rel(regularized_beta(k, n - k + 1, p), want, 1e-11));
      }
    }
  }
  // Small b with large a puts the mass next to x = 1, the hard case for the continued fraction.
  CHECK(close_rel(regularized_beta(0.5, 1e6, 1.9142115446083443e-06), 0.94960976156597256114, 1e-13));
  CHECK(close_rel(regularized_beta(1e6, 0.5, 0.999998), 0.045500182912748824108, 1e-11));
  CHECK(close_rel(regularized_beta(1e8, 1, 0.99999998), std::pow(0.99999998, 1e8), 1e-13));
  CHECK(close_rel(regularized_beta(1, 1e8, 2e-8), -std::expm1(1e8 * std::log1p(-2e-8)), 1e-13));
  CHECK(close_rel(regularized_beta(2.5, 7.5, 0.1), 0.11508726709050740684, 1e-13));
  CHECK(close_rel(regularized_beta(30, 70, 0.45), 0.99900718079242712804, 1e-13));
  CHECK(close_rel(regularized_beta(200, 100, 0.5), 2.6465546025796368132e-9, 1e-12));
  CHECK(close_rel(regularized_beta(1000, 3, 0.995), 0.12318159331562693275, 1e-12));
  CHECK(regularized_beta(2, 3, 0.0) == 0.0);
  CHECK(regularized_beta(2, 3, 1.0) == 1.0);
}

TEST_CASE("beta quantile inverts the incomplete beta") {
  const double params[][2] = {{1, 1},    {0.5, 0.5}, {2, 9},   {9, 2},   {40, 40},
                              {1, 5000}, {5000, 1},  {3, 1e6}, {1e6, 3}, {3e5, 7e5}};
  for (const auto& ab : params) {
    const double a = ab[0];
    const double b = ab[1];
    for (double p : {1e-12, 5e-7, 0.025, 0.3, 0.5, 0.7, 0.975, 1 - 5e-7}) {
      const double x = beta_quantile(p, a, b);
      CAPTURE(a);
      CAPTURE(b);
      CAPTURE(p);
      // x is the first double at which I reaches p, so its predecessor falls short.
      const double got = regularized_beta(a, b, x);
      const double below = regularized_beta(a, b, std::nextafter(x, 0.0));
      CHECK(close_rel(got, p, 1e-9));
      CHECK(below <= p * (1 + 1e-12));
    }
  }
  CHECK(close_rel(beta_quantile(0.3, 1, 1), 0.3, 1e-15));
  CHECK(close_rel(beta_quantile(0.3, 2.5, 1), std::pow(0.3, 1 / 2.5), 1e-14));
  CHECK(beta_quantile(0.0, 2, 3) == 0.0);
  CHECK(beta_quantile(1.0, 2, 3) == 1.0);
}

TEST_CASE("Clopper-Pearson intervals") {
  const interval none = clopper_pearson(0, 10, 0.05);
  CHECK(none.lo == 0.0);
  CHECK(close_rel(none.hi, 1 - std::pow(0.025, 0.1), 1e-14));
  const interval all = clopper_pearson(10, 10, 0.05);
  CHECK(close_rel(all.lo, std::pow(0.025, 0.1), 1e-14));
  CHECK(all.hi == 1.0);
  const interval half = clopper_pearson(5, 10, 0.05);
  CHECK(close_rel(half.lo, 0.18708602844739861, 1e-14));
  CHECK(close_rel(half.hi, 0.81291397155260148, 1e-14));
  CHECK(half.lo == doctest::Approx(0.187086).epsilon(1e-6));
  CHECK(half.hi == doctest::Approx(0.812914).epsilon(1e-6));
  // Symmetry k <-> n - k.
  const interval three = clopper_pearson(3, 100, 1e-6);
  const interval ninety_seven = clopper_pearson(97, 100, 1e-6);
  CHECK(close_rel(three.lo, 1 - ninety_seven.hi, 1e-10));
  CHECK(close_rel(three.hi, 1 - ninety_seven.lo, 1e-13));
  CHECK(close_rel(three.lo, 0.0001462040175066558, 1e-13));
  CHECK(close_rel(three.hi, 0.20143246173666252, 1e-13));
  // k = 1 and k = n - 1 have closed forms; with n = 1e9 they need full relative precision.
  for (uint64_t n : {uint64_t{20}, uint64_t{1000000000}}) {
    const double nd = static_cast<double>(n);
    const double half_alpha = 0.5e-6;
    const interval one = clopper_pearson(1, n, 1e-6);
    CHECK(close_rel(one.lo, -std::expm1(std::log1p(-half_alpha) / nd), 1e-12));
    const interval all_but_one = clopper_pearson(n - 1, n, 1e-6);
    // Within 1e-7 of 1 only the absolute error is meaningful: a couple of ulps.
    CHECK(std::fabs(all_but_one.hi - std::exp(std::log1p(-half_alpha) / nd)) <= 5e-16);
  }
  // The interval contains the estimate and narrows with n.
  const interval small = clopper_pearson(300, 1000, 1e-6);
  const interval large = clopper_pearson(300000, 1000000, 1e-6);
  CHECK(small.lo < 0.3);
  CHECK(small.hi > 0.3);
  CHECK(large.lo > small.lo);
  CHECK(large.hi < small.hi);
  CHECK(clopper_pearson(0, 0, 0.05).lo == 0.0);
  CHECK(clopper_pearson(0, 0, 0.05).hi == 1.0);
  CHECK_THROWS_AS(clopper_pearson(11, 10, 0.05), std::invalid_argument);
}

TEST_CASE("chi-square goodness of fit") {
  SUBCASE("perfect fit") {
    const chi_square_result r = chi_square_gof({250, 250, 500}, {0.25, 0.25, 0.5}, 1000);
    CHECK(r.statistic == 0.0);
    CHECK(r.dof == 2.0);
    CHECK(r.p_value == 1.0);
  }
  SUBCASE("weights are normalized") {
    const chi_square_result a = chi_square_gof({30, 20, 50}, {2, 1, 1}, 100);
    const chi_square_result b = chi_square_gof({30, 20, 50}, {0.5, 0.25, 0.25}, 100);
    CHECK(a.statistic == doctest::Approx(b.statistic).epsilon(1e-14));
    CHECK(a.dof == b.dof);
    // (30-50)^2/50 + (20-25)^2/25 + (50-25)^2/25
    CHECK(a.statistic == doctest::Approx(8.0 + 1.0 + 25.0).epsilon(1e-14));
    CHECK(a.p_value == doctest::Approx(chi_square_sf(34.0, 2)).epsilon(1e-12));
  }
  SUBCASE("small bins merge left to right, the remainder into the last bin") {
    // Expected counts 3 4 | 43 | 30 | 10 | 7 3: {3,4} reaches 5, the trailing 3 joins the 7.
    const std::vector<double> p = {0.03, 0.04, 0.43, 0.30, 0.10, 0.07, 0.03};
    const std::vector<uint64_t> o = {1, 5, 40, 33, 9, 8, 4};
    const chi_square_result r = chi_square_gof(o, p, 100);
    CHECK(r.dof == 4.0);
    const double want = 1.0 / 7 + 9.0 / 43 + 9.0 / 30 + 1.0 / 10 + 4.0 / 10;
    CHECK(r.statistic == doctest::Approx(want).epsilon(1e-12));
    CHECK(r.p_value == doctest::Approx(chi_square_sf(want, 4)).epsilon(1e-12));
  }
  SUBCASE("everything in one bin") {
    const chi_square_result r = chi_square_gof({1, 2}, {0.5, 0.5}, 3);
    CHECK(r.dof == 0.0);
    CHECK(r.statistic == 0.0);
    CHECK(r.p_value == 1.0);
  }
  SUBCASE("a count where the model allows none fails outright") {
    const chi_square_result r = chi_square_gof({50, 1, 49}, {0.5, 0.0, 0.5}, 100);
    CHECK(std::isinf(r.statistic));
    CHECK(r.p_value == 0.0);
  }
  SUBCASE("a clear misfit is rejected") {
    const chi_square_result r = chi_square_gof({600, 400}, {0.5, 0.5}, 1000);
    CHECK(r.statistic == doctest::Approx(40.0).epsilon(1e-14));
    CHECK(r.p_value < default_alpha);
  }
  SUBCASE("bad input") {
    CHECK_THROWS_AS(chi_square_gof({1, 2}, {1.0}, 3), std::invalid_argument);
    CHECK_THROWS_AS(chi_square_gof({1, 2}, {0.5, 0.5}, 4), std::invalid_argument);
    CHECK_THROWS_AS(chi_square_gof({1, 2}, {0.0, 0.0}, 3), std::invalid_argument);
    CHECK_THROWS_AS(chi_square_gof({1, 2}, {1.5, -0.5}, 3), std::invalid_argument);
  }
}

TEST_CASE("chi-square test of independence") {
  SUBCASE("proportional table") {
    const chi_square_result r = chi_square_independence({{10, 20, 30}, {20, 40, 60}});
    CHECK(r.statistic == 0.0);
    CHECK(r.dof == 2.0);
    CHECK(r.p_value == 1.0);
  }
  SUBCASE("2 x 2 by hand") {
    // Expected {{12, 18}, {28, 42}}; every cell is off by 2.
    const double want = 4.0 / 12 + 4.0 / 18 + 4.0 / 28 + 4.0 / 42;
    const chi_square_result r = chi_square_independence({{10, 20}, {30, 40}});
    CHECK(r.dof == 1.0);
    CHECK(r.statistic == doctest::Approx(want).epsilon(1e-14));
    CHECK(r.p_value == doctest::Approx(std::erfc(std::sqrt(want / 2))).epsilon(1e-12));
    // Empty rows and columns carry no information and are dropped.
    const chi_square_result padded = chi_square_independence({{10, 0, 20}, {0, 0, 0}, {30, 0, 40}});
    CHECK(padded.dof == 1.0);
    CHECK(padded.statistic == doctest::Approx(want).epsilon(1e-14));
  }
  SUBCASE("strong dependence") {
    const chi_square_result r = chi_square_independence({{900, 100}, {100, 900}});
    CHECK(r.p_value < default_alpha);
  }
  CHECK_THROWS_AS(chi_square_independence({{1, 2}, {3}}), std::invalid_argument);
}

TEST_CASE("normal survival function") {
  CHECK(normal_sf(0.0) == 0.5);
  CHECK(close_rel(normal_sf(1.959963984540054), 0.025, 1e-14));
  CHECK(close_rel(normal_sf(10.0), 7.619853024160526066e-24, 1e-13));
  for (double z : {0.1, 1.0, 2.5, 6.0}) CHECK(close_rel(normal_sf(-z), 1 - normal_sf(z), 1e-15));
}
