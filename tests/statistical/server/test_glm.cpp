// Statistical tests of glm-copies (docs/mechanisms.md H.4), end to end through the device context,
// wire reports and the aggregator:
// - the product terms are unbiased: over the device's discrete Gaussian noise, the mean slope
//   estimate of one user equals the Bernstein sum at its margin, and the mean gradient estimate
//   that sum times s x / p (C.4 erratum 7: distinct copies per factor, exponent d - j);
// - with random kinks (logistic loss), the mean over noise and kinks is E_s of that sum, which holds
//   only when the factors of a term share one s (erratum 7);
// - SIGM on the reports of a synthetic fleet learns the separating direction;
// - a Monte-Carlo audit (docs/mechanisms.md D.2) of the block's (epsilon, delta) on threshold events.
// Each check is sized for a false-failure probability of at most ldp::test::default_alpha.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "device_context.h"
#include "ldp/device/glm.h"
#include "ldp/server.h"
#include "ldp/server/glm.h"
#include "ldp/wire.h"
#include "ldp/wire/glm_params.h"
#include "ldp/wire/loss.h"
#include "merge_order.h"
#include "stats.h"
#include "tables.h"

using ldp::status;
using ldp::device::glm_context;
using ldp::wire::field;
using ldp::wire::loss_kind;
using ldp::wire::params;

