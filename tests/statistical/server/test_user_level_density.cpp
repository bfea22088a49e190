// Kent M5 (docs/mechanisms.md C.1 M5) end to end: devices compute the fixed-point trigonometric
// features of their observations and report through the M2 folds, the driver estimates the
// density with pointwise intervals. Data: Beta(2, 2), f(x) = 6 x (1 - x), whose features have
// E cos(2 pi m X) = -3 / (pi^2 m^2) and E sin(2 pi m X) = 0; the projection on the first k basis
// functions is f_k(x) = 1 - sum_(m <= (k-1)/2) 6 cos(2 pi m x) / (pi^2 m^2).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "stats.h"
#include "tables.h"
#include "user_level_runs.h"

using namespace ldp::test::kent;

namespace {

const double pi = std::acos(-1.0);

// Users with T observations each from Beta(2, 2) (the median of three uniforms), on the grid.
class beta_users {
 public:
  beta_users(const user_level_protocol& p, std::mt19937_64& engine)
      : engine_(engine), buffer_(p.config().observations) {}
  const std::vector<int64_t>& operator()(uint64_t) {
    std::uniform_real_distribution<double> u(0, 1);
    for (int64_t& x : buffer_) {
      double a = u(engine_), b = u(engine_), c = u(engine_);
      const double median = std::max(std::min(a, b), std::min(std::max(a, b), c));
      x = std::llround(std::ldexp(median, 16));
    }
    return buffer_;
  }

 private:
  std::mt19937_64& engine_;
  std::vector<int64_t> buffer_;
};

double feature_mean(uint32_t j) { return j % 2 == 1 ? 0.0 : -3 / (pi * pi * (j / 2 + 1) * (j / 2 + 1)); }

double projection(double x, uint32_t k) {
  double f = 1;
  for (uint32_t m = 1; 2 * m < k; ++m) f -= 6 * std::cos(2 * pi * m * x) / (pi * pi * m * m);
  return f;
}

}  // namespace

TEST_CASE("M5 recovers a Beta(2, 2) density with calibrated pointwise intervals") {
  // n = 10000 users, T = 32 observations, alpha = 1, k by the rule (beta = 1, C = 100: k = 9, 8
  // folds of 1250 users), 60 runs (about 2 s: labelled host_scale). Checks, each at a false-failure probability of
  // 1e-6 or below:
  // - the fold estimates around the exact feature means: sum of the squared standardized errors
  //   over runs and folds against chi-square(480), two-sided at 1e-6 (their spread beyond the noise
  //   is the users' local means, below 0.1% of the noise variance here);
  // - coverage of f_k by the 95% interval at each of 10 points: Clopper-Pearson at 1e-7 per point
  //   contains 0.95;
  // - recovery of f itself: the mean over runs of f-hat is within 5 standard errors of f_k, and f_k
  //   within the tail bound sum_(m > 4) 6 / (pi^2 m^2) < 6 / (4 pi^2) of f;
  // - clip and renormalize: values >= 0 with mean 1 over the grid.
  // Fails (checked): a device that swaps cos and sin. The density's formula itself is pinned
  // exactly by tests/unit/server/test_user_level_density.cpp (sqrt 2 for 2 is a bias of 0.2 here,
  // within this test's 5 standard errors).
  user_level_config c;
  c.method = user_level_method::m5;
  c.users = 10000;
  c.observations = 32;
  user_level_protocol p;
  REQUIRE(user_level_protocol::create(c, &p) == status::ok);
  const uint32_t k = p.config().basis_size;
  REQUIRE(k == 9);
  REQUIRE(p.folds() == k - 1);
  std::vector<double> truth;
  for (uint32_t j = 0; j + 1 < k; ++j) truth.push_back(feature_mean(j));

  auto rng = ldp::test::seeded_drbg("kent m5 beta");
  std::mt19937_64 engine(5);
  beta_users users(p, engine);
  constexpr int runs = 60;
  constexpr uint32_t points = 10;
  double chi2 = 0;
  int terms = 0;
  std::vector<int> covered(points, 0);
  std::vector<double> sum(points, 0), variance(points, 0);
  tally noise;
  for (int r = 0; r < runs; ++r) {
    const outcome o = run(p, users, rng);
    noise.add(p, o, truth);
    for (uint32_t j = 0; j + 1 < k; ++j) {
      chi2 += (o.estimates[j].value - truth[j]) * (o.estimates[j].value - truth[j]) / o.estimates[j].variance;
      ++terms;
    }
    std::vector<ldp::server::density_point> d;
    REQUIRE(p.density(o.estimates, points, 0.95, false, &d) == status::ok);
    REQUIRE(d.size() == points);
    for (uint32_t i = 0; i < points; ++i) {
      const double target = projection(d[i].x, k);
      covered[i] += d[i].ci_low <= target && target <= d[i].ci_high;
      sum[i] += d[i].value;
      variance[i] += d[i].variance;
    }
    std::vector<ldp::server::density_point> clipped;
    REQUIRE(p.density(o.estimates, 100, 0.95, true, &clipped) == status::ok);
    double mass = 0;
    for (const auto& q : clipped) {
      CHECK(q.value >= 0);
      CHECK(q.ci_low <= q.value);
      mass += q.value / 100;
    }
    CHECK(std::fabs(mass - 1) <= 1e-9);
  }
  const double upper_tail = ldp::test::chi_square_sf(chi2, terms);
  CAPTURE(chi2);
  CHECK(upper_tail > 0.5e-6);
  CHECK(upper_tail < 1 - 0.5e-6);
  for (uint32_t i = 0; i < points; ++i) {
    const double x = (i + 0.5) / points;
    CAPTURE(x);
    const auto cp = ldp::test::clopper_pearson(static_cast<uint64_t>(covered[i]), runs, 1e-7);
    CHECK(cp.lo <= 0.95);
    CHECK(0.95 <= cp.hi);
    const double mean = sum[i] / runs, se = std::sqrt(variance[i]) / runs;
    CHECK(std::fabs(mean - projection(x, k)) <= 5 * se);
    CHECK(std::fabs(projection(x, k) - 6 * x * (1 - x)) <= 6 / (4 * pi * pi));
  }
  noise.check_noise();
}
