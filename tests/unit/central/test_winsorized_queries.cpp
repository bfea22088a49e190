// Exact checks of Levy et al.'s Cor. 1 default tau and Thm 3's session of adaptive queries
// (docs/mechanisms.md C.2 "The default tau (Cor. 1)" and "K adaptive queries (Thm 3)"): the tau
// formula, the bin width it gives, the session's budget arithmetic and reported loss, the refusal
// of query K + 1, and each query == WinsorizedMeanHighD on the users' averaged phi with the same
// random numbers. Deterministic: nothing here can fail by chance.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "ldp/random/drbg.h"
#include "ldp/server/central/winsorized_queries.h"
#include "ldp/wire/central_params.h"

namespace {

using ldp::span;
using ldp::status;
using ldp::server::winsorized_query_answer;
using ldp::server::winsorized_query_options;
using ldp::server::winsorized_query_session;

const unsigned char seed[32] = {7, 1, 7};

// n users holding `count` samples of 2 reals each: sample k of user u is (u + k / 10, -u / 100 + k).
struct population {
  std::vector<std::vector<double>> data;
  std::vector<span<const double>> users;
  population(std::size_t n, std::size_t count) : data(n) {
    for (std::size_t u = 0; u < n; ++u) {
      for (std::size_t k = 0; k < count; ++k) {
        data[u].push_back(static_cast<double>(u % 7) / 7 + static_cast<double>(k) / 10);
        data[u].push_back(-static_cast<double>(u % 5) / 100 + static_cast<double>(k));
      }
    }
    for (const auto& d : data) users.push_back(d);
  }
};

winsorized_query_options options(uint64_t queries, double delta = 0) {
  winsorized_query_options o;
  o.epsilon = 1;
  o.delta = delta;
  o.queries = queries;
  o.dim = 3;  // d~ = 4
  o.lo = -1;
  o.hi = 1;
  o.frac_bits = 10;
  o.observations = 4;
  return o;
}

}  // namespace

TEST_CASE("Cor. 1 tau: Hoeffding over users and coordinates, capped at the whole box; its bin width") {
  // width sqrt(d ln(2 n d / gamma) / (2 m)): W = 2, d = 4, m = 1000, n = 500, gamma = 1e-3.
  const double expected = 2 * std::sqrt(4 * std::log(2 * 500 * 4 / 1e-3) / (2 * 1000));
  CHECK(ldp::server::user_mean_tau(2, 4, 1000, 500, 1e-3) == doctest::Approx(expected).epsilon(1e-14));
  CHECK(expected == doctest::Approx(0.348733).epsilon(1e-5));
  // It falls like 1 / sqrt(m): a hundred times the samples, a tenth of the radius.
  CHECK(ldp::server::user_mean_tau(2, 4, 100000, 500, 1e-3) == doctest::Approx(expected / 10).epsilon(1e-12));
  // Few samples: the whole box's radius, W sqrt(d) / 2, which holds every mean.
  CHECK(ldp::server::user_mean_tau(2, 4, 3, 500, 1e-3) == 2.0);
  CHECK(std::isnan(ldp::server::user_mean_tau(2, 4, 0, 500, 1e-3)));
  CHECK(std::isnan(ldp::server::user_mean_tau(2, 4, 10, 0, 1e-3)));
  CHECK(std::isnan(ldp::server::user_mean_tau(2, 4, 10, 5, 0)));
  CHECK(std::isnan(ldp::server::user_mean_tau(0, 4, 10, 5, 0.1)));
  // The bin half width: ceil(tau' sqrt(d~) 2^f) with tau' = rotated_tau (Hoeffding), within [1, B].
  const double rotated = ldp::server::rotated_tau(0.3, 4, 500, 1e-3, ldp::server::tau_rule::hoeffding);
  CHECK(ldp::server::rotated_bin_half_width(0.3, 4, 500, 1e-3, 10, 1u << 20) ==
        static_cast<uint64_t>(std::ceil(rotated * 2 * 1024)));
  CHECK(ldp::server::rotated_bin_half_width(0.3, 4, 500, 1e-3, 10, 100) == 100);
  CHECK(ldp::server::rotated_bin_half_width(1e-9, 4, 500, 1e-3, 10, 100) == 1);
  CHECK(ldp::server::rotated_bin_half_width(0.3, 4, 500, 0, 10, 100) == 0);
}

