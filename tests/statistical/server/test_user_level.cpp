// Statistical tests of the Kent, Berrett, Yu protocols (docs/mechanisms.md C.1 tests 2, 4, 5; D.2 (b),
// D.3), end to end: devices write wire reports, the ordinary aggregators count them, the driver of
// ldp/server/user_level.h picks the cells and estimates (the runs and error measures:
// tests/support/user_level_runs.h; the slopes in d and alpha: test_user_level_rates.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/random.h"
#include "ldp/server.h"
#include "ldp/wire.h"
#include "stats.h"
#include "tables.h"
#include "user_level.h"
#include "user_level_runs.h"

using namespace ldp::test::kent;  // its names: status, aggregator, the user-level config, field, params

namespace {

// Observations on [-1, 1], at most `cap` of them used: the Monte-Carlo audits' blocks.
ldp::wire::kent_shape audit_shape(uint32_t cap) {
  ldp::wire::kent_shape s;
  s.clip_lo = -one;
  s.clip_hi = one;
  s.observations = cap;
  return s;
}

// An audit's verdict from k1 and k0 occurrences of its event E in `runs` reports each of two
// datasets: the Clopper-Pearson lower bound on the ratio P(E | first) / P(E | second) (1e-7 per
// proportion) stays within e^epsilon_impl, and the point estimate reaches 0.9 epsilon_impl.
void check_audit(uint64_t k1, uint64_t k0, uint64_t runs, double epsilon_impl) {
  const auto pi = ldp::test::clopper_pearson(k1, runs, 1e-7);
  const auto qi = ldp::test::clopper_pearson(k0, runs, 1e-7);
  CHECK(std::log(pi.lo / qi.hi) <= epsilon_impl);
  CHECK(std::log(static_cast<double>(k1) / static_cast<double>(k0)) >= 0.9 * epsilon_impl);
}

}  // namespace

TEST_CASE("Monte-Carlo audit of the vote (D.2 (b)): whole datasets at the two ends of the range") {
  // E = {bit of cell(lo) set, bit of cell(hi) clear}, ratio e^(alpha_impl) between the dataset
  // with every observation at lo and the one at hi (a tail past the cap of 8 changes nothing).
  // Clopper-Pearson at 1e-7 per proportion: false failure below 4e-7 per alpha; the 0.9 point
  // check is at least 6 standard errors from the truth at 100000 runs (it detects a per-bit keep
  // of e^(alpha/4) instead of e^(alpha/2), half the level).
  constexpr uint64_t runs = 100000;
  for (double alpha : {0.5, 1.0}) {
    CAPTURE(alpha);
    const ldp::wire::kent_shape s = audit_shape(8);
    const auto derived = ldp::wire::make_kent_vote(alpha, 10, s);
    REQUIRE(derived.code == status::ok);
    const params& p = derived.block;
    const std::vector<int64_t> low = {-one, -one, -one, -one, -one, -one, -one, -one, one, one, one, one};
    const std::vector<int64_t> high(8, one);
    const uint32_t v = ldp::wire::range_cell(p, -one), w = ldp::wire::range_cell(p, one);
    REQUIRE(v != w);
    auto rng = ldp::test::seeded_drbg(alpha < 1 ? "kent vote audit 0.5" : "kent vote audit 1");
    ldp::device::drbg_coins coins(rng);
    ldp::test::owned_context<ldp::device::user_level_context> voter(p);
    REQUIRE(voter.code == status::ok);
    const auto count = [&](const std::vector<int64_t>& data) {
      uint64_t hits = 0;
      for (uint64_t i = 0; i < runs; ++i) {
        ldp::wire::report r;
        REQUIRE(voter->vote_fields(data, coins, &r) == status::ok);
        const bool bv = ((r.bits[v / 8] >> (v % 8)) & 1) != 0, bw = ((r.bits[w / 8] >> (w % 8)) & 1) != 0;
        hits += bv && !bw;
      }
      return hits;
    };
    const uint64_t k1 = count(low), k0 = count(high);
    check_audit(k1, k0, runs, derived.epsilon_impl);
    CHECK(derived.epsilon_impl <= alpha);
  }
}