namespace {

params glm_block(double epsilon, uint32_t p, uint32_t d) {
  const auto made = ldp::wire::make_glm_copies(epsilon, 1e-6, {p, d, 8});
  REQUIRE(made.code == status::ok);
  return made.block;
}

// The fixed-point input of features in [0, 1] and a label in [-1, 1] on the block's grid.
std::vector<int64_t> fixed(const std::vector<double>& x) {
  std::vector<int64_t> out;
  for (double v : x) out.push_back(static_cast<int64_t>(std::lround(v * 256)));
  return out;
}

// Two-sided z statistic of a sample mean against mu (sample variance).
struct running {
  double n = 0, sum = 0, squares = 0;
  void add(double v) {
    n += 1;
    sum += v;
    squares += v * v;
  }
  double z(double mu) const {
    const double mean = sum / n, variance = (squares - n * mean * mean) / (n - 1);
    return (mean - mu) / std::sqrt(variance / n);
  }
};

// The mean of the slope estimate written out here, apart from the library (docs/mechanisms.md H.4):
// (f'(1) - f'(-1)) sum_j h'_beta(4 j / d - 2) C(d, j) u_j^j (1 - u_j)^(d - j) + f'(-1),
// u_j = (z - s_j + 2) / 4, for the logistic link of dimension p.
double bernstein_slope(uint32_t p, uint32_t d, double z, const std::vector<double>& s, double beta) {
  const auto slope = [&](double t) { return -double(p) / (1 + std::exp(p * t)) / std::log1p(std::exp(double(p))); };
  double sum = 0, binomial = 1;
  for (uint32_t j = 0; j <= d; ++j) {
    const double t = 4.0 * j / d - 2.0, u = (z - s[j] + 2) / 4;
    sum += 0.5 * (1 + t / std::sqrt(t * t + beta * beta)) * binomial * std::pow(u, j) * std::pow(1 - u, d - j);
    binomial = binomial * (d - j) / (j + 1);
  }
  return (slope(1) - slope(-1)) * sum + slope(-1);
}

// |z| bound of a two-sided test at default_alpha split over `tests` statistics (Bonferroni).
double z_bound(int tests) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (2 * ldp::test::normal_sf(mid) * tests > ldp::test::default_alpha ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

TEST_CASE("glm-copies: the product terms are unbiased over the device's noise (erratum 7's indices)") {
  // p = 2, d = 3 (13 copies), epsilon 40; one user, several theta, fixed kink draws.
  const params p = glm_block(40, 2, 3);
  glm_context c;
  std::vector<std::byte> workspace(glm_context::workspace_size(p));
  REQUIRE(glm_context::init(workspace, p, &c) == status::ok);
  auto rng = ldp::test::seeded_drbg("glm products unbiased");
  const std::vector<double> x = {0.75, 0.25};
  const std::vector<int64_t> fx = fixed(x);
  const double label = -1;
  const std::vector<std::vector<double>> thetas = {{0.5, -0.5}, {-1, 1}, {0.2, 0.9}};
  const std::vector<double> s = {0.3, -0.2, 0.6, 0.0};
  const double beta = 0.5;
  const int trials = 20000;
  const double bound = z_bound(static_cast<int>(thetas.size()) * 3);
  std::vector<running> slope(thetas.size()), grad0(thetas.size()), grad1(thetas.size());
  for (int t = 0; t < trials; ++t) {
    ldp::wire::report r;
    REQUIRE(c.fields(fx, -256, rng, &r) == status::ok);
    for (std::size_t i = 0; i < thetas.size(); ++i) {
      slope[i].add(
          ldp::server::glm_slope_estimate(p, r.values.data(), thetas[i].data(), s.data(), beta, loss_kind::logistic));
      double g[2];
      ldp::server::glm_gradient(p, r.values.data(), thetas[i].data(), s.data(), beta, loss_kind::logistic, g);
      grad0[i].add(g[0]);
      grad1[i].add(g[1]);
    }
  }
  for (std::size_t i = 0; i < thetas.size(); ++i) {
    const double z = label * (thetas[i][0] * 0.75 + thetas[i][1] * 0.25) / 2;
    const double mean = bernstein_slope(2, 3, z, s, beta);
    CHECK(ldp::server::glm_slope_mean(p, z, s.data(), beta, loss_kind::logistic) == doctest::Approx(mean));
    CAPTURE(i);
    CHECK(std::fabs(slope[i].z(mean)) < bound);
    CHECK(std::fabs(grad0[i].z(mean * label * 0.75 / 2)) < bound);
    CHECK(std::fabs(grad1[i].z(mean * label * 0.25 / 2)) < bound);
  }
}

TEST_CASE("glm-copies: with random kinks the estimate's mean is E_s of the Bernstein sum (one s per term)") {
  const params p = glm_block(40, 2, 3);
  glm_context c;
  std::vector<std::byte> workspace(glm_context::workspace_size(p));
  REQUIRE(glm_context::init(workspace, p, &c) == status::ok);
  auto rng = ldp::test::seeded_drbg("glm shared kink");
  std::mt19937_64 kinks(7);
  const std::vector<int64_t> fx = fixed({1.0, 0.0});
  const std::vector<double> theta = {0.2, 0.0};
  const double beta = 0.1, z = 0.1;  // s = +1: z = <theta, x> / p
  // E_s[sum] by the midpoint rule over the kink law's quantile (the sum is linear in the terms, each
  // term a function of its own s).
  double expected = 0;
  const int nodes = 20000;
  for (int i = 0; i < nodes; ++i) {
    const double k = ldp::server::glm_kink_quantile(loss_kind::logistic, 2, (i + 0.5) / nodes);
    const std::vector<double> s(4, k);
    expected += bernstein_slope(2, 3, z, s, beta) / nodes;
  }
  running slope;
  std::vector<double> s(4);
  for (int t = 0; t < 40000; ++t) {
    ldp::wire::report r;
    REQUIRE(c.fields(fx, 256, rng, &r) == status::ok);
    for (double& v : s)
      v = ldp::server::glm_kink_quantile(loss_kind::logistic, 2, std::ldexp(double(kinks() >> 11), -53));
    slope.add(ldp::server::glm_slope_estimate(p, r.values.data(), theta.data(), s.data(), beta, loss_kind::logistic));
  }
  CHECK(std::fabs(slope.z(expected)) < z_bound(1));
}

namespace {

// A fleet of n users with x uniform in [0, 1]^2 and s = +1 when x_0 > x_1 (-1 otherwise), through
// devices and wire reports into an aggregator, then glm_train; the mean true loss (wire::loss_value,
// y = (s + 1) / 2) at theta_priv, at theta = 0 and at the best theta = (1, -1).
struct fleet_result {
  std::vector<double> theta;
  double loss = 0, loss_zero = 0, loss_best = 0;
};

double mean_loss(loss_kind loss, const std::vector<double>& theta, const std::vector<std::vector<double>>& xs,
                 const std::vector<double>& ys) {
  const double w[2] = {(theta[0] + 1) / 2, (theta[1] + 1) / 2};
  double sum = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) sum += ldp::wire::loss_value(loss, w, xs[i].data(), 2, (ys[i] + 1) / 2);
  return sum / static_cast<double>(xs.size());
}

fleet_result run_fleet(const char* name, uint64_t n, loss_kind loss, uint64_t seed) {
  const params p = glm_block(40, 2, 2);
  ldp::test::owned_context<glm_context> c(p);
  REQUIRE(c.code == status::ok);
  auto rng = ldp::test::seeded_drbg(name);
  std::mt19937_64 data(seed);
  const auto agg = ldp::test::make_aggregator(p);
  std::vector<std::vector<double>> xs;
  std::vector<double> ys;
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  for (uint64_t i = 0; i < n; ++i) {
    const double x0 = std::ldexp(double(data() >> 11), -53), x1 = std::ldexp(double(data() >> 11), -53);
    const double label = x0 > x1 ? 1.0 : -1.0;
    xs.push_back({x0, x1});
    ys.push_back(label);
    std::size_t size = 0;
    const std::vector<int64_t> input = fixed({x0, x1});
    REQUIRE(c->randomize(input, static_cast<int64_t>(label * 256), rng, out, ldp::device::framing::report, &size) ==
            status::ok);
    REQUIRE(agg->add_report({out.data(), size}) == status::ok);
  }
  ldp::server::glm_options o;
  o.loss = loss;
  o.seed = seed;
  ldp::server::glm_result r;
  REQUIRE(ldp::server::glm_train(*agg, o, &r) == status::ok);
  fleet_result f;
  f.theta = r.theta;
  f.loss = mean_loss(loss, r.theta, xs, ys);
  f.loss_zero = mean_loss(loss, {0, 0}, xs, ys);
  f.loss_best = mean_loss(loss, {1, -1}, xs, ys);
  return f;
}

}  // namespace

// epsilon 40 (the largest level; sigma about 1.3 per entry), d = 2, n = 20,000, the paper's
// n SIGM steps. The check: theta_priv captures at least 75 % of the loss decrease from theta = 0 to
// the best theta (1, -1). Over 20 data and coin seeds per loss the shortfall was at most 5.0 %
// (logistic) and 5.8 % (hinge), mean 2.4 %, standard deviation 1.4 %: the bound 25 % lies more than
// 15 observed standard deviations above the mean (false failure far below default_alpha under a
// normal approximation of the spread).
TEST_CASE("glm-copies: SIGM on a synthetic fleet learns the separating direction (logistic, hinge)") {
  for (loss_kind loss : {loss_kind::logistic, loss_kind::hinge}) {
    CAPTURE(static_cast<int>(loss));
    const fleet_result f = run_fleet("glm fleet", 20000, loss, 11);
    CAPTURE(f.theta[0]);
    CAPTURE(f.theta[1]);
    CHECK(f.loss - f.loss_best < 0.25 * (f.loss_zero - f.loss_best));
  }
}

namespace {

// The statistic of the audit below: the sum over the report's copies of the entries weighted by the
// neighbours' difference (+1 on every feature and on the label), the Gaussian mechanism's
// likelihood-ratio direction, in grid units.
double audit_statistic(const params& p, const std::vector<int64_t>& x, int64_t label, glm_context& c,
                       ldp::random::drbg& rng) {
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  std::size_t size = 0;
  REQUIRE(c.randomize(x, label, rng, out, ldp::device::framing::report, &size) == status::ok);
  ldp::wire::report r;
  REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), {out.data(), size}, &r) == status::ok);
  std::vector<int64_t> entries(static_cast<std::size_t>(p.get(field::domain)));
  REQUIRE(ldp::wire::read_vector(r, entries) == status::ok);
  double t = 0;
  for (const int64_t e : entries) t += static_cast<double>(e);
  return t;
}

}  // namespace

