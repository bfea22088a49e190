// The unit-vector family end to end (docs/mechanisms.md B.6, D.2, D.3): l2-ball device reports through
// the wire format into the server aggregator, with fixed seeds named after the test.
// - Unbiasedness and variance against the closed form (identical users, where the closed form is
//   exact up to the 2^-30 rounding term): the pooled mean of 100 aggregators per coordinate within
//   5.3 standard errors (Bonferroni over 8 coordinates and 2 levels: false failure < 4e-6 in all),
//   and the mean squared standardized error over 800 estimates in [0.75, 1.3] (a chi-square(800) / 800
//   has standard deviation 0.05: the bounds are 5 and 6 of them away, false failure < 1e-6); the
//   aggregator's reported variance within 5 % of the closed form. Detects a wrong unbiasing constant
//   (B off by 2 % moves the pooled mean of coordinate 0 at epsilon 4 by 12 standard errors; checked
//   by hand: the test fails), and a device that ignores the keep coin (fails too).
// - Monte-Carlo privacy audit (D.2 (b)): x = R e_1 against -R e_1 and the event {u_1 > 0}, whose
//   probabilities are T/2^32 and 1 - T/2^32 times the same factor (B.6 "Privacy"), so the ratio is
//   e^epsilon_impl exactly: the Clopper-Pearson lower bound of the ratio stays below e^epsilon_impl
//   (false failure < 2e-7) and the point estimate reaches 0.9 epsilon_impl.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "audit.h"
#include "device_context.h"
#include "ldp/device/unit_vector.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire.h"
#include "stats.h"
#include "tables.h"
#include "vector_fleet.h"

using ldp::status;
using ldp::server::aggregator;
using ldp::wire::field;

TEST_CASE("l2-ball: unbiased, with the closed-form variance") {
  constexpr uint32_t d = 8;
  constexpr int aggregators = 100, reports = 8000;
  const double x_real[d] = {0.9, -0.3, 0.2, 0.1, 0, 0, -0.1, 0.05};  // norm 0.981
  for (double epsilon : {1.0, 4.0}) {
    CAPTURE(epsilon);
    const auto made = ldp::wire::make_l2_ball(d, 1.0, 16, epsilon);
    REQUIRE(made.code == status::ok);
    const ldp::wire::params& p = made.block;
    std::vector<int64_t> x(d);
    for (uint32_t i = 0; i < d; ++i) REQUIRE(ldp::wire::to_fixed(x_real[i], 16, &x[i]) == status::ok);
    ldp::test::owned_context<ldp::device::unit_vector_context> c(p);
    REQUIRE(c.code == status::ok);
    const std::string name = "l2-ball unbiased " + std::to_string(epsilon);
    auto rng = ldp::test::seeded_drbg(name.c_str());
    const double b = ldp::wire::unit_vector_scale(p);
    std::vector<double> pooled(d, 0);
    double squares = 0, reported_ratio = 0;
    for (int k = 0; k < aggregators; ++k) {
      const auto e = ldp::test::aggregate_reports(c.context, p, x, rng, reports)->estimate_all(0.95);
      for (uint32_t i = 0; i < d; ++i) {
        const double truth = static_cast<double>(x[i]) / 65536;
        const double variance = (b * b * (1.0 / d + std::ldexp(1.0, -30)) - truth * truth) / reports;
        pooled[i] += e[i].value / aggregators;
        squares += (e[i].value - truth) * (e[i].value - truth) / variance;
        reported_ratio += e[i].variance / variance / (aggregators * d);
      }
    }
    for (uint32_t i = 0; i < d; ++i) {
      CAPTURE(i);
      const double truth = static_cast<double>(x[i]) / 65536;
      const double se = std::sqrt((b * b / d - truth * truth) / reports / aggregators);
      CHECK(std::fabs(pooled[i] - truth) <= 5.3 * se);
    }
    const double ratio = squares / (aggregators * d);
    CAPTURE(ratio);
    CHECK(ratio >= 0.75);
    CHECK(ratio <= 1.3);
    CHECK(reported_ratio == doctest::Approx(1).epsilon(0.05));
  }
}

TEST_CASE("l2-ball Monte-Carlo audit: no leak, no wasted noise") {
  constexpr uint64_t runs = 100000;
  constexpr uint32_t d = 3;
  for (double epsilon : {1.0, 3.0}) {
    CAPTURE(epsilon);
    const auto made = ldp::wire::make_l2_ball(d, 1.0, 16, epsilon);
    REQUIRE(made.code == status::ok);
    const ldp::wire::params& p = made.block;
    const int64_t r = p.get_signed(field::radius);
    ldp::test::owned_context<ldp::device::unit_vector_context> c(p);
    REQUIRE(c.code == status::ok);
    const std::string name = "l2-ball audit " + std::to_string(epsilon);
    auto rng = ldp::test::seeded_drbg(name.c_str());
    const auto count = [&](int64_t first) {
      const std::vector<int64_t> x = {first, 0, 0};
      uint64_t hits = 0;
      for (uint64_t i = 0; i < runs; ++i) {
        ldp::wire::report rep;
        REQUIRE(c->fields(x, rng, &rep) == status::ok);
        hits += rep.values[0] > 0 ? 1 : 0;
      }
      return hits;
    };
    const uint64_t k1 = count(r), k0 = count(-r);
    ldp::test::check_audit_event(k1, k0, runs, 1e-7, made.epsilon_impl);
  }
}
