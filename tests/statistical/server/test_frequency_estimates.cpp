// Unbiasedness and variance of every frequency oracle, device to server (docs/mechanisms.md A.0-A.6,
// D.3 rules 4-5): R independent runs on a fixed skewed dataset, at epsilon 1 and 4.
// - Mean: |mean_R(c_hat_v) - c_v| <= z sqrt(Var_v / R) for every item, z = 6.1 (two-sided 1e-9 per
//   check; 2 epsilons x 10 oracles x 24 items = 480 checks, as many variance checks below: a
//   suite-level false-failure probability below 1e-6). dBitFlip (4 of 24 buckets sampled) draws
//   a fresh device secret per user, so users are independent as the closed form assumes.
// - Variance: (R - 1) S_v^2 / Var_v against chi-square(R - 1) at two-sided 1e-9 per item: with
//   R = 240 that accepts ratios within about [0.62, 1.5], so a variance formula off by a factor of 2
//   (or a wrong p, q, g or scale c) is caught for every item.
// Var_v is the closed form evaluated with the implemented thresholds and the true counts; for CMS,
// HCMS and FLH the hash family is drawn afresh per run (the formulas average over it). FLH runs with
// k = 4 functions and g = 16, so its shared-hash term sum_{w != v} c_w (c_w - 1) / (k (g - 1)) is
// 0.17-0.41 of Var_v at epsilon 1 and 0.92-0.98 at epsilon 4: a formula without it (38 failed checks)
// fails the variance check.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/server/frequency.h"
#include "ldp/wire.h"
#include "stats.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::wire::field;
using ldp::wire::frequency_oracle;
using ldp::wire::mechanism;

namespace {

constexpr uint32_t d = 24;
constexpr int runs = 240;
constexpr double z_mean = 6.1;
constexpr double alpha_variance = 1e-9;

// Zipf-like counts over 24 items: 700, 350, 233, ... (n = 2,642 users).
std::vector<uint64_t> true_counts() {
  std::vector<uint64_t> c(d);
  for (uint32_t v = 0; v < d; ++v) c[v] = 700 / (v + 1);
  return c;
}

ldp::wire::params block(mechanism m, double eps, const unsigned char seed[32]) {
  return ldp::wire::make_frequency_oracle(m, eps, d, 4, 16, seed).block;
}

double t(uint64_t threshold) { return static_cast<double>(threshold) / 4294967296.0; }

// Var[c_hat_v] from docs/mechanisms.md with implemented parameters and true counts.
double closed_form_variance(const ldp::wire::params& p, const std::vector<uint64_t>& c, uint32_t v) {
  double n = 0;
  for (uint64_t x : c) n += static_cast<double>(x);
  const double cv = static_cast<double>(c[v]);
  const auto template_variance = [&](double pp, double q) {
    return n * q * (1 - q) / ((pp - q) * (pp - q)) + cv * (1 - pp - q) / (pp - q);
  };
  const double keep = t(p.get(field::threshold_keep)), other = t(p.get(field::threshold_other));
  switch (ldp::wire::oracle_of(p.mech)) {
    case frequency_oracle::grr: return template_variance(keep, (1 - keep) / (d - 1));
    case frequency_oracle::sue:
    case frequency_oracle::oue: return template_variance(keep, other);
    case frequency_oracle::blh:
    case frequency_oracle::olh: return template_variance(keep, 1.0 / static_cast<double>(p.get(field::hash_range)));
    case frequency_oracle::flh: {
      const double g = static_cast<double>(p.get(field::hash_range)),
                   k = static_cast<double>(p.get(field::sketch_rows));
      double collisions = 0;
      for (uint32_t x = 0; x < d; ++x) {
        if (x != v) collisions += static_cast<double>(c[x]) * (static_cast<double>(c[x]) - 1);
      }
      return template_variance(keep, 1 / g) + collisions / (k * (g - 1));
    }
    case frequency_oracle::hr: return n / ((2 * keep - 1) * (2 * keep - 1)) - cv;
    case frequency_oracle::cms:
    case frequency_oracle::hcms: {
      const double k = static_cast<double>(p.get(field::sketch_rows));
      const double m = static_cast<double>(p.get(field::sketch_columns));
      const double scale = 1 / (1 - 2 * other);
      double collisions = 0;
      for (uint32_t x = 0; x < d; ++x) {
        if (x != v) collisions += static_cast<double>(c[x]) * (static_cast<double>(c[x]) - 1);
      }
      collisions /= k * (m - 1);
      const double lead = (m / (m - 1)) * (m / (m - 1));
      if (p.mech == mechanism::cms) {
        return lead * n * (scale * scale - 1) / 4 + (n - cv) / (m - 1) + collisions;
      }
      return lead * (n * scale * scale - cv - (n - cv) / (m * m)) + collisions;
    }
    case frequency_oracle::dbitflip: {  // E.3, each bucket sampled with s / k
      const double ratio = d / static_cast<double>(p.get(field::sampled_buckets)), gap = keep - other;
      return ratio * n * other * (1 - other) / (gap * gap) + cv * (ratio * (1 - 2 * other) / gap - 1);
    }
  }
  FAIL("not a frequency oracle");
  return 0;
}

}  // namespace

