// Statistical tests of the scalar numeric mechanisms on the real DRBG path, device to server
// (docs/mechanisms.md B.1, B.2, D.2, D.3). Fixed seeds; each check states its false-failure probability.
//
// - Monte-Carlo privacy audit (D.2 (b), Table D.2): DLap inputs lo and hi with the event z <= lo
//   (ratio e^{Delta/t} exactly), Duchi inputs lo and hi with the event b = 1 (ratio T_hi/T_lo),
//   laplace-vector (d = 2) all-lo against all-hi with every coordinate <= lo (ratio e^{d Q/t}), the
//   same for bernstein (p = 1, k = 1: N = 2 losses of 0 against 1 through the device's loss path),
//   kent-refine at the interval ends. Clopper-Pearson at 1e-7 per proportion: a correct build fails
//   a case with probability below 4e-7. The point estimate must reach 0.9 epsilon_impl, more than
//   10 standard errors from the truth at N = 200000 (it catches noise twice too large, or a scale
//   computed from the wrong sensitivity).
// - The discrete Laplace pmf on the mechanism's output z - clamp(x): chi-square against
//   P(y) = (1 - a)/(1 + a) a^|y| (a = e^{-1/t}), p-value above 1e-6 (false failure 1e-6); and
//   P(0)/P(1) = e^{1/t} through the conditional binomial k0 | k0 + k1 ~ Bin(m, 1/(1 + a)),
//   Clopper-Pearson at 1e-6. Forgetting the (negative, 0) rejection doubles P(0): both fail.
// - Unbiasedness and exact variance: R aggregators of n reports each on fixed data; the mean of the
//   R estimates within 5 standard errors of the truth (two-sided 5.7e-7), and (R - 1) S^2 / sigma^2
//   inside the central 1 - 1e-6 of chi-square(R - 1). The estimates are means of n reports, so
//   their excess kurtosis (at most 3/n) widens Var(S^2) by under 4%: the stated level holds to
//   that factor. With R = 4000 a variance off by 15% fails with probability above 0.99 (for
//   Laplace at t = 0.7 the approximation 2t^2 is 18% off the exact 2a/(1 - a)^2).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/server.h"
#include "ldp/wire.h"
#include "stats.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

constexpr double audit_alpha = 1e-7;
constexpr uint64_t audit_runs = 200000;
constexpr double z_mean = 5.0;
constexpr double variance_alpha = 1e-6;

// One report of x, decoded: the value (Laplace family) or the bit (Duchi).
int64_t randomize(const ldp::wire::params& p, uint64_t fp, int64_t x, ldp::random::drbg& rng) {
  unsigned char out[ldp::wire::report_header_size + ldp::wire::varint_max_size];
  std::size_t size = 0;
  REQUIRE(ldp::test::randomize_once<ldp::device::mean_context>(p, x, rng, out, ldp::device::framing::report, &size) ==
          status::ok);
  ldp::wire::report r;
  REQUIRE(ldp::wire::decode_report(p, fp, ldp::span<const unsigned char>(out, size), &r) == status::ok);
  return p.mech == mechanism::duchi ? r.bit : r.value;
}

// Whether one report of the extreme input (x = lo, or hi if `high`) falls in the event E of
// Table D.2: Duchi b = 1; discrete Laplace z <= lo; laplace-vector every coordinate <= lo (the
// coordinates are independent, so the ratio is e^{Q/t} per coordinate, e^{d Q / t} in all).
bool in_event(const ldp::wire::params& p, bool high, ldp::random::drbg& rng) {
  const uint64_t fp = ldp::wire::fingerprint(p);
  const ldp::wire::value_range r = ldp::wire::range_of(p);
  const int64_t x = high ? r.hi : r.lo;
  if (p.mech == mechanism::duchi) return randomize(p, fp, x, rng) == 1;
  if (!ldp::wire::is_laplace_vector_block(p)) return randomize(p, fp, x, rng) <= r.lo;
  const auto d = static_cast<std::size_t>(p.get(ldp::wire::field::domain));
  std::vector<int64_t> xs(d, x), values(d);
  unsigned char out[ldp::wire::report_header_size + 4 * ldp::wire::varint_max_size];
  std::size_t size = 0;
  REQUIRE(d <= 4);
  if (p.mech == mechanism::bernstein) {
    // H.1 through the device's loss path: a caller loss of 0 or 1 at every grid point gives the
    // values 0 = lo or Q = hi, the inputs farthest apart (one coordinate moves by at most Q).
    ldp::test::owned_context<ldp::device::vector_mean_context> c(p);
    REQUIRE(c.code == status::ok);
    const auto loss = [&](const double*) { return high ? 1.0 : 0.0; };
    REQUIRE(ldp::device::randomize_caller_loss(*c.operator->(), loss, ldp::span<int64_t>(xs), rng, out,
                                               ldp::device::framing::report, &size) == status::ok);
    REQUIRE(xs == std::vector<int64_t>(d, x));
  } else {
    REQUIRE(ldp::test::randomize_once<ldp::device::vector_mean_context>(
                p, ldp::span<const int64_t>(xs), rng, out, ldp::device::framing::report, &size) == status::ok);
  }
  ldp::wire::report rep;
  REQUIRE(ldp::wire::decode_report(p, fp, ldp::span<const unsigned char>(out, size), &rep) == status::ok);
  REQUIRE(ldp::wire::read_vector(rep, values) == status::ok);
  for (int64_t z : values) {
    if (z > r.lo) return false;
  }
  return true;
}

