// Memoized duchi device to server (docs/mechanisms.md E.2, D.3): the estimate over a fleet of devices
// with distinct secrets is unbiased with the closed-form variance, and the averaging attack on one
// device's reports succeeds without memoization and fails with it. Fixed seeds from the test names.
//
// - Unbiasedness and variance: R = 4000 fleets of n = 40 devices, each device a fresh secret (so
//   fresh alpha and permanent bits) and one report, values off the memo grid so that the rounding
//   is active. The mean of the R estimates within 5 standard errors of the truth (two-sided 5.7e-7),
//   (R - 1) S^2 / sigma^2 inside the central 1 - 1e-6 of chi-square(R - 1) with
//   sigma^2 = (Q gamma / 2)^2 sum_u (B'^2 - y_u^2) / n^2, B' = duchi_scale(p) (the flip undone).
//   B' is computed here from the block's integers. A scale that forgot the flip (B instead of B')
//   biases the mean by 20% of its distance to the centre: about 15 standard errors here.
// - Averaging attack, one device, 2000 reports at epsilon = 3, values 0.15 and 0.85 of the range:
//   without memoization the attacker's average (the estimator on that device's reports) is within
//   0.05 of the value: its standard deviation is at most 0.0096, so 0.05 is 5.2 of them (two-sided
//   2e-7 per value). With memoization the average converges to the flipped permanent bit: phi
//   +- 0.034 or 1 - phi +- 0.034 (5 standard deviations of a mean of 2000 Bernoulli(0.1), 6e-7),
//   which the estimator maps beyond the range ends, so the clamped estimate is an end of the range
//   and the error is at least the distance from the value to the nearer end, 0.15. Deterministic
//   given the seeds; the bounds say how unlikely another seed is to fail.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/server.h"
#include "ldp/wire.h"
#include "stats.h"
#include "tables.h"

using ldp::status;

namespace {

constexpr double z_mean = 5.0;
constexpr double variance_alpha = 1e-6;

// The secret of device `index` of a fleet: the test's seed with the index in its first bytes.
void device_secret(const char* name, uint64_t index, unsigned char out[ldp::device::device_secret_size]) {
  ldp::test::seed_from_name(name, out);
  for (int i = 0; i < 8; ++i) out[i] ^= static_cast<unsigned char>(index >> (8 * i));
}

// The clamped estimate of an aggregator holding some reports.
double clamped_estimate(const ldp::server::aggregator& agg, const ldp::wire::params& p) {
  const auto raw = agg.estimate_all();
  return ldp::server::clamp_means(raw, p)[0].value;
}

// One device's `reports` reports of x, averaged by the attacker with the server's estimator,
// clamped to the range (the attacker knows the range).
double attacker_estimate(const ldp::wire::params& p, int64_t x, int reports, const char* name) {
  ldp::test::owned_context<ldp::device::mean_context> c(p);
  REQUIRE(c.code == status::ok);
  std::unique_ptr<ldp::server::aggregator> agg;
  REQUIRE(ldp::server::aggregator::create(p, &agg) == status::ok);
  auto rng = ldp::test::seeded_drbg(name);
  unsigned char secret[ldp::device::device_secret_size];
  device_secret(name, 0, secret);
  const ldp::device::memo_key key{secret, 3};
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  for (int i = 0; i < reports; ++i) {
    std::size_t size = 0;
    const status s = ldp::wire::is_memoized_mean(p)
                         ? c->randomize_memoized(x, key, rng, out, ldp::device::framing::report, &size)
                         : c->randomize(x, rng, out, ldp::device::framing::report, &size);
    REQUIRE(s == status::ok);
    REQUIRE(agg->add_report(ldp::span<const unsigned char>(out.data(), size)) == status::ok);
  }
  return clamped_estimate(*agg, p);
}

}  // namespace