TEST_CASE("glm-copies: a Monte-Carlo audit finds no threshold event beyond the block's (epsilon, delta)") {
  // docs/mechanisms.md D.2 for an (epsilon, delta) mechanism: neighbours x = (0, 0), s = -1 and
  // x = (1, 1), s = +1 (every entry moves by the full range: the L2 sensitivity of the zCDP
  // accounting), N reports each; for every threshold t on the statistic, in both directions,
  // P(T >= t | one) - e^eps P(T >= t | other) <= delta + 5.7 standard errors (about 1e-8 each,
  // under 1e-6 for the 2 x 41 thresholds). delta = 1e-3 keeps the events measurable. Fails (checked:
  // 28 of the 82 thresholds) with the block's noise_sigma2 divided by 16, a quarter of the noise the
  // accounting assumes.
  const double epsilon = 1, delta = 1e-3;
  const auto made = ldp::wire::make_glm_copies(epsilon, delta, {2, 1, 4});
  REQUIRE(made.code == status::ok);
  const params p = made.block;
  REQUIRE(made.epsilon_impl <= epsilon);
  ldp::test::owned_context<glm_context> c(p);
  REQUIRE(c.code == status::ok);
  auto rng = ldp::test::seeded_drbg("glm-copies audit");
  const int64_t one = 16;
  const std::vector<int64_t> low{0, 0}, high{one, one};
  const int n = 60000;
  std::vector<double> a, b;
  for (int i = 0; i < n; ++i) {
    a.push_back(audit_statistic(p, high, one, *c.operator->(), rng));
    b.push_back(audit_statistic(p, low, -one, *c.operator->(), rng));
  }
  // Thresholds in units of the statistic's standard deviation around the midpoint of the two means.
  const double copies = static_cast<double>(ldp::wire::glm_copy_count(1));
  const double sd = std::sqrt(copies * 3 * static_cast<double>(p.get(field::noise_sigma2)));
  const double mid = copies * one;  // between the means copies (3 one) and copies (-one)
  for (int sign : {1, -1}) {
    const std::vector<double>& first = sign > 0 ? a : b;
    const std::vector<double>& second = sign > 0 ? b : a;
    for (int k = -20; k <= 20; ++k) {
      const double t = mid + sign * 0.25 * k * sd;
      double pa = 0, qb = 0;
      for (const double v : first) pa += sign * v >= sign * t ? 1 : 0;
      for (const double v : second) qb += sign * v >= sign * t ? 1 : 0;
      pa /= n;
      qb /= n;
      const double se = std::sqrt(pa * (1 - pa) / n + std::exp(2 * epsilon) * qb * (1 - qb) / n);
      CAPTURE(sign);
      CAPTURE(k);
      CHECK(pa - std::exp(epsilon) * qb <= delta + 5.7 * se);
    }
  }
}