// k1 = #{E} under the input E favours, k0 = #{E} under the other extreme; then both bounds.
void audit(const ldp::wire::params& p, double epsilon_impl, double requested, const char* seed) {
  auto rng = ldp::test::seeded_drbg(seed);
  // Duchi: b = 1 is likelier under hi. Laplace: z <= lo is likelier under lo.
  const bool favoured_high = p.mech == mechanism::duchi;
  uint64_t k1 = 0, k0 = 0;
  for (uint64_t i = 0; i < audit_runs; ++i) k1 += in_event(p, favoured_high, rng);
  for (uint64_t i = 0; i < audit_runs; ++i) k0 += in_event(p, !favoured_high, rng);
  REQUIRE(k0 > 0);
  const auto pi = ldp::test::clopper_pearson(k1, audit_runs, audit_alpha);
  const auto qi = ldp::test::clopper_pearson(k0, audit_runs, audit_alpha);
  const double eps_lower = std::log(pi.lo / qi.hi);
  const double eps_point = std::log(static_cast<double>(k1) / static_cast<double>(k0));
  CAPTURE(k1);
  CAPTURE(k0);
  CHECK(epsilon_impl <= requested);
  CHECK(eps_lower <= epsilon_impl);
  CHECK(eps_point >= 0.9 * epsilon_impl);
}

double sample_variance(const std::vector<double>& v, double* mean) {
  double m = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  *mean = m;
  return s / static_cast<double>(v.size() - 1);
}

// The variance test of D.3 rule 5.
void check_variance(double s2, double sigma2, std::size_t runs) {
  const double stat = static_cast<double>(runs - 1) * s2 / sigma2;
  const double upper_tail = ldp::test::chi_square_sf(stat, static_cast<double>(runs - 1));
  CAPTURE(s2 / sigma2);
  CHECK(upper_tail > variance_alpha / 2);
  CHECK(upper_tail < 1 - variance_alpha / 2);
}

// R estimates of the mean (coordinate j) from aggregators of one device report per input.
std::vector<std::vector<double>> estimates(const ldp::wire::params& p, const std::vector<std::vector<int64_t>>& inputs,
                                           std::size_t runs, const char* seed, std::vector<double>* reported_variance) {
  ldp::test::owned_context<ldp::device::mean_context> scalar(p);
  ldp::test::owned_context<ldp::device::vector_mean_context> vector(p);
  REQUIRE((p.mech == mechanism::laplace_vector ? vector.code : scalar.code) == status::ok);
  auto rng = ldp::test::seeded_drbg(seed);
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  std::vector<std::vector<double>> values;
  for (std::size_t run = 0; run < runs; ++run) {
    std::unique_ptr<ldp::server::aggregator> agg;
    REQUIRE(ldp::server::aggregator::create(p, &agg) == status::ok);
    for (const auto& x : inputs) {
      std::size_t size = 0;
      const status s = p.mech == mechanism::laplace_vector
                           ? vector->randomize(x, rng, out, ldp::device::framing::report, &size)
                           : scalar->randomize(x[0], rng, out, ldp::device::framing::report, &size);
      REQUIRE(s == status::ok);
      REQUIRE(agg->add_report(ldp::span<const unsigned char>(out.data(), size)) == status::ok);
    }
    const auto e = agg->estimate_all();
    std::vector<double> row;
    for (const auto& est : e) row.push_back(est.value);
    values.push_back(row);
    if (reported_variance != nullptr) reported_variance->push_back(e[0].variance);
  }
  return values;
}

std::vector<double> column(const std::vector<std::vector<double>>& rows, std::size_t j) {
  std::vector<double> out;
  for (const auto& r : rows) out.push_back(r[j]);
  return out;
}

}  // namespace

