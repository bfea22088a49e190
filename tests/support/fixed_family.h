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

}  // namespace ldp::test

#endif
