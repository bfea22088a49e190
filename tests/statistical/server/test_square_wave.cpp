// Square Wave's estimate (docs/mechanisms.md G.1): EMS on the output counts recovers a known
// distribution (its smoothing bias measured without noise, then the noisy answers within that bias
// and 5 bootstrap standard deviations), also from the device's own reports, and the parametric
// bootstrap's spread matches the spread of the estimate over independent fleets. Most fleets are
// drawn with G.1's exact coins at the wire level (the window with probability T / 2^32, else one of
// the D - 1 other outputs) and counted into a saved state, which the aggregator loads.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "device_context.h"
#include "ldp/device/distribution.h"
#include "ldp/random/samplers.h"
#include "ldp/server/distribution.h"
#include "ldp/wire.h"
#include "stats.h"
#include "tables.h"

using ldp::status;
using ldp::server::distribution_aggregator;
using ldp::server::distribution_options;
using ldp::server::range_estimate;
using ldp::wire::field;
using ldp::wire::params;

namespace {

using distribution = std::unique_ptr<distribution_aggregator>;

void put_u64(std::vector<unsigned char>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

// The aggregator holding these output counts (docs/wire_format.md 7.5), through its saved state.
distribution state_of(const params& p, const std::vector<uint64_t>& counts) {
  std::vector<unsigned char> block(ldp::wire::params_max_size), body;
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_params(p, block, &size) == status::ok);
  body.push_back(static_cast<unsigned char>(size));
  body.push_back(static_cast<unsigned char>(size >> 8));
  body.insert(body.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t>(size));
  uint64_t n = 0;
  for (uint64_t c : counts) n += c;
  put_u64(body, n);
  for (int i = 0; i < 16; ++i) put_u64(body, 0);
  for (uint64_t c : counts) put_u64(body, c);
  std::vector<unsigned char> file(ldp::wire::state_header_size);
  REQUIRE(ldp::wire::encode_state_header(p.mech, ldp::wire::fingerprint(p), body, file) == status::ok);
  file.insert(file.end(), body.begin(), body.end());
  distribution a;
  REQUIRE(distribution_aggregator::deserialize(file, &a) == status::ok);
  return a;
}

// The bucket masses f (summing to 1): a smooth two-bump density, as many telemetry values are.
std::vector<double> two_bumps(std::size_t buckets) {
  std::vector<double> f(buckets);
  double total = 0;
  for (std::size_t v = 0; v < buckets; ++v) {
    const double x = (static_cast<double>(v) + 0.5) / static_cast<double>(buckets);
    f[v] = std::exp(-std::pow((x - 0.35) / 0.12, 2) / 2) + 0.5 * std::exp(-std::pow((x - 0.75) / 0.08, 2) / 2);
    total += f[v];
  }
  for (double& m : f) m /= total;
  return f;
}

// n devices with buckets drawn from f, each reporting through G.1's coins.
std::vector<uint64_t> fleet_counts(const params& p, const std::vector<double>& f, uint64_t n, ldp::random::drbg& rng) {
  const auto d = static_cast<uint32_t>(p.get(field::domain));
  const auto b = static_cast<uint32_t>(p.get(field::window_half_width));
  std::vector<double> cdf(f.size());
  double running = 0;
  for (std::size_t v = 0; v < f.size(); ++v) cdf[v] = running += f[v];
  std::vector<uint64_t> counts(d + 2 * b);
  for (uint64_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(rng.next_u64() >> 11) * 0x1p-53;
    uint32_t v = 0;
    while (v + 1 < d && cdf[v] <= u) ++v;
    uint32_t y = 0;
    if (ldp::random::bernoulli(rng, p.get(field::threshold_keep))) {
      y = v + ldp::random::uniform_below(rng, 2 * b + 1);
    } else {
      const uint32_t o = ldp::random::uniform_below(rng, d - 1);
      y = o < v ? o : o + 2 * b + 1;
    }
    ++counts[y];
  }
  return counts;
}

// The expected output counts of n devices from f, rounded (the noiseless state).
std::vector<uint64_t> expected_counts(const params& p, const std::vector<double>& f, double n) {
  const auto d = static_cast<std::size_t>(p.get(field::domain));
  const auto b = static_cast<std::size_t>(p.get(field::window_half_width));
  const double keep = std::ldexp(static_cast<double>(p.get(field::threshold_keep)), -32);
  const double in = keep / static_cast<double>(2 * b + 1), out = (1 - keep) / static_cast<double>(d - 1);
  std::vector<uint64_t> counts(d + 2 * b);
  for (std::size_t y = 0; y < counts.size(); ++y) {
    double q = 0;
    for (std::size_t v = 0; v < d; ++v) q += f[v] * (y >= v && y <= v + 2 * b ? in : out);
    counts[y] = static_cast<uint64_t>(std::llround(n * q));
  }
  return counts;
}

// The true mass of [lo, hi] (real units over [0, 1], partial buckets in proportion).
double true_mass(const std::vector<double>& f, double lo, double hi) {
  const auto d = static_cast<double>(f.size());
  double mass = 0;
  for (std::size_t v = 0; v < f.size(); ++v) {
    const double a = static_cast<double>(v) / d, b = (static_cast<double>(v) + 1) / d;
    const double inside = std::max(0.0, std::min(hi, b) - std::max(lo, a));
    mass += f[v] * inside * d;
  }
  return mass;
}

std::vector<range_estimate> answers(const distribution& a, const std::vector<std::pair<double, double>>& asked,
                                    const distribution_options& o) {
  std::vector<range_estimate> r;
  REQUIRE(a->ranges(asked, o, &r) == status::ok);
  REQUIRE(r.size() == asked.size());
  return r;
}

}  // namespace