TEST_CASE(
    "Monte-Carlo audit: discrete Laplace (scalar, vector, kent-refine) and Duchi leak no more than epsilon_impl and "
    "waste no noise") {
  for (double eps : {1.0, 2.0, 4.0}) {
    CAPTURE(eps);
    const auto lap = ldp::wire::make_laplace(-1.0, 1.0, 16, eps);
    REQUIRE(lap.code == status::ok);
    audit(lap.block, lap.epsilon_impl, eps, "audit laplace");
    const auto duchi = ldp::wire::make_duchi(-1.0, 1.0, 16, eps);
    REQUIRE(duchi.code == status::ok);
    audit(duchi.block, duchi.epsilon_impl, eps, "audit duchi");
    const auto vec = ldp::wire::make_laplace_vector(2, 0.0, 1.0, 12, eps);
    REQUIRE(vec.code == status::ok);
    audit(vec.block, vec.epsilon_impl, eps, "audit laplace vector");
  }
  // bernstein (H.1): p = 1, k = 1, N = 2 grid losses, the sensitivity N Q of a laplace-vector block
  // (whose noise the loop above audits at every level).
  const auto learner = ldp::wire::make_bernstein(1, 1, ldp::wire::loss_kind::caller, 12, 2.0);
  REQUIRE(learner.code == status::ok);
  audit(learner.block, learner.epsilon_impl, 2.0, "audit bernstein");
  // kent-refine: the noise scale of the broadcast interval's width (Table D.2, Kent P2).
  auto refine = ldp::test::example_params(mechanism::kent_refine);
  uint64_t num = 0, den = 0;
  REQUIRE(ldp::wire::laplace_scale(ldp::wire::range_width(refine), 1.5, &num, &den) == status::ok);
  refine.set(field::scale_num, num).set(field::scale_den, den);
  REQUIRE(ldp::wire::validate(refine) == status::ok);
  audit(refine, ldp::wire::implemented_epsilon(refine), 1.5, "audit refine");
}

TEST_CASE("the mechanism's noise follows the discrete Laplace pmf, with P(0)/P(1) = e^{1/t}") {
  constexpr uint64_t samples = 200000;
  const struct { uint64_t num, den; } scales[] = {{3, 1}, {7, 10}, {123457, 65536}};
  for (const auto& s : scales) {
    CAPTURE(s.num);
    CAPTURE(s.den);
    auto p = ldp::test::example_params(mechanism::laplace);
    p.set_signed(field::clip_lo, 0).set_signed(field::clip_hi, 4);
    p.set(field::scale_num, s.num).set(field::scale_den, s.den);
    REQUIRE(ldp::wire::validate(p) == status::ok);
    const uint64_t fp = ldp::wire::fingerprint(p);
    auto rng = ldp::test::seeded_drbg("dlap pmf");
    const int64_t x = 9, clamped = 4;  // the noise rides on the clamped input
    constexpr int64_t span = 60;       // bins -60..60 and the two tails
    std::vector<uint64_t> counts(2 * span + 3, 0);
    for (uint64_t i = 0; i < samples; ++i) {
      const int64_t y = randomize(p, fp, x, rng) - clamped;
      const std::size_t bin = y < -span ? 0 : y > span ? counts.size() - 1 : static_cast<std::size_t>(y + span + 1);
      ++counts[bin];
    }
    const double t = static_cast<double>(s.num) / static_cast<double>(s.den);
    const double a = std::exp(-1 / t);
    const double c = (1 - a) / (1 + a);
    std::vector<double> pmf(counts.size());
    const double tail = c * std::pow(a, span + 1) / (1 - a);  // P(Y > span) = P(Y < -span)
    pmf.front() = pmf.back() = tail;
    for (int64_t y = -span; y <= span; ++y)
      pmf[static_cast<std::size_t>(y + span + 1)] = c * std::pow(a, std::fabs(static_cast<double>(y)));
    const auto gof = ldp::test::chi_square_gof(counts, pmf, samples);
    CAPTURE(gof.statistic);
    CAPTURE(gof.dof);
    CHECK(gof.p_value > 1e-6);
    // P(0) / (P(0) + P(1)) = 1 / (1 + a).
    const uint64_t k0 = counts[span + 1], k1 = counts[span + 2];
    const auto ci = ldp::test::clopper_pearson(k0, k0 + k1, 1e-6);
    CHECK(ci.lo <= 1 / (1 + a));
    CHECK(1 / (1 + a) <= ci.hi);
  }
}

