// Goodness of fit of every exact sampler against its exact law (docs/mechanisms.md D.3).
// Each CHECK on a p-value tests at alpha_check = 1e-7, so a test case with m such checks fails a
// correct implementation with probability at most m * 1e-7 <= 1e-6. Seeds are fixed (derived from
// the test's name), so CI is deterministic; the power of each check is stated beside it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ldp/random.h"
#include "ldp/server/central/exact_sampling.h"
#include "stats.h"
#include "tables.h"

namespace {

constexpr double alpha_check = 1e-7;

}  // namespace

TEST_CASE("uniform_below is uniform, including n just above 2^31 where modulo bias is largest") {
  auto rng = ldp::test::seeded_drbg("uniform_below gof");
  constexpr uint64_t draws = 1000000;
  // n = 7 and 1000: a 2% relative excess in one bin is detected with probability > 0.99 at n = 7.
  for (uint32_t n : {7u, 1000u}) {
    std::vector<uint64_t> counts(n, 0);
    for (uint64_t i = 0; i < draws; ++i) ++counts[ldp::random::uniform_below(rng, n)];
    const auto r = ldp::test::chi_square_gof(counts, std::vector<double>(n, 1.0), draws);
    CAPTURE(n);
    CHECK(r.p_value > alpha_check);
  }
  // n = 2^31 + 1 in 8 equal bins: plain "x mod n" would double the weight of the lower half.
  const uint32_t n = 0x80000001u;
  std::vector<uint64_t> counts(8, 0);
  for (uint64_t i = 0; i < draws; ++i) {
    ++counts[static_cast<std::size_t>(uint64_t{ldp::random::uniform_below(rng, n)} * 8 / n)];
  }
  std::vector<double> p(8, 0.125);
  CHECK(ldp::test::chi_square_gof(counts, p, draws).p_value > alpha_check);
}

TEST_CASE("bernoulli and bern_exp hit their exact probabilities (Clopper-Pearson)") {
  auto rng = ldp::test::seeded_drbg("bernoulli gof");
  constexpr uint64_t draws = 1000000;
  // Interval half-width at p = 0.1 is about 0.0016: a 2% relative error is detected.
  for (uint64_t threshold : {uint64_t{429496730}, uint64_t{77309411}, uint64_t{0xc0000000u}}) {
    uint64_t ones = 0;
    for (uint64_t i = 0; i < draws; ++i) ones += ldp::random::bernoulli(rng, threshold);
    const auto ci = ldp::test::clopper_pearson(ones, draws, alpha_check);
    const double p = std::ldexp(static_cast<double>(threshold), -32);
    CAPTURE(threshold);
    CHECK(ci.lo <= p);
    CHECK(p <= ci.hi);
  }
  const struct { uint64_t a, b; } gammas[] = {{1, 3}, {1, 1}, {5, 2}, {7, 7000}, {0, 1}};
  for (auto g : gammas) {
    uint64_t ones = 0;
    for (uint64_t i = 0; i < draws; ++i) ones += ldp::random::bern_exp(rng, g.a, g.b);
    const auto ci = ldp::test::clopper_pearson(ones, draws, alpha_check);
    const double p = std::exp(-static_cast<double>(g.a) / static_cast<double>(g.b));
    CAPTURE(g.a);
    CAPTURE(g.b);
    CHECK(ci.lo <= p);
    CHECK(p <= ci.hi);
  }
}

TEST_CASE("geometric matches (1 - e^{-1/t}) e^{-y/t}") {
  auto rng = ldp::test::seeded_drbg("geometric gof");
  constexpr uint64_t draws = 1000000;
  // t = 5/2 and t = 40: a scale off by 1% shifts the mean by 1% (about 10 standard errors).
  for (auto [num, den] : {std::pair<uint64_t, uint64_t>{5, 2}, {40 * 65536, 65536}}) {
    const double t = static_cast<double>(num) / static_cast<double>(den);
    const double a = std::exp(-1.0 / t);
    const int bins = static_cast<int>(12 * t) + 2;
    std::vector<double> p;
    double inside = 0;
    for (int y = 0; y < bins; ++y) {
      p.push_back((1 - a) * std::pow(a, y));
      inside += p.back();
    }
    p.push_back(1 - inside);
    std::vector<uint64_t> counts(p.size(), 0);
    for (uint64_t i = 0; i < draws; ++i) {
      const uint64_t y = ldp::random::geometric(rng, num, den);
      ++counts[y < static_cast<uint64_t>(bins) ? static_cast<std::size_t>(y) : p.size() - 1];
    }
    CAPTURE(t);
    CHECK(ldp::test::chi_square_gof(counts, p, draws).p_value > alpha_check);
  }
}

