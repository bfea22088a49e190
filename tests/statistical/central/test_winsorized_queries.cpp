// Thm 3's session with a genuinely adaptive second query (docs/mechanisms.md C.2 "K adaptive queries
// (Thm 3)"): phi_1(z) = z estimates the mean, phi_2(z) = (z - a_1)^2 the spread around the released
// a_1. Each answer is compared with the exact mean of the users' averaged phi_k (the phi_2 of the
// a_1 the session released), in units of its reported noise standard deviation. Fixed seeds; the
// false-failure probability of every check is stated at it.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "ldp/random/drbg.h"
#include "ldp/server/central/winsorized_queries.h"

namespace {

using ldp::span;
using ldp::status;

}  // namespace

TEST_CASE("adaptive queries: answers within their noise of the exact means, noise of the stated size") {
  // n = 400 users with m = 100 samples, uniform on [0, 1]; epsilon 1 for K = 2 queries (epsilon' =
  // 0.5, delta 0). Cor. 1's tau (gamma 1e-3) is 1 sqrt(ln(800 / 1e-3) / 200) = 0.26: with d~ = 1
  // the rotation is x -> +-x, and the bins over [-1, 1] are 4, midpoints -0.74, -0.22, 0.30, 0.83,
  // windows +-0.78. Every user's averaged phi lies within 0.39 of its expectation (1/2, or about
  // 1/12 for phi_2) but for 2 e^-35 (Bernstein: variance <= 1/12, range 1, m = 100; 4e-11 for all
  // 40,000); then every bin whose window would clip a user has all users on one side and scores
  // c = n, against at most n / 2 for the median's bin, so PrivateRange at epsilon' / 2 = 0.25 picks
  // one with probability below 4 e^-25 = 6e-11 per query: nothing is clipped,
  // and answer - exact is DLap(t) / n (t ~ 4.5e6 grid units: as continuous as matters here) plus the
  // grid's rounding (below 1e-4 sd), so |error| / sd is Exp(1) / sqrt(2).
  const std::size_t n = 400, m = 100, runs = 50;
  ldp::server::winsorized_query_options o;
  o.epsilon = 1;
  o.queries = 2;
  o.dim = 1;
  o.lo = 0;
  o.hi = 1;
  o.frac_bits = 20;
  o.observations = static_cast<uint32_t>(m);
  const unsigned char data_seed[32] = {'l', 'e', 'v', 'y', 3};
  ldp::random::drbg data_rng(data_seed);
  double abs_z = 0;
  for (std::size_t run = 0; run < runs; ++run) {
    std::vector<std::vector<double>> data(n, std::vector<double>(m));
    std::vector<span<const double>> users;
    for (auto& user : data) {
      for (double& z : user) z = static_cast<double>(data_rng.next_u64() >> 11) * 0x1p-53;
      users.push_back(user);
    }
    unsigned char seed[32] = {9, 9};
    seed[2] = static_cast<unsigned char>(run);
    ldp::server::winsorized_query_session s;
    REQUIRE(ldp::server::winsorized_query_session::create(o, users, 1, seed, &s) == status::ok);
    CHECK(s.tau() == doctest::Approx(std::sqrt(std::log(800 / 1e-3) / 200)));

    const auto exact = [&](const auto& phi) {  // the mean over users of their averaged phi
      double total = 0;
      for (const auto& user : data) {
        double sum = 0;
        for (double z : user) sum += std::min(std::max(phi(z), 0.0), 1.0);
        total += sum / static_cast<double>(m);
      }
      return total / static_cast<double>(n);
    };
    ldp::server::winsorized_query_answer a1, a2;
    REQUIRE(s.ask([](span<const double> z, span<double> v) { v[0] = z[0]; }, &a1) == status::ok);
    const double centre = a1.mean[0];  // chosen after seeing answer 1
    REQUIRE(s.ask([centre](span<const double> z, span<double> v) { v[0] = (z[0] - centre) * (z[0] - centre); }, &a2) ==
            status::ok);
    const double truth1 = exact([](double z) { return z; });
    const double truth2 = exact([centre](double z) { return (z - centre) * (z - centre); });
    // Each |error| / sd is Exp(1) / sqrt(2): beyond 14 with probability e^-19.8 = 2.5e-9, 100 checks 2.5e-7.
    for (const auto& [a, truth] : {std::pair{&a1, truth1}, std::pair{&a2, truth2}}) {
      const double z = std::abs(a->mean[0] - truth) / std::sqrt(a->noise_variance);
      CHECK(z < 14);
      abs_z += z;
    }
    // Answer 2 estimates the spread of uniform samples, 1/12 (plus (a_1 - 1/2)^2), not of anything else.
    CHECK(std::abs(truth2 - 1.0 / 12) < 0.01);
    CHECK(s.ask([](span<const double>, span<double>) {}, &a1) == status::budget_exhausted);
  }
  // The mean of 100 values Exp(1) / sqrt(2) is Gamma(100, 100) / sqrt(2): within [0.4135, 1.1085]
  // but for 5e-7 on each side; a noise of twice (1.41) or half (0.35) the reported scale leaves it.
  const double mean_abs_z = abs_z / static_cast<double>(2 * runs);
  CHECK(mean_abs_z > 0.41);
  CHECK(mean_abs_z < 1.11);
}