TEST_CASE("Monte-Carlo audit of the refinement (Table D.2, Kent P2): local means at L and U") {
  // E = {z <= L}: P(E | mean L) / P(E | mean U) = e^((U - L) / t) = e^(alpha_impl) exactly. The
  // same bounds and false-failure probability as the vote audit; the 0.9 check is at least 9
  // standard errors from the truth.
  constexpr uint64_t runs = 100000;
  for (double alpha : {0.5, 1.0}) {
    CAPTURE(alpha);
    const ldp::wire::kent_shape s = audit_shape(4);
    const int64_t lo = -one / 5, hi = one / 4;
    const auto derived = ldp::wire::make_kent_refine(alpha, lo, hi, s);
    REQUIRE(derived.code == status::ok);
    const params& p = derived.block;
    auto rng = ldp::test::seeded_drbg(alpha < 1 ? "kent refine audit 0.5" : "kent refine audit 1");
    ldp::test::owned_context<ldp::device::user_level_context> user(p);
    REQUIRE(user.code == status::ok);
    const auto count = [&](int64_t x) {
      // Observations outside the interval (x - 3, x + 3 around its ends) average to its end.
      const std::vector<int64_t> data = {x - 3, x + 3, x, x, -one, one};
      uint64_t hits = 0;
      for (uint64_t i = 0; i < runs; ++i) {
        unsigned char out[32];
        std::size_t size = 0;
        REQUIRE(user->randomize(data, rng, out, ldp::device::framing::payload, &size) == status::ok);
        ldp::wire::report r;
        REQUIRE(ldp::wire::decode_payload(p, {out, size}, &r) == status::ok);
        hits += r.value <= lo;
      }
      return hits;
    };
    const uint64_t k1 = count(lo), k0 = count(hi);
    check_audit(k1, k0, runs, derived.epsilon_impl);
  }
}

TEST_CASE("M1 on point-mass data: E mu-hat = mu and Var mu-hat = sigma_N^2 / m exactly (C.1 test 4)") {
  // 150 runs, n = 400 users (200 refine), T = 256 observations all equal to mu. The vote always
  // finds mu's cell (200 votes in one cell: a count gap of 10 standard deviations), so the
  // interval is fixed and mu-hat - mu is a mean of 200 discrete Laplace draws: a z-test of the mean
  // (|z| <= 5, false failure 6e-7) and the chi-square(150) statistic of sum (mu-hat - mu)^2 / var
  // (two-sided at 1e-6). Detects a bias of 0.45 standard errors of mu-hat, and a noise variance
  // off by a factor 1.9.
  user_level_config c;
  c.users = 400;
  c.observations = 256;
  c.plan = user_level_plan::two_stage;
  c.cap = 1000;
  user_level_protocol p;
  REQUIRE(user_level_protocol::create(c, &p) == status::ok);
  const int64_t mu_fixed = 19661;  // 0.3 on the grid
  const double mu = std::ldexp(static_cast<double>(mu_fixed), -16);
  auto rng = ldp::test::seeded_drbg("kent point mass");
  const std::vector<int64_t> observations(256, mu_fixed);
  auto data = [&](uint64_t) -> const std::vector<int64_t>& { return observations; };
  constexpr int runs = 150;
  double sum = 0, variance = 0;
  tally t;
  for (int r = 0; r < runs; ++r) {
    const outcome o = run(p, data, rng);
    CHECK(o.clamped[0] == mu);
    sum += o.estimates[0].value;
    variance += o.estimates[0].variance;
    t.add(p, o, {mu});
    CHECK(o.estimates[0].ci_low < o.estimates[0].ci_high);
  }
  const double z = (sum / runs - mu) / std::sqrt(variance / runs / runs);
  CHECK(std::fabs(z) <= 5);
  t.check_noise();
}