// The masses of a density rising linearly from 1 to 3 over [0, 1].
std::vector<double> rising(std::size_t buckets) {
  std::vector<double> f(buckets);
  double total = 0;
  for (std::size_t v = 0; v < buckets; ++v)
    total += f[v] = 1 + 2 * (static_cast<double>(v) + 0.5) / static_cast<double>(buckets);
  for (double& m : f) m /= total;
  return f;
}

TEST_CASE("square wave: EMS recovers a known distribution") {
  // 32 buckets of [0, 1] at epsilon 2 (b = 4 by the rule of G.1).
  const auto made = ldp::wire::make_square_wave(2.0, 32, 0, 1, 16);
  REQUIRE(made.code == status::ok);
  const params& p = made.block;
  const std::vector<std::pair<double, double>> asked = {{0, 0.25}, {0.25, 0.5}, {0.5, 0.75}, {0.3, 0.4}, {0.7, 1}};
  // Without noise (the expected counts of 2^40 devices) EMS ends within its smoothing bias: the
  // binomial kernel keeps a linear density but at the two end buckets, so on the rising density
  // every range is within 0.005 (measured: 0.0013); it flattens the peaks of the two bumps, by
  // up to 0.05 on a range (measured: 0.041). An EMS whose transition reads output y as bucket y
  // (not y - b) is off by about 0.1 on the rising density.
  const struct {
    std::vector<double> f;
    double bias_bound;
  } shapes[] = {{rising(32), 0.005}, {two_bumps(32), 0.05}};
  auto rng = ldp::test::seeded_drbg("square wave EMS recovery");
  for (const auto& shape : shapes) {
    CAPTURE(shape.bias_bound);
    distribution_options o;
    o.bootstrap = 0;
    const auto exact = answers(state_of(p, expected_counts(p, shape.f, 0x1p40)), asked, o);
    std::vector<double> bias;
    for (std::size_t i = 0; i < asked.size(); ++i) {
      CAPTURE(i);
      bias.push_back(exact[i].estimate - true_mass(shape.f, asked[i].first, asked[i].second));
      CHECK(std::fabs(bias.back()) < shape.bias_bound);
    }
    // 100,000 devices: each answer within its bias and 5 of its bootstrap sd (two-sided normal:
    // 5.7e-7 per range, 5.7e-6 for the ten; the bootstrap sd itself is checked by the next test).
    o.bootstrap = 200;
    const auto noisy = answers(state_of(p, fleet_counts(p, shape.f, 100000, rng)), asked, o);
    for (std::size_t i = 0; i < asked.size(); ++i) {
      CAPTURE(i);
      const double truth = true_mass(shape.f, asked[i].first, asked[i].second);
      CHECK(noisy[i].variance > 0);
      CHECK(std::fabs(noisy[i].estimate - truth) <= std::fabs(bias[i]) + 5 * std::sqrt(noisy[i].variance));
    }
  }
}

