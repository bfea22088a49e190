// The check of a variance conditional on a fixed public hash family (docs/mechanisms.md A.4, A.6,
// D.3): repeated runs with fresh device coins only, each giving rho = sum_v (c-hat_v - c_v)^2 /
// sum_v Var-hat_v. Shared by the statistical tests of the sketches and of FLH.
#ifndef LDP_TESTS_SUPPORT_FIXED_FAMILY_H
#define LDP_TESTS_SUPPORT_FIXED_FAMILY_H

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/server/frequency.h"
#include "ldp/wire.h"
#include "tables.h"

namespace ldp::test {

struct mean_and_error {
  double mean;
  double error;  // standard error of the mean
};

inline mean_and_error summarize(const std::vector<double>& xs) {
  double sum = 0, squares = 0;
  for (double x : xs) sum += x;
  const double mean = sum / static_cast<double>(xs.size());
  for (double x : xs) squares += (x - mean) * (x - mean);
  return {mean, std::sqrt(squares / static_cast<double>(xs.size() - 1) / static_cast<double>(xs.size()))};
}

// The test families' users: 2800/(v + 1) of item v < d (n = 9,463 at d = 16).
inline std::vector<uint64_t> zipf_like_counts(uint32_t d) {
  std::vector<uint64_t> c(d);
  for (uint32_t v = 0; v < d; ++v) c[v] = 2800 / (v + 1);
  return c;
}

// n = sum_x c_x and the collision sum of the averaged forms, sum_{x != v} c_x (c_x - 1).
struct count_sums {
  double n = 0;
  double collisions = 0;
};

inline count_sums sums_except(const std::vector<uint64_t>& c, std::size_t v) {
  count_sums out;
  for (std::size_t x = 0; x < c.size(); ++x) {
    const auto cx = static_cast<double>(c[x]);
    out.n += cx;
    if (x != v) out.collisions += cx * (cx - 1);
  }
  return out;
}

// Per run, rho against the reported variances (`reported`) and against `averaged`, a fixed sum of
// variances (`before`).
struct family_ratios {
  std::vector<double> reported;
  std::vector<double> before;
};

// `runs` runs of counts[v] users of each item v through block p (device coins from `rng_name`);
// checks that every estimate's variance is of kind exact.
inline family_ratios run_fixed_family(const wire::params& p, const std::vector<uint64_t>& counts, double averaged,
                                      int runs, const char* rng_name) {
  const auto d = static_cast<uint32_t>(counts.size());
  auto rng = seeded_drbg(rng_name);
  owned_context<device::frequency_context> oracle(p);
  REQUIRE(oracle.code == status::ok);
  std::vector<unsigned char> payload(wire::max_payload_size(p));
  family_ratios out;
  for (int run = 0; run < runs; ++run) {
    std::unique_ptr<server::frequency_aggregator> agg;
    REQUIRE(server::frequency_aggregator::create(p, &agg) == status::ok);
    uint64_t failures = 0;
    for (uint32_t v = 0; v < d; ++v) {
      for (uint64_t u = 0; u < counts[v]; ++u) {
        std::size_t size = 0;
        failures += oracle->randomize(v, rng, payload, device::framing::payload, &size) != status::ok;
        failures += agg->add_payload(span<const unsigned char>(payload.data(), size)) != status::ok;
      }
    }
    REQUIRE(failures == 0);
    const auto est = agg->estimate_all();
    REQUIRE(est.size() == d);
    double squares = 0, variances = 0;
    for (uint32_t v = 0; v < d; ++v) {
      const double error = est[v].value - static_cast<double>(counts[v]);
      squares += error * error;
      variances += est[v].variance;
      CHECK(est[v].kind == server::variance_kind::exact);
    }
    out.reported.push_back(squares / variances);
    out.before.push_back(squares / averaged);
  }
  return out;
}

// The two checks of a fixed family: the mean of rho against the reported variances is 1 within
// `allowance` plus z standard errors, and the mean against the averaged form is not (the family's
// collisions show).
inline void check_fixed_family(const family_ratios& ratios, double allowance, double z) {
  const mean_and_error now = summarize(ratios.reported), then = summarize(ratios.before);
  CAPTURE(now.mean);
  CAPTURE(now.error);
  CAPTURE(then.mean);
  CAPTURE(then.error);
  CHECK(std::fabs(now.mean - 1) <= allowance + z * now.error);
  CHECK(std::fabs(then.mean - 1) > allowance + z * then.error);
}

}  // namespace ldp::test

#endif
