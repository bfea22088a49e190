// A Monte-Carlo audit of one DP-SGD step (docs/mechanisms.md I.1): neighbouring user sets that
// differ in one user (its gradient +1 or -1000 on a grid of unit steps, clipped to C = 1), the
// released noisy sum drawn N times under each. Checks: the noise is N_Z(0, sigma2) around the
// exact clipped sum (mean and variance against the exact law's moments), and no threshold event
// breaks the (epsilon, delta) the accountant claims (hockey-stick divergence at epsilon, both
// directions). Each check allows 5.7 standard errors: about 1e-8 each, under 1e-6 for the file.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "ldp/random/drbg.h"
#include "ldp/server/central/accountant.h"
#include "ldp/server/central/dp_sgd.h"

namespace {

using ldp::span;
using ldp::status;
namespace server = ldp::server;

const unsigned char seed[32] = {15, 2, 1};
constexpr double z = 5.7;

// The exact variance of N_Z(0, sigma2): sum of k^2 e^{-k^2 / (2 sigma2)} over the normalizer.
double discrete_gaussian_variance(double sigma2) {
  double mass = 0, second = 0;
  for (int k = -2000; k <= 2000; ++k) {
    const double w = std::exp(-static_cast<double>(k) * k / (2 * sigma2));
    mass += w;
    second += static_cast<double>(k) * k * w;
  }
  return second / mass;
}

std::vector<int64_t> draws(double first_user, uint64_t sigma2, ldp::random::drbg& rng, int n) {
  const server::dp_sgd_gradient users = [&](uint64_t u, span<const double>, span<int64_t> out) {
    out[0] = u == 0 ? static_cast<int64_t>(first_user) : 1;
    return status::ok;
  };
  const std::vector<double> w{0};
  std::vector<int64_t> out;
  std::vector<int64_t> sum(1);
  for (int i = 0; i < n; ++i) {
    REQUIRE(server::dp_sgd_noisy_sum(users, 3, w, 1, sigma2, rng, sum) == status::ok);
    out.push_back(sum[0]);
  }
  return out;
}

// p = P[X >= t] under `a`, q under `b`: p - e^eps q <= delta + z se for every t.
void check_hockey_stick(const std::vector<int64_t>& a, const std::vector<int64_t>& b, double epsilon, double delta,
                        int sign) {
  std::map<int64_t, double> tail_a, tail_b;
  const double n = static_cast<double>(a.size());
  for (int64_t t = -40; t <= 44; ++t) {
    double p = 0, q = 0;
    for (const int64_t x : a) p += sign * x >= t ? 1 : 0;
    for (const int64_t x : b) q += sign * x >= t ? 1 : 0;
    p /= n;
    q /= n;
    const double se = std::sqrt(p * (1 - p) / n + std::exp(2 * epsilon) * q * (1 - q) / n);
    CAPTURE(t);
    CHECK(p - std::exp(epsilon) * q <= delta + z * se);
  }
}

}  // namespace

TEST_CASE("one DP-SGD step: exact noise law around the clipped sum, and no event beyond (epsilon, delta)") {
  const double epsilon = 1, delta = 1e-3;
  const uint64_t sigma2 = server::discrete_gaussian_sigma2_for(epsilon, delta, 1, 2);
  REQUIRE(sigma2 >= 1);
  const int n = 100000;
  ldp::random::drbg rng(seed);
  const std::vector<int64_t> d = draws(1, sigma2, rng, n);       // sum 3
  const std::vector<int64_t> d2 = draws(-1000, sigma2, rng, n);  // clipped to -1: sum 1
  const double v = discrete_gaussian_variance(static_cast<double>(sigma2));
  const double centers[] = {3, 1};
  const std::vector<int64_t>* samples[] = {&d, &d2};
  for (int k = 0; k < 2; ++k) {
    double m = 0, m2 = 0;
    for (const int64_t x : *samples[k]) {
      const double e = static_cast<double>(x) - centers[k];
      m += e;
      m2 += e * e;
    }
    m /= n;
    m2 /= n;
    CHECK(std::fabs(m) <= z * std::sqrt(v / n));
    // The fourth moment of N_Z is within a hair of 3 v^2 at these sigma2: se of m2 ~ v sqrt(2 / n).
    CHECK(std::fabs(m2 - v) <= z * v * std::sqrt(2.0 / n) * 1.01);
  }
  check_hockey_stick(d, d2, epsilon, delta, 1);
  check_hockey_stick(d2, d, epsilon, delta, -1);
}