TEST_CASE("square wave: device reports and the server agree on the outputs") {
  // The device's randomizer (device::distribution_context) on values of the rising density, whose
  // reports the aggregator ingests: the same answers as the wire-level fleets above, within the
  // smoothing bias and 5 bootstrap sd (5.7e-7 per range, 2.9e-6 for the five). A device whose window
  // sat b buckets higher ([v + b, v + 3b]) fails it.
  const auto made = ldp::wire::make_square_wave(2.0, 32, 0, 1, 16);
  REQUIRE(made.code == status::ok);
  const params& p = made.block;
  const std::vector<double> f = rising(32);
  const std::vector<std::pair<double, double>> asked = {{0, 0.25}, {0.25, 0.5}, {0.5, 0.75}, {0.3, 0.4}, {0.7, 1}};
  distribution_options o;
  o.bootstrap = 0;
  const auto exact = answers(state_of(p, expected_counts(p, f, 0x1p40)), asked, o);

  ldp::test::owned_context<ldp::device::distribution_context> device(p);
  REQUIRE(device.code == status::ok);
  distribution a;
  REQUIRE(distribution_aggregator::create(p, &a) == status::ok);
  auto rng = ldp::test::seeded_drbg("square wave device fleet");
  std::vector<unsigned char> report(ldp::wire::max_report_size(p));
  // Values x / 2^16 with density 1 + 2x over [0, 1] (normalised: (1 + 2x) / 2), by inversion.
  for (int i = 0; i < 50000; ++i) {
    const double u = static_cast<double>(rng.next_u64() >> 11) * 0x1p-53;
    const double x = (-1 + std::sqrt(1 + 8 * u)) / 2;
    std::size_t size = 0;
    REQUIRE(device->randomize(static_cast<int64_t>(std::floor(x * 65536)), rng, report, ldp::device::framing::report,
                              &size) == status::ok);
    REQUIRE(a->add_report({report.data(), size}) == status::ok);
  }
  o.bootstrap = 100;
  const auto r = answers(a, asked, o);
  for (std::size_t i = 0; i < asked.size(); ++i) {
    CAPTURE(i);
    const double truth = true_mass(f, asked[i].first, asked[i].second);
    CHECK(std::fabs(r[i].estimate - truth) <= std::fabs(exact[i].estimate - truth) + 5 * std::sqrt(r[i].variance));
  }
}

TEST_CASE("square wave: the bootstrap's sd matches the spread of the estimate over fleets") {
  // 16 buckets of [0, 1] at epsilon 1, fleets of 4,000 devices.
  const auto made = ldp::wire::make_square_wave(1.0, 16, 0, 1, 16);
  REQUIRE(made.code == status::ok);
  const params& p = made.block;
  const std::vector<double> f = two_bumps(16);
  const std::vector<std::pair<double, double>> asked = {{0, 0.5}, {0.25, 0.375}, {0.75, 1}};
  constexpr int runs = 200, bootstrapped = 10;
  auto rng = ldp::test::seeded_drbg("square wave bootstrap spread");
  std::vector<double> sum(asked.size()), squares(asked.size()), boot(asked.size());
  for (int run = 0; run < runs; ++run) {
    distribution_options o;
    o.bootstrap = run < bootstrapped ? 200 : 0;
    o.seed = static_cast<uint64_t>(run);
    const auto r = answers(state_of(p, fleet_counts(p, f, 4000, rng)), asked, o);
    for (std::size_t i = 0; i < asked.size(); ++i) {
      sum[i] += r[i].estimate;
      squares[i] += r[i].estimate * r[i].estimate;
      if (run < bootstrapped) boot[i] += r[i].variance / bootstrapped;
    }
  }
  // (runs - 1) s^2 / sigma^2 is chi-square with runs - 1 degrees of freedom for normal estimates:
  // its two-sided 1e-6 band is [0.64, 1.43] times sigma^2 at 199. The bootstrap variance, averaged
  // over 10 fleets of 200 replicates, is off sigma^2 by its own noise (about 3%) and by being taken
  // at each fleet's fit rather than the truth: 15% more on each side.
  const double dof = runs - 1;
  const auto quantile = [&](double tail) {  // the chi-square statistic whose upper tail is `tail`
    double lo = 0, hi = 4 * dof;
    for (int i = 0; i < 200; ++i) {
      const double mid = (lo + hi) / 2;
      (ldp::test::chi_square_sf(mid, dof) > tail ? lo : hi) = mid;
    }
    return lo;
  };
  const double low = quantile(1 - 5e-7) / dof / 1.15, high = quantile(5e-7) / dof * 1.15;
  for (std::size_t i = 0; i < asked.size(); ++i) {
    CAPTURE(i);
    const double mean = sum[i] / runs, empirical = (squares[i] - runs * mean * mean) / dof;
    const double ratio = empirical / boot[i];
    CAPTURE(ratio);
    CHECK(ratio >= low);
    CHECK(ratio <= high);
  }
}
