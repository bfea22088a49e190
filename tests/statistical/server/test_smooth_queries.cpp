// smooth-queries end to end (docs/mechanisms.md H.6): device reports through the wire format into
// the mean aggregator, answered by server::answer_smooth_query, with fixed seeds.
// - Unbiasedness: for three queries of the built-in family, |answer - target| <= 5.45 sd with the
//   target sum_v c_v mean_i phi_v(x_i) computed from the devices' own fixed-point features (the
//   noise is the only randomness given the data): false failure 3 x 5e-8.
// - Variance: over 300 fleets of 300 devices the mean of z^2 = (answer - target)^2 / variance is
//   within 0.5 of 1 (its standard deviation is about sqrt(2.1 / 300) = 0.084: a 6 sd margin, false
//   failure below 1e-6 by the fleets' near-normal answers).
// - Monte-Carlo privacy audit (D.2 (b)): p = 1, t = 3 (features 1, x, 2x^2 - 1), f = 4, x = 1 against
//   x = 0 (features differ by 1 and 2 in value: L1 1.5 Q of the bound N Q = 3 Q, the constant
//   feature never moves), event "feature 1 <= 0 and feature 2 <= -1", whose ratio is e^{1.5 Q / t}
//   = e^{epsilon_impl / 2} exactly. Clopper-Pearson at 1e-7 per proportion (false failure below
//   4e-7) against that level (so the audit also bounds what the block reports, epsilon_impl); the
//   point estimate must reach 0.9 of it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "device_context.h"
#include "ldp/device/smooth_queries.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/samplers.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/smooth_queries.h"
#include "ldp/wire.h"
#include "ldp/wire/chebyshev.h"
#include "ldp/wire/smooth_params.h"
#include "stats.h"
#include "tables.h"

using ldp::status;
using ldp::server::smooth_query;
using ldp::server::smooth_query_kind;
using ldp::wire::field;

namespace {

constexpr unsigned frac = 16;

std::vector<smooth_query> queries() {
  smooth_query g{"gauss", smooth_query_kind::gaussian, {0.3, -0.2}, 0.6};
  smooth_query s{"step", smooth_query_kind::smooth_step, {0.0, 0.1}, 0.3};
  smooth_query m{"xy", smooth_query_kind::monomial, {1, 1}, 1};
  return {g, s, m};
}

// Correlated data in [-1, 1]^2: x0 uniform, x1 = 0.6 x0 + 0.4 u, on the grid.
std::vector<std::vector<int64_t>> users(std::size_t n, ldp::random::drbg& rng) {
  std::vector<std::vector<int64_t>> out(n);
  for (auto& x : out) {
    const int64_t a = int64_t{ldp::random::uniform_below(rng, 131073)} - 65536;
    const int64_t u = int64_t{ldp::random::uniform_below(rng, 131073)} - 65536;
    x = {a, (6 * a + 4 * u) / 10};
  }
  return out;
}

struct fleet_answer {
  std::vector<double> answer, variance, target;
};

fleet_answer run_fleet(const ldp::wire::params& b, const std::vector<std::vector<double>>& coefficients,
                       const std::vector<std::vector<int64_t>>& xs, ldp::random::drbg& rng) {
  const uint32_t t = static_cast<uint32_t>(b.get(field::degree));
  const std::size_t n = static_cast<std::size_t>(b.get(field::domain));
  ldp::test::owned_context<ldp::device::vector_mean_context> dev(b);
  REQUIRE(dev.code == status::ok);
  std::unique_ptr<ldp::server::aggregator> agg;
  REQUIRE(ldp::server::aggregator::create(b, &agg) == status::ok);
  std::vector<unsigned char> out(ldp::wire::max_payload_size(b));
  std::vector<double> feature_mean(n, 0.0);
  std::vector<int64_t> phi(n);
  for (const auto& x : xs) {
    std::size_t size = 0;
    REQUIRE(ldp::device::randomize_smooth_queries(dev.context, x, rng, out, ldp::device::framing::payload, &size) ==
            status::ok);
    REQUIRE(agg->add_payload(ldp::span<const unsigned char>(out.data(), size)) == status::ok);
    ldp::wire::chebyshev_features(x, frac, t, phi);
    for (std::size_t v = 0; v < n; ++v) feature_mean[v] += std::ldexp(static_cast<double>(phi[v]), -int{frac});
  }
  const auto e = agg->estimate_all();
  fleet_answer a;
  for (const auto& c : coefficients) {
    const ldp::server::smooth_answer s = ldp::server::answer_smooth_query(c, e, 0.95);
    double target = 0;
    for (std::size_t v = 0; v < n; ++v) target += c[v] * feature_mean[v] / static_cast<double>(xs.size());
    a.answer.push_back(s.value);
    a.variance.push_back(s.variance);
    a.target.push_back(target);
  }
  return a;
}

std::vector<std::vector<double>> coefficients_of(uint32_t t) {
  std::vector<std::vector<double>> out;
  for (const smooth_query& q : queries()) {
    out.push_back(ldp::server::chebyshev_coefficients(2, t, [&](const double* x) { return evaluate(q, x); }));
  }
  return out;
}

}  // namespace