TEST_CASE("every oracle is unbiased with the closed-form variance, at epsilon 1 and 4") {
  const auto counts = true_counts();
  // Every frequency oracle of the mechanism table; the stated false-failure bound counts 10 of them,
  // so a new oracle must restate it here.
  const std::vector<mechanism> oracles = ldp::test::mechanisms_of(ldp::wire::mechanism_family::frequency_oracle);
  REQUIRE(oracles.size() == 10);
  for (mechanism m : oracles) {
    for (double eps : {1.0, 4.0}) {
      const std::string oracle_name = ldp::wire::mechanism_name(m);
      CAPTURE(oracle_name);
      CAPTURE(eps);
      auto rng = ldp::test::seeded_drbg(ldp::wire::mechanism_name(m));
      std::vector<double> sum(d, 0), sum_sq(d, 0);
      std::vector<double> variance(d, 0);
      for (int run = 0; run < runs; ++run) {
        unsigned char seed[32] = {};
        const bool sketch = m == mechanism::cms || m == mechanism::hcms || m == mechanism::flh;
        if (sketch) rng.fill(seed, sizeof seed);  // a fresh public hash family per run
        const auto p = block(m, eps, seed);
        REQUIRE(ldp::wire::validate(p) == ldp::status::ok);
        // The average of the closed form over the runs' parameter blocks (one block unless sketch).
        for (uint32_t v = 0; v < d; ++v) variance[v] += closed_form_variance(p, counts, v) / runs;
        std::unique_ptr<ldp::server::frequency_aggregator> agg;
        REQUIRE(ldp::server::frequency_aggregator::create(p, &agg) == ldp::status::ok);
        ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
        REQUIRE(oracle.code == ldp::status::ok);
        std::vector<unsigned char> payload(ldp::wire::max_payload_size(p));
        uint64_t failures = 0;
        for (uint32_t v = 0; v < d; ++v) {
          for (uint64_t u = 0; u < counts[v]; ++u) {
            std::size_t size = 0;
            if (ldp::wire::needs_device_secret(p)) {  // dBitFlip (E.3): every user a device of its own
              unsigned char secret[ldp::device::device_secret_size];
              rng.fill(secret, sizeof secret);
              failures += oracle->randomize_memoized(v, {secret, 0}, rng, payload, ldp::device::framing::payload,
                                                     &size) != ldp::status::ok;
            } else {
              failures += oracle->randomize(v, rng, payload, ldp::device::framing::payload, &size) != ldp::status::ok;
            }
            failures += agg->add_payload(ldp::span<const unsigned char>(payload.data(), size)) != ldp::status::ok;
          }
        }
        REQUIRE(failures == 0);
        const auto est = agg->estimate_all();
        REQUIRE(est.size() == d);
        for (uint32_t v = 0; v < d; ++v) {
          sum[v] += est[v].value;
          sum_sq[v] += est[v].value * est[v].value;
        }
      }
      for (uint32_t v = 0; v < d; ++v) {
        CAPTURE(v);
        const double mean = sum[v] / runs;
        const double s2 = (sum_sq[v] - runs * mean * mean) / (runs - 1);
        CHECK(std::fabs(mean - static_cast<double>(counts[v])) <= z_mean * std::sqrt(variance[v] / runs));
        const double stat = (runs - 1) * s2 / variance[v];
        const double upper_tail = ldp::test::chi_square_sf(stat, runs - 1);
        CHECK(upper_tail > alpha_variance / 2);
        CHECK(upper_tail < 1 - alpha_variance / 2);
      }
    }
  }
}
