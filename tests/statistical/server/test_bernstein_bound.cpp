// Lemma 18 of Wang, Gaboardi, Smith, Xu as ldpkit states it (server::bernstein_grid_error_bound,
// docs/mechanisms.md H.1): with the `bernstein` mechanism's noise -- discrete Laplace of scale
// N Q / eps grid units per grid value, i.e. N / eps in loss units -- the largest error of the N
// grid means exceeds the bound with probability at most beta. Simulated at the smallest n the bound
// is stated for (n >= ln(2 N / beta), where Laplace tails matter most) and at a larger n.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "ldp/random/samplers.h"
#include "ldp/server/bernstein.h"
#include "stats.h"
#include "tables.h"

TEST_CASE("the grid error bound holds with probability at least 1 - beta") {
  // N = 4 (p = 2, k = 1), Q = 2^8, eps = 1: scale t = N Q / eps = 1024 grid units. beta = 0.1.
  // Exceedance of a continuous-Laplace model (numpy, 10^5 and 2 10^4 runs): 0.026 at n = 5, 0.012
  // at n = 100; a bound without the factor 2, or with sqrt(N) for N (the same here), 0.43 and 0.45.
  const ldp::server::bernstein_grid g{2, 1};
  const uint64_t points = ldp::server::grid_points(g);
  const double q = 256, epsilon = 1, beta = 0.1;
  const auto scale = static_cast<uint64_t>(static_cast<double>(points) * q / epsilon);
  auto rng = ldp::test::seeded_drbg("bernstein grid bound");
  for (const uint64_t n : {uint64_t{5}, uint64_t{100}}) {
    const double bound = ldp::server::bernstein_grid_error_bound(g, n, epsilon, beta);
    REQUIRE(std::isfinite(bound));
    const uint64_t runs = 4000;
    uint64_t exceeded = 0;
    for (uint64_t r = 0; r < runs; ++r) {
      double largest = 0;
      for (uint64_t v = 0; v < points; ++v) {
        int64_t sum = 0;
        for (uint64_t i = 0; i < n; ++i) sum += ldp::random::discrete_laplace(rng, scale, 1);
        largest = std::fmax(largest, std::fabs(static_cast<double>(sum) / (static_cast<double>(n) * q)));
      }
      if (largest > bound) ++exceeded;
    }
    // False failure: the Clopper-Pearson lower end at 1e-6 exceeds beta only if the true rate does.
    const auto ci = ldp::test::clopper_pearson(exceeded, runs, ldp::test::default_alpha);
    CHECK(ci.lo <= beta);
    MESSAGE("n = " << n << ": bound " << bound << ", exceeded in " << exceeded << " of " << runs);
  }
}