TEST_CASE("smooth-queries answers are unbiased for the mean of the interpolant") {
  // Fails (checked): the answer with every non-constant term halved (a scale error of the feature
  // means). The target uses the same coefficients, so the coefficients themselves are checked by
  // unit.server.test_smooth_queries (a transposition passes here and fails there).
  const auto made = ldp::wire::make_smooth_queries(2, 6, frac, 4.0);
  REQUIRE(made.code == status::ok);
  ldp::random::drbg rng = ldp::test::seeded_drbg("smooth-queries unbiased");
  const auto xs = users(20000, rng);
  const auto c = coefficients_of(6);
  const fleet_answer a = run_fleet(made.block, c, xs, rng);
  for (std::size_t q = 0; q < c.size(); ++q) {
    double truth = 0;  // the query's own mean, for the message
    for (const auto& x : xs) {
      const double real[2] = {static_cast<double>(x[0]) / 65536, static_cast<double>(x[1]) / 65536};
      truth += evaluate(queries()[q], real) / static_cast<double>(xs.size());
    }
    const double z = (a.answer[q] - a.target[q]) / std::sqrt(a.variance[q]);
    MESSAGE(queries()[q].name << ": answer " << a.answer[q] << " sd " << std::sqrt(a.variance[q]) << " target "
                              << a.target[q] << " exact mean of f " << truth << " z " << z);
    CHECK(std::fabs(z) <= 5.45);
  }
}

TEST_CASE("smooth-queries variances match the spread of answers over fleets") {
  // Fails (checked): the answer's variance summed with |c_v| instead of c_v^2 (mean z^2 far from 1).
  const auto made = ldp::wire::make_smooth_queries(2, 3, frac, 2.0);
  REQUIRE(made.code == status::ok);
  ldp::random::drbg rng = ldp::test::seeded_drbg("smooth-queries variance");
  const auto c = coefficients_of(3);
  std::vector<double> sum_z2(c.size(), 0.0);
  constexpr int fleets = 300;
  for (int r = 0; r < fleets; ++r) {
    const auto xs = users(300, rng);
    const fleet_answer a = run_fleet(made.block, c, xs, rng);
    for (std::size_t q = 0; q < c.size(); ++q) {
      sum_z2[q] += (a.answer[q] - a.target[q]) * (a.answer[q] - a.target[q]) / a.variance[q];
    }
  }
  for (std::size_t q = 0; q < c.size(); ++q) {
    const double mean_z2 = sum_z2[q] / fleets;
    MESSAGE(queries()[q].name << ": mean z^2 " << mean_z2);
    CHECK(std::fabs(mean_z2 - 1) <= 0.5);
  }
}

TEST_CASE("smooth-queries audit: x = 1 against x = 0, both varying features at or below x = 0's") {
  // Fails (checked): a device drawing noise of half the block's scale (t^p / epsilon, the paper's
  // b = 1): the upper check.
  constexpr uint64_t runs = 200000;
  constexpr double alpha = 1e-7;
  const auto made = ldp::wire::make_smooth_queries(1, 3, 4, 1.0);
  REQUIRE(made.code == status::ok);
  ldp::test::owned_context<ldp::device::vector_mean_context> dev(made.block);
  REQUIRE(dev.code == status::ok);
  auto rng = ldp::test::seeded_drbg("smooth-queries audit");
  const auto in_event = [&](int64_t x) {
    const int64_t input[1] = {x};
    ldp::wire::report r;
    REQUIRE(ldp::device::smooth_queries_fields(dev.context, ldp::span<const int64_t>(input), rng, &r) == status::ok);
    return r.values[1] <= 0 && r.values[2] <= -16;
  };
  uint64_t hits_low = 0, hits_high = 0;
  for (uint64_t i = 0; i < runs; ++i) hits_low += in_event(0) ? 1 : 0;
  for (uint64_t i = 0; i < runs; ++i) hits_high += in_event(16) ? 1 : 0;
  REQUIRE(hits_high > 0);
  const auto pl = ldp::test::clopper_pearson(hits_low, runs, alpha),
             ph = ldp::test::clopper_pearson(hits_high, runs, alpha);
  CAPTURE(hits_low);
  CAPTURE(hits_high);
  CHECK(made.epsilon_impl <= 1.0);
  // The pair's exact level is half the block's (above): the audit holds it to that.
  const double level = made.epsilon_impl / 2;
  CHECK(std::log(pl.lo / ph.hi) <= level);
  CHECK(std::log(static_cast<double>(hits_low) / static_cast<double>(hits_high)) >= 0.9 * level);
}