TEST_CASE("Laplace: unbiased, with the exact variance gamma^2 2a/(1-a)^2 / n, on constant data") {
  constexpr std::size_t runs = 4000, n = 25;
  // t = 0.7 grid units, where 2t^2 is 18% above the exact variance; and the derived block at eps 1.
  auto small = ldp::test::example_params(mechanism::laplace);
  small.set_signed(field::clip_lo, 0).set_signed(field::clip_hi, 40).set(field::frac_bits, 3);
  small.set(field::scale_num, 7).set(field::scale_den, 10);
  const auto derived = ldp::wire::make_laplace(-2.0, 3.0, 12, 1.0);
  REQUIRE(derived.code == status::ok);
  for (const auto& p : {small, derived.block}) {
    const int64_t x = ldp::wire::range_of(p).lo + 13;
    const double truth = std::ldexp(static_cast<double>(x), -static_cast<int>(p.get(field::frac_bits)));
    std::vector<double> reported;
    const auto values =
        column(estimates(p, std::vector<std::vector<int64_t>>(n, {x}), runs, "laplace unbiased", &reported), 0);
    double mean = 0;
    const double s2 = sample_variance(values, &mean);
    const double t = static_cast<double>(p.get(field::scale_num)) / static_cast<double>(p.get(field::scale_den));
    const double a = std::exp(-1 / t), gamma = std::ldexp(1.0, -static_cast<int>(p.get(field::frac_bits)));
    const double sigma2 = gamma * gamma * 2 * a / ((1 - a) * (1 - a)) / n;
    CHECK(reported[0] == doctest::Approx(sigma2).epsilon(1e-9));  // what the aggregator states
    CHECK(std::fabs(mean - truth) <= z_mean * std::sqrt(sigma2 / runs));
    check_variance(s2, sigma2, runs);
  }
}

TEST_CASE("laplace-vector: each coordinate unbiased with the variance of the L1 scale") {
  constexpr std::size_t runs = 3000, n = 10;
  const auto derived = ldp::wire::make_laplace_vector(3, 0.0, 1.0, 10, 2.0);
  REQUIRE(derived.code == status::ok);
  const auto& p = derived.block;
  const std::vector<int64_t> x = {0, 1024, 300};
  const auto rows = estimates(p, std::vector<std::vector<int64_t>>(n, x), runs, "laplace vector unbiased", nullptr);
  const double t = static_cast<double>(p.get(field::scale_num)) / static_cast<double>(p.get(field::scale_den));
  const double a = std::exp(-1 / t), gamma = 1.0 / 1024;
  const double sigma2 = gamma * gamma * 2 * a / ((1 - a) * (1 - a)) / n;
  for (std::size_t j = 0; j < 3; ++j) {
    CAPTURE(j);
    double mean = 0;
    const double s2 = sample_variance(column(rows, j), &mean);
    CHECK(std::fabs(mean - static_cast<double>(x[j]) * gamma) <= z_mean * std::sqrt(sigma2 / runs));
    check_variance(s2, sigma2, runs);
  }
}

TEST_CASE("Duchi: unbiased with variance (Q gamma / 2)^2 sum(B^2 - y_u^2) / n^2, constant and spread data") {
  constexpr std::size_t runs = 4000, n = 40;
  for (double eps : {0.5, 2.0}) {
    CAPTURE(eps);
    const auto derived = ldp::wire::make_duchi(0.0, 10.0, 8, eps);
    REQUIRE(derived.code == status::ok);
    const auto& p = derived.block;
    const double b = ldp::server::duchi_scale(p);
    const double half = 5.0, gamma = 1.0 / 256;
    std::vector<std::vector<std::vector<int64_t>>> datasets;
    datasets.push_back(std::vector<std::vector<int64_t>>(n, {0}));     // the lower end
    datasets.push_back(std::vector<std::vector<int64_t>>(n, {2560}));  // the upper end
    datasets.push_back(std::vector<std::vector<int64_t>>(n, {853}));   // y = 2 * 853/2560 - 1
    std::vector<std::vector<int64_t>> spread;
    for (std::size_t u = 0; u < n; ++u) spread.push_back({static_cast<int64_t>(u * 2560 / (n - 1))});
    datasets.push_back(spread);
    for (std::size_t k = 0; k < datasets.size(); ++k) {
      CAPTURE(k);
      const auto& data = datasets[k];
      double truth = 0, per_user = 0;
      for (const auto& x : data) {
        const double y = 2.0 * static_cast<double>(x[0]) / 2560 - 1;
        truth += static_cast<double>(x[0]) * gamma / n;
        per_user += b * b - y * y;
      }
      const double sigma2 = half * half * per_user / (static_cast<double>(n) * n);
      std::vector<double> reported;
      const auto values = column(estimates(p, data, runs, "duchi unbiased", &reported), 0);
      double mean = 0;
      const double s2 = sample_variance(values, &mean);
      CHECK(std::fabs(mean - truth) <= z_mean * std::sqrt(sigma2 / runs));
      check_variance(s2, sigma2, runs);
      // The aggregator's plug-in variance is conservative in expectation (exact on constant data
      // without clipping). The average of 4000 has a relative standard deviation below 0.15%, so
      // 2% below the truth is over 13 of them; a plug-in over n instead of n - 1 (2.5% low) fails.
      double average_reported = 0;
      for (double v : reported) average_reported += v / runs;
      CHECK(average_reported >= sigma2 * 0.98);
    }
  }
}