TEST_CASE("session budget: epsilon' per query, the loss after k queries, never above (epsilon, delta)") {
  const population pop(40, 6);
  for (const double delta : {0.0, 1e-6}) {
    CAPTURE(delta);
    winsorized_query_session s;
    REQUIRE(winsorized_query_session::create(options(3, delta), pop.users, 2, seed, &s) == status::ok);
    double expected = 0;
    REQUIRE(ldp::server::query_step_epsilon(1, delta, 3, 4, ldp::server::budget_rule::tight, &expected) == status::ok);
    CHECK(s.budget().eps_coordinate() == expected);
    CHECK(s.budget().rotated_dim() == 4);
    CHECK(s.spent().epsilon == 0);
    for (uint64_t k = 1; k <= 3; ++k) {
      winsorized_query_answer a;
      REQUIRE(s.ask([](span<const double> z, span<double> v) { v[0] = v[1] = v[2] = z[0]; }, &a) == status::ok);
      CHECK(a.query == k - 1);
      CHECK(a.eps_coordinate == expected);
      // PrivateRange at eps'/2 rounded down to 2^-32 steps, the noise at eps'/2 (1 + 2^-40)^-1 or less.
      CHECK(a.epsilon_impl <= expected);
      CHECK(a.epsilon_impl > expected * (1 - 1e-8));
      const ldp::server::privacy_loss loss = s.spent();
      const ldp::server::privacy_loss k_mechanisms = ldp::server::composed_loss(a.epsilon_impl, 4 * k, delta);
      CHECK(loss.epsilon == k_mechanisms.epsilon);
      CHECK(loss.delta == k_mechanisms.delta);
      CHECK(loss.epsilon <= 1);
      CHECK(loss.delta <= delta);
      CHECK(s.remaining() == 3 - k);
    }
    // With all K asked the loss is the session's epsilon up to the implemented levels' rounding.
    CHECK(s.spent().epsilon > 1 - 1e-8);
  }
}

TEST_CASE("query K + 1 is budget_exhausted: phi is not called, nothing more is spent") {
  const population pop(30, 5);
  winsorized_query_session s;
  REQUIRE(winsorized_query_session::create(options(2), pop.users, 2, seed, &s) == status::ok);
  int calls = 0;
  const auto phi = [&calls](span<const double> z, span<double> v) {
    ++calls;
    v[0] = z[0];
  };
  winsorized_query_answer a;
  REQUIRE(s.ask(phi, &a) == status::ok);
  REQUIRE(s.ask(phi, &a) == status::ok);
  CHECK(calls == 2 * 30 * 4);  // every user's first m = 4 of its 5 samples, once per query
  const double spent = s.spent().epsilon;
  CHECK(s.ask(phi, &a) == status::budget_exhausted);
  CHECK(s.ask(phi, &a) == status::budget_exhausted);
  CHECK(calls == 2 * 30 * 4);
  CHECK(a.mean.empty());
  CHECK(s.spent().epsilon == spent);
  CHECK(s.remaining() == 0);
  CHECK(s.asked() == 2);
}

