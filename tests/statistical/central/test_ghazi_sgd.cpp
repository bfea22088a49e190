// Ghazi et al. Alg 3 (docs/mechanisms.md I.3.4): the truncated geometric law of N by its exact masses,
// and the bias reduction -- the oracle's expectation equals that of the private mean of 2^(M+1) users
// (Blanchet-Glynn telescoping) and is closer to the true mean gradient than a plain minibatch mean's.
// Fixed seeds; each test states its false-failure probability.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/random/drbg.h"
#include "ldp/server/central/ghazi_sgd.h"
#include "stats.h"

namespace {

using ldp::span;
using ldp::status;
namespace server = ldp::server;

// Running mean and variance per coordinate.
struct moments {
  std::vector<double> sum, sum2;
  double n = 0;
  explicit moments(std::size_t d) : sum(d), sum2(d) {}
  void add(const std::vector<double>& x) {
    for (std::size_t j = 0; j < x.size(); ++j) {
      sum[j] += x[j];
      sum2[j] += x[j] * x[j];
    }
    n += 1;
  }
  double mean(std::size_t j) const { return sum[j] / n; }
  double se(std::size_t j) const { return std::sqrt((sum2[j] / n - mean(j) * mean(j)) / n); }
};

}  // namespace

TEST_CASE("N ~ TGeom(M): counts against P(N = k) = 2^(M-k) / (2^(M+1) - 1)") {
  // Pearson chi-square on 10^6 draws per M; the test fails when p < 10^-6 (false failure 10^-6 each).
  ldp::random::drbg rng(std::vector<unsigned char>(32, 21).data());
  for (unsigned m : {1u, 3u, 6u, 12u}) {
    CAPTURE(m);
    const uint64_t draws = 1000000;
    std::vector<uint64_t> counts(m + 1);
    for (uint64_t i = 0; i < draws; ++i) ++counts[server::ghazi_sample_level(rng, m)];
    std::vector<double> p(m + 1);
    for (unsigned k = 0; k <= m; ++k) p[k] = server::ghazi_level_probability(m, k);
    CHECK(ldp::test::chi_square_gof(counts, p, draws).p_value > 1e-6);
  }
}

TEST_CASE("Alg 3 reduces the projection's bias: E G = E A(all users), nearer the mean than A(4 users)") {
  // 16 users, d = 4, s = 1: user u's gradient is e_(u mod 4), so the mean is (1/4, ..., 1/4), on the
  // l1 sphere of radius G sqrt(s) = 1. A projects the noisy mean onto that ball: with noise of sd
  // 1/2 on one user's mean the projection shrinks small batches' means strongly, 16 users' little.
  // M = 3: the largest batch is every user, so E G = E A(16 users) exactly.
  server::ghazi_sgd_options o;
  o.users = 16;
  o.clip = 1;
  o.frac_bits = 8;
  o.sparsity = 1;
  o.max_level = 3;
  o.learning_rate = 1;
  o.steps = 1;
  const uint64_t sigma2 = 128 * 128;  // sd 1/2 in real units on a one-user sum
  const server::dp_sgd_gradient gradient = [](uint64_t u, span<const double>, span<int64_t> out) {
    out[static_cast<std::size_t>(u % 4)] = 256;
    return status::ok;
  };
  const std::vector<double> w(4);
  ldp::random::drbg rng(std::vector<unsigned char>(32, 22).data());
  const int trials = 150000;
  moments oracle(4), full(4), mini(4);
  std::vector<double> g(4);
  std::vector<uint64_t> everyone(16), four(4);
  for (std::size_t u = 0; u < 16; ++u) everyone[u] = u;
  for (int t = 0; t < trials; ++t) {
    const unsigned level = server::ghazi_sample_level(rng, 3);
    REQUIRE(server::ghazi_debiased_gradient(o, sigma2, level, gradient, w, rng, g) == status::ok);
    oracle.add(g);
    // A(16) and A(4) have far smaller variances: a quarter of the trials estimate them as well.
    if (t % 4 != 0) continue;
    REQUIRE(server::ghazi_private_mean(o, sigma2, gradient, w, everyone, rng, g) == status::ok);
    full.add(g);
    // The plain minibatch of about the oracle's expected size (E 2^(N+1) = 4 * 16/15 users).
    for (std::size_t i = 0; i < 4; ++i) four[i] = (static_cast<uint64_t>(t / 4) + i * 5) % 16;
    REQUIRE(server::ghazi_private_mean(o, sigma2, gradient, w, four, rng, g) == status::ok);
    mini.add(g);
  }
  // z = 5.6 per coordinate: two-sided 2.1e-8, 12 comparisons below 10^-6 together.
  const double z = 5.6;
  double bias_oracle = 0, bias_mini = 0, slack_oracle = 0, slack_mini = 0;
  for (std::size_t j = 0; j < 4; ++j) {
    CAPTURE(j);
    const double se = std::sqrt(oracle.se(j) * oracle.se(j) + full.se(j) * full.se(j));
    CHECK(std::fabs(oracle.mean(j) - full.mean(j)) <= z * se);
    bias_oracle += (oracle.mean(j) - 0.25) * (oracle.mean(j) - 0.25);
    bias_mini += (mini.mean(j) - 0.25) * (mini.mean(j) - 0.25);
    slack_oracle += oracle.se(j) * oracle.se(j);
    slack_mini += mini.se(j) * mini.se(j);
  }
  // ||b_hat - b|| <= z ||se|| on the same event; the oracle's bias bound below the minibatch's.
  CHECK(std::sqrt(bias_oracle) + z * std::sqrt(slack_oracle) < std::sqrt(bias_mini) - z * std::sqrt(slack_mini));
  MESSAGE("bias: oracle " << std::sqrt(bias_oracle) << " (se " << std::sqrt(slack_oracle) << "), A(4) "
                          << std::sqrt(bias_mini) << " (se " << std::sqrt(slack_mini) << ")");
}