TEST_CASE("memoized duchi: unbiased over fleets of distinct secrets, variance (Q gamma/2)^2 sum(B'^2 - y_u^2)/n^2") {
  constexpr std::size_t runs = 4000, n = 40;
  // [0, 10] with 8 fraction bits (Q = 2560), grid step 1.0 (k = 10) or 2.5 (k = 4).
  for (const auto& setting : {std::pair<uint32_t, double>{10, 0.1}, {4, 0.0}}) {
    const uint32_t grid = setting.first;  // named copies: clang 14 cannot CAPTURE a structured binding
    const double flip = setting.second;
    CAPTURE(grid);
    CAPTURE(flip);
    const auto derived = ldp::wire::make_memoized_duchi(0.0, 10.0, 8, 1.0, grid, flip);
    REQUIRE(derived.code == status::ok);
    const auto& p = derived.block;
    ldp::test::owned_context<ldp::device::mean_context> c(p);
    REQUIRE(c.code == status::ok);
    // B' from the block's integers (E.2), not from the server: 2^32 / (T_hi - T_lo) * 2^32 / (2^32 - 2 Phi).
    const double one = 4294967296.0;
    const double b =
        one / static_cast<double>(p.get(ldp::wire::field::threshold_keep) - p.get(ldp::wire::field::threshold_other)) *
        one / (one - 2 * static_cast<double>(p.get(ldp::wire::field::output_flip)));
    CHECK(ldp::server::duchi_scale(p) == doctest::Approx(b).epsilon(1e-12));
    const double half = 5.0, gamma = 1.0 / 256;
    std::vector<int64_t> data;
    double truth = 0, per_user = 0;
    for (std::size_t u = 0; u < n; ++u) {
      // Off the grid, in the upper half of the range: a scale that forgot the flip biases the mean by
      // 20% of its distance to the centre (about 0.5 here, 15 standard errors).
      const auto x = static_cast<int64_t>(1317 + u * 1197 / (n - 1));
      data.push_back(x);
      const double y = 2.0 * static_cast<double>(x) / 2560 - 1;
      truth += static_cast<double>(x) * gamma / n;
      per_user += b * b - y * y;
    }
    const double sigma2 = half * half * per_user / (static_cast<double>(n) * n);
    auto rng = ldp::test::seeded_drbg("memoized duchi fleet");
    std::vector<unsigned char> out(ldp::wire::max_report_size(p));
    std::vector<double> values;
    for (std::size_t run = 0; run < runs; ++run) {
      std::unique_ptr<ldp::server::aggregator> agg;
      REQUIRE(ldp::server::aggregator::create(p, &agg) == status::ok);
      for (std::size_t u = 0; u < n; ++u) {
        unsigned char secret[ldp::device::device_secret_size];
        device_secret("memoized duchi fleet", run * n + u, secret);
        std::size_t size = 0;
        REQUIRE(c->randomize_memoized(data[u], {secret, 1}, rng, out, ldp::device::framing::report, &size) ==
                status::ok);
        REQUIRE(agg->add_report(ldp::span<const unsigned char>(out.data(), size)) == status::ok);
      }
      values.push_back(agg->estimate_all()[0].value);
    }
    double mean = 0;
    for (double v : values) mean += v / runs;
    double s2 = 0;
    for (double v : values) s2 += (v - mean) * (v - mean) / (runs - 1);
    CAPTURE(mean);
    CAPTURE(truth);
    CHECK(std::fabs(mean - truth) <= z_mean * std::sqrt(sigma2 / runs));
    const double upper_tail = ldp::test::chi_square_sf(static_cast<double>(runs - 1) * s2 / sigma2, runs - 1.0);
    CAPTURE(s2 / sigma2);
    CHECK(upper_tail > variance_alpha / 2);
    CHECK(upper_tail < 1 - variance_alpha / 2);
  }
}

TEST_CASE("averaging attack: 2000 reports of one device reveal its value without memoization, not with it") {
  constexpr int reports = 2000;
  const auto plain = ldp::wire::make_duchi(0.0, 1.0, 10, 3.0).block;
  const auto memo = ldp::wire::make_memoized_duchi(0.0, 1.0, 10, 3.0, 8, 0.1).block;
  for (double value : {0.15, 0.85}) {
    CAPTURE(value);
    const auto x = static_cast<int64_t>(std::lround(value * 1024));
    const double truth = static_cast<double>(x) / 1024;
    const double without = attacker_estimate(plain, x, reports, "averaging attack, plain");
    const double with = attacker_estimate(memo, x, reports, "averaging attack, memoized");
    CAPTURE(without);
    CAPTURE(with);
    CHECK(std::fabs(without - truth) < 0.05);
    // The memoized average is the permanent bit: an end of the range, never nearer than 0.15.
    CHECK((with == 0.0 || with == 1.0));
    CHECK(std::fabs(with - truth) >= std::min(truth, 1 - truth));
  }
}