TEST_CASE("a query is WinsorizedMeanHighD on the users' averaged phi: first m samples, clamped, NaN at the centre") {
  const population pop(25, 6);
  winsorized_query_options o = options(2);
  o.lo = -0.5;
  o.hi = 2;
  winsorized_query_session s;
  REQUIRE(winsorized_query_session::create(o, pop.users, 2, seed, &s) == status::ok);
  // Coordinate 0 leaves the box above, coordinate 1 below and is NaN for odd k (the centre 0.75 =
  // 768 / 1024), coordinate 2 is left unwritten (the centre).
  const auto phi = [](span<const double> z, span<double> v) {
    v[0] = z[0] + z[1];
    v[1] = std::lround(z[1]) % 2 == 1 ? std::nan("") : z[0] - 1;
  };
  // The same computation by hand: the session's DRBG draws the rotation seed, then the mechanisms.
  ldp::random::drbg rng(seed);
  winsorized_query_answer answers[2];
  for (int q = 0; q < 2; ++q) {
    unsigned char rotation[32];
    rng.fill(rotation, sizeof rotation);
    ldp::wire::params round1;
    const int64_t lo = -512, hi = 2048;  // the box on the grid of f = 10
    REQUIRE(ldp::wire::make_winsorized_bins(3, 10, lo, hi, 4, 3 * 2048, s.bin_half_width(), rotation, &round1) ==
            status::ok);
    std::vector<int64_t> means;
    for (const auto& user : pop.data) {
      int64_t sums[3] = {0, 0, 0};
      for (std::size_t k = 0; k < 4; ++k) {  // m = 4 of the 6 samples
        const double x = user[2 * k], y = user[2 * k + 1];
        sums[0] += static_cast<int64_t>(std::nearbyint(std::min(x + y, 2.0) * 1024));  // half to even, as B.0
        sums[1] += k % 2 == 1 ? 768 : static_cast<int64_t>(std::nearbyint(std::max(x - 1, -0.5) * 1024));
        sums[2] += 768;
      }
      for (int64_t v : sums) means.push_back(ldp::wire::rounded_mean(v, 4));
    }
    ldp::server::winsorized_highd_result expected;
    REQUIRE(ldp::server::winsorized_mean_highd(round1, means, s.budget().eps_coordinate(),
                                               ldp::server::window_rule::safe, rng, &expected) == status::ok);
    REQUIRE(s.ask(phi, &answers[q]) == status::ok);
    CHECK(answers[q].mean == expected.release.mean);
    CHECK(answers[q].noise_variance == expected.release.noise_variance);
  }
  CHECK(answers[0].mean != answers[1].mean);  // fresh rotation and noise per query
}

TEST_CASE("the session's default tau is Cor. 1's; create refuses what no query could run") {
  const population pop(50, 8);
  winsorized_query_options o = options(1);
  winsorized_query_session s;
  REQUIRE(winsorized_query_session::create(o, pop.users, 2, seed, &s) == status::ok);
  CHECK(s.tau() == ldp::server::user_mean_tau(2, 3, 4, 50, 1e-3));
  o.tau = 0.25;
  REQUIRE(winsorized_query_session::create(o, pop.users, 2, seed, &s) == status::ok);
  CHECK(s.tau() == 0.25);
  CHECK(s.bin_half_width() == ldp::server::rotated_bin_half_width(0.25, 4, 50, 1e-3, 10, 3 * 1024));

  const auto refused = [&](winsorized_query_options bad, std::size_t sample_dim = 2) {
    winsorized_query_session t;
    return winsorized_query_session::create(bad, pop.users, sample_dim, seed, &t) == status::invalid_argument;
  };
  winsorized_query_options bad = options(1);
  bad.queries = 0;
  CHECK(refused(bad));
  bad = options(1);
  bad.lo = 1;
  CHECK(refused(bad));
  bad = options(1);
  bad.epsilon = 1e-12;  // PrivateRange could not implement epsilon' / 2
  CHECK(refused(bad));
  bad = options(1);
  bad.gamma = 1;
  CHECK(refused(bad));
  bad = options(1);
  bad.delta = 1;
  CHECK(refused(bad));
  CHECK(refused(options(1), 0));
  CHECK(refused(options(1), 3));  // 16 reals a user are not samples of 3 reals
  std::vector<span<const double>> none;
  winsorized_query_session t;
  CHECK(winsorized_query_session::create(options(1), none, 2, seed, &t) == status::invalid_argument);
  const std::vector<double> empty;
  std::vector<span<const double>> with_empty = pop.users;
  with_empty.push_back(empty);
  CHECK(winsorized_query_session::create(options(1), with_empty, 2, seed, &t) == status::invalid_argument);
  // A session create refused answers nothing.
  winsorized_query_answer a;
  CHECK(t.ask([](span<const double>, span<double>) {}, &a) == status::invalid_argument);
  // An empty phi is refused before any budget is spent.
  REQUIRE(winsorized_query_session::create(options(1), pop.users, 2, seed, &s) == status::ok);
  CHECK(s.ask(ldp::server::query_function{}, &a) == status::invalid_argument);
  CHECK(s.remaining() == 1);
}