TEST_CASE("M1 scaling: MSE slope about -1 in T below the observation cap, flat above it (C.1 test 5)") {
  // n = 2000 users, alpha = 1, mean 0.3, cap T* = 4096; 5 runs per T. Below the cap the
  // conditional MSE is the refine noise 2 (w / alpha)^2 / m with w = 5 W / N and N = ceil(W / h),
  // h ~ T^-1/2 (the rounding of N makes the expected slope -0.94 here), plus Var(X-bar) / m ~ 1/T;
  // it varies between runs only through that small data term (below 1% of it), so the fitted
  // slopes move by less than 0.01 within the tolerances (+-0.15 below, +-0.05 above the cap). Only
  // a vote more than two cells off would break them: with 1000 voters and a modal-cell share of at
  // least 0.57 here, a far cell needs a count 6 standard deviations above its mean (probability
  // below 1e-8 over all cells and runs). Above the cap T~ = T*: the same design, and devices must
  // ignore the observations after T~ (set to +1 here, they would pull the mean up by 0.7). The
  // noise is checked against chi-square(25) at 1e-6.
  const std::vector<double> below = {256, 1024, 4096}, above = {4096, 16384, 65536};
  std::vector<double> mse_below, mse_above;
  tally noise;
  std::mt19937_64 engine(20240517);
  auto rng = ldp::test::seeded_drbg("kent scaling");
  const auto mse_at = [&](double t) {
    user_level_config c;
    c.users = 2000;
    c.observations = static_cast<uint32_t>(t);
    c.cap = 4096;
    c.plan = user_level_plan::two_stage;
    user_level_protocol p;
    REQUIRE(user_level_protocol::create(c, &p) == status::ok);
    bernoulli_users users(0.3, p, engine);
    tally one_t;
    for (int r = 0; r < 5; ++r) {
      const outcome o = run(p, users, rng);
      one_t.add(p, o, {0.3});
      noise.add(p, o, {0.3});
    }
    return one_t.mean();
  };
  for (double t : below) mse_below.push_back(mse_at(t));
  for (double t : above) mse_above.push_back(t == 4096 ? mse_below.back() : mse_at(t));
  CAPTURE(mse_below[0]);
  CAPTURE(mse_below[2]);
  CHECK(std::fabs(ldp::test::log_log_slope(below, mse_below) + 1) <= 0.15);
  CHECK(std::fabs(ldp::test::log_log_slope(above, mse_above)) <= 0.05);
  noise.check_noise();
}

TEST_CASE("M3 beats M2 on l2-ball data, by more as d grows (C.1 test 5)") {
  // Spiky data X = +-e_1 (mean 0.3 e_1, in the unit l2 ball), n = 20000, T = 128, alpha = 1; 2
  // runs per (method, d). 625 voters per fold keep every vote within a cell of the truth.
  // Rates: M2 ~ d^2 / (n T alpha^2), M3 ~ d / (n T alpha^2), so M2 / M3
  // grows about like d; with these sizes the predicted ratios are 3.4 at d = 4 and 16 at d = 16.
  // The conditional MSE varies between runs only through the data term (below 2% of it), so the
  // margins asserted (ratio above 4 at d = 16, growth above 2) break only if a vote lands more than
  // two cells off: the modal cell holds at least 60% of each fold's votes here, and a far cell
  // beats it with probability about 2e-9, below 1e-6 over all cells, folds and runs. The noise is
  // checked against chi-square at 1e-6.
  auto rng = ldp::test::seeded_drbg("kent m2 m3");
  std::mt19937_64 engine(7);
  tally noise;
  const auto mse = [&](user_level_method m, uint32_t d) {
    user_level_config c;
    c.method = m;
    c.users = 20000;
    c.observations = 128;
    c.dimension = d;
    c.cap = 1000;
    c.plan = user_level_plan::two_stage;
    for (std::size_t i = 0; i < ldp::wire::seed_size; ++i) {
      c.rotation_seed[i] = static_cast<unsigned char>(i ^ d);
    }
    user_level_protocol p;
    REQUIRE(user_level_protocol::create(c, &p) == status::ok);
    bernoulli_users users(0.3, p, engine);
    std::vector<double> truth(d, 0.0);
    truth[0] = 0.3;
    tally t;
    for (int r = 0; r < 2; ++r) {
      const outcome o = run(p, users, rng);
      t.add(p, o, truth);
      noise.add(p, o, truth);
    }
    return t.mean();
  };
  const double m2_4 = mse(user_level_method::m2, 4), m3_4 = mse(user_level_method::m3, 4);
  const double m2_16 = mse(user_level_method::m2, 16), m3_16 = mse(user_level_method::m3, 16);
  CAPTURE(m2_4);
  CAPTURE(m3_4);
  CAPTURE(m2_16);
  CAPTURE(m3_16);
  CHECK(m3_4 < m2_4);
  CHECK(m2_16 / m3_16 > 4);
  CHECK((m2_16 / m3_16) / (m2_4 / m3_4) > 2);
  noise.check_noise();
}
