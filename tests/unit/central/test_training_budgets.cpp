// The budget numbers chapter I prints (docs/mechanisms.md I.1 "The accountant", its table for delta =
// 1e-6, T = 100, Delta = 2C) against values computed independently: rho total by bisection on a numpy
// grid of 2e6 Renyi orders of CKS 2020 Cor. 13 (tight) and the closed form of Bun, Steinke 2016
// Prop. 1.3 solved for rho, (sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)))^2 (simple); sigma / C =
// sqrt(2 T / rho). The library's inverse (dp_sgd_sigma2_for) must land on the tight column, and the
// printed (rounded) table must agree with both. Deterministic.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "ldp/server/central/accountant.h"
#include "ldp/server/central/dp_sgd.h"

namespace {

namespace server = ldp::server;

struct table_row {
  double epsilon;
  double rho_tight, rho_simple;  // independent, full precision
  double printed[4];             // the docs' row: rho tight, rho simple, sigma/C tight, simple
  double printed_precision[4];   // half a unit of the last printed digit
};

const table_row rows[] = {
    {1, 0.024355970358666882, 0.017468904769123432, {0.0244, 0.0175, 90.6, 107.0}, {5e-5, 5e-5, 0.05, 0.05}},
    {2, 0.08815268837872514, 0.06757388167314415, {0.0882, 0.0676, 47.6, 54.4}, {5e-5, 5e-5, 0.05, 0.05}},
    {4, 0.31106495494011777, 0.2539355782894971, {0.311, 0.254, 25.4, 28.1}, {5e-4, 5e-4, 0.05, 0.05}},
    {8, 1.0523580045565062, 0.9097068296901019, {1.052, 0.910, 13.8, 14.8}, {5e-4, 5e-4, 0.05, 0.05}},
};

}  // namespace

TEST_CASE("I.1's table: rho and sigma / C for delta = 1e-6, T = 100, tight and simple") {
  const double delta = 1e-6;
  const uint64_t steps = 100;
  const unsigned frac_bits = 16;  // C = 2^16 for G = 1
  const double c = 65536;
  for (const table_row& r : rows) {
    CAPTURE(r.epsilon);
    // The conversions give back epsilon at the independent rho.
    CHECK(server::zcdp_to_epsilon(r.rho_tight, delta) == doctest::Approx(r.epsilon).epsilon(1e-8));
    CHECK(server::zcdp_to_epsilon_simple(r.rho_simple, delta) == doctest::Approx(r.epsilon).epsilon(1e-12));
    const double sigma_tight = std::sqrt(2.0 * steps / r.rho_tight),
                 sigma_simple = std::sqrt(2.0 * steps / r.rho_simple);
    // The library's inverse: sigma2 on the grid of C = 2^16, the tight rule.
    const uint64_t sigma2 = server::dp_sgd_sigma2_for(r.epsilon, delta, steps, 1, frac_bits);
    CHECK(std::sqrt(static_cast<double>(sigma2)) / c == doctest::Approx(sigma_tight).epsilon(1e-6));
    CHECK(server::zcdp_to_epsilon(server::discrete_gaussian_rho(2 * c, static_cast<double>(sigma2), steps), delta) <=
          r.epsilon);
    // The printed row.
    const double computed[4] = {r.rho_tight, r.rho_simple, sigma_tight, sigma_simple};
    for (int k = 0; k < 4; ++k) {
      CAPTURE(k);
      CHECK(std::fabs(computed[k] - r.printed[k]) <= r.printed_precision[k]);
    }
    // The tight rule always needs less noise than the simple one.
    CHECK(sigma_tight < sigma_simple);
  }
}