TEST_CASE("discrete Laplace matches its pmf, zero included once") {
  auto rng = ldp::test::seeded_drbg("dlap gof");
  constexpr uint64_t draws = 1000000;
  // Forgetting the (negative, 0) rejection doubles P(0): at t = 3 that moves 16% of the mass.
  for (auto [num, den] : {std::pair<uint64_t, uint64_t>{3 * 65536, 65536}, {7, 10}}) {
    const double t = static_cast<double>(num) / static_cast<double>(den);
    const int m = static_cast<int>(12 * t) + 2;
    const auto p = ldp::test::discrete_laplace_pmf(t, m);
    std::vector<uint64_t> counts(p.size(), 0);
    int64_t sum = 0;
    for (uint64_t i = 0; i < draws; ++i) {
      const int64_t y = ldp::random::discrete_laplace(rng, num, den);
      sum += y;
      ++counts[std::abs(y) <= m ? static_cast<std::size_t>(y + m) : p.size() - 1];
    }
    CAPTURE(t);
    CHECK(ldp::test::chi_square_gof(counts, p, draws).p_value > alpha_check);
    // Symmetry: the mean is 0 with variance 2a/(1-a)^2 per draw; |z| < 5.3 has tail below 1e-7.
    const double a = std::exp(-1.0 / t);
    const double sd = std::sqrt(2 * a / ((1 - a) * (1 - a)) / draws);
    CHECK(std::abs(static_cast<double>(sum) / draws) < 5.3 * sd);
  }
}

TEST_CASE("bulk Bernoulli masks: every position has the implemented probability") {
  // R masks of k bits; position j's count is Binomial(R, p). The sum over positions of the squared
  // standardized deviations is chi-square with k degrees of freedom. A position off by 5% relative
  // (e.g. a lane using a wrong threshold) or a whole mask off by 1% is detected.
  constexpr std::size_t k = 1000;  // not a multiple of 256: the tail chunk is covered
  constexpr std::size_t masks = 4000;
  for (const auto* t : ldp::test::runnable_tables()) {
    for (uint64_t threshold : {uint64_t{1} << 31, uint64_t{429496730}, uint64_t{77309411}}) {
      unsigned char seed[32];
      ldp::test::seed_from_name("mask positions", seed);
      seed[0] ^= static_cast<unsigned char>(threshold);
      ldp::random::drbg rng(seed, *t);
      std::vector<uint64_t> counts(k, 0), mask((k + 63) / 64);
      for (std::size_t r = 0; r < masks; ++r) {
        REQUIRE(ldp::random::fill_bernoulli_mask(rng, mask, k, threshold) == ldp::status::ok);
        for (std::size_t j = 0; j < k; ++j) counts[j] += (mask[j / 64] >> (j % 64)) & 1;
      }
      const double p = std::ldexp(static_cast<double>(threshold), -32);
      const double mean = masks * p, var = masks * p * (1 - p);
      double stat = 0, total = 0;
      for (uint64_t c : counts) {
        stat += (static_cast<double>(c) - mean) * (static_cast<double>(c) - mean) / var;
        total += static_cast<double>(c);
      }
      const std::string table_name = t->name;
      CAPTURE(table_name);
      CAPTURE(threshold);
      CHECK(ldp::test::chi_square_sf(stat, k) > alpha_check);
      const auto ci = ldp::test::clopper_pearson(static_cast<uint64_t>(total), k * masks, alpha_check);
      CHECK(ci.lo <= p);
      CHECK(p <= ci.hi);
    }
  }
}

TEST_CASE("poisson_one is Poisson(1), and bern_65_over_24e is P(Poisson(1) <= 4)") {
  // The server's exact exponential mechanism (PrivateRange) rests on these two. 400000 draws of k in
  // 0..6 plus a rest bin: a 2% relative error in P(k = 2) (mass 0.18) is detected with probability >
  // 0.99. Two checks at alpha_check.
  auto rng = ldp::test::seeded_drbg("poisson one gof");
  constexpr uint64_t draws = 400000;
  std::vector<uint64_t> counts(8, 0);
  std::vector<double> pmf(8, 0.0);
  double factorial = 1;
  for (int k = 0; k < 7; ++k) {
    if (k > 0) factorial *= k;
    pmf[static_cast<std::size_t>(k)] = std::exp(-1.0) / factorial;
    pmf[7] -= pmf[static_cast<std::size_t>(k)];
  }
  pmf[7] += 1;
  for (uint64_t i = 0; i < draws; ++i)
    ++counts[static_cast<std::size_t>(std::min<uint64_t>(ldp::server::detail::poisson_one(rng), 7))];
  CHECK(ldp::test::chi_square_gof(counts, pmf, draws).p_value > alpha_check);
  uint64_t hits = 0;
  for (uint64_t i = 0; i < draws; ++i) hits += ldp::server::detail::bern_65_over_24e(rng) ? 1 : 0;
  const double p = 65 / (24 * std::exp(1.0));
  CHECK(ldp::test::chi_square_gof({hits, draws - hits}, {p, 1 - p}, draws).p_value > alpha_check);
}
