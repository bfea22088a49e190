// glm-copies (docs/mechanisms.md H.4), exact checks: the block and its (epsilon, delta) accounting
// (CKS 2020 Corollary 13 against independently computed values, the standard bound and the exact
// Gaussian curve; the paper's printed noise, C.4 erratum 6), the device's budget and input rules,
// the aggregator's estimates and saved state, the learner's link functions against wire/loss.h,
// Lemma 32's kink law, the estimator on noise-free copies (erratum 7) and glm_train's contract.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
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
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::device::glm_context;
using ldp::server::aggregator;
using ldp::wire::field;
using ldp::wire::loss_kind;
using ldp::wire::params;

namespace {

params glm_block(double epsilon, uint32_t p, uint32_t d, double delta = 1e-6) {
  const auto made = ldp::wire::make_glm_copies(epsilon, delta, {p, d, 8});
  REQUIRE(made.code == status::ok);
  return made.block;
}

// The exact privacy curve of the Gaussian mechanism of mu = sqrt(2 rho) (Balle and Wang 2018):
// the epsilon at delta, by bisection. A rho-zCDP conversion can never beat it (the Gaussian is
// exactly rho-zCDP).
double gaussian_epsilon(double rho, double delta) {
  const double mu = std::sqrt(2 * rho);
  const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  double lo = 0, hi = 100;
  for (int i = 0; i < 200; ++i) {
    const double m = (lo + hi) / 2;
    (phi(-m / mu + mu / 2) - std::exp(m) * phi(-m / mu - mu / 2) > delta ? lo : hi) = m;
  }
  return hi;
}

// A report whose every copy is (x, s) exactly, on the grid of f = 8 (no noise: for exact checks of
// the server's arithmetic).
std::vector<unsigned char> exact_report(const params& p, const std::vector<int64_t>& copy) {
  std::vector<int64_t> values;
  const uint64_t copies = ldp::wire::glm_copy_count(p.get(field::degree));
  for (uint64_t c = 0; c < copies; ++c) values.insert(values.end(), copy.begin(), copy.end());
  ldp::wire::report r;
  r.mech = p.mech;
  r.values = values;
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, out, &size) == status::ok);
  out.resize(size);
  return out;
}

}  // namespace

TEST_CASE("glm-copies block: epsilon_impl <= epsilon from the integers, rho, the rules of wire_format.md 3.3") {
  for (double epsilon : {0.5, 1.0, 4.0, 40.0}) {
    for (uint32_t d : {1u, 2u, 4u, 32u}) {
      CAPTURE(epsilon);
      CAPTURE(d);
      const auto made = ldp::wire::make_glm_copies(epsilon, 1e-6, {3, d, 8});
      REQUIRE(made.code == status::ok);
      const params& p = made.block;
      const uint64_t copies = uint64_t{d} * (d + 1) + 1;
      CHECK(p.get(field::domain) == copies * 4);
      CHECK(made.epsilon_impl == ldp::wire::implemented_epsilon(p));
      CHECK(made.epsilon_impl * ldp::wire::epsilon_margin <= epsilon);
      CHECK(made.epsilon_impl >= epsilon * (1 - 1e-4));
      // rho = D (p + 4) Q^2 / (2 sigma2), Q = 2^8.
      const double rho =
          static_cast<double>(copies) * 7 * 65536 / (2.0 * static_cast<double>(p.get(field::noise_sigma2)));
      CHECK(ldp::wire::glm_rho(p) == doctest::Approx(rho).epsilon(1e-15));
      CHECK(made.epsilon_impl == ldp::wire::zcdp_epsilon(rho, ldp::wire::glm_delta(p)));
      CHECK(ldp::wire::glm_delta(p) <= 1e-6);
      CHECK(ldp::wire::glm_delta(p) >= 1e-6 * (1 - 1e-9));
    }
  }
  params p = glm_block(1, 2, 2);
  CHECK(ldp::wire::validate(p) == status::ok);
  params bad = p;
  bad.set(field::domain, p.get(field::domain) + 1);  // not D (p + 1)
  CHECK(ldp::wire::validate(bad) == status::invalid_parameters);
  const std::pair<field, uint64_t> breaking[] = {
      {field::noise_sigma2, 0},  {field::noise_sigma2, (uint64_t{1} << 52) + 1},
      {field::privacy_delta, 0}, {field::privacy_delta, uint64_t{1} << 63},
      {field::degree, 0},        {field::frac_bits, 31}};
  for (auto [f, v] : breaking) {
    bad = p;
    bad.set(f, v);
    CHECK(ldp::wire::validate(bad) == status::invalid_parameters);
  }
  CHECK(ldp::wire::make_glm_copies(0, 1e-6, {2, 2, 8}).code == status::invalid_argument);
  CHECK(ldp::wire::make_glm_copies(1, 0.5, {2, 2, 8}).code == status::invalid_argument);
  CHECK(ldp::wire::make_glm_copies(1, 1e-6, {2, 0, 8}).code == status::invalid_argument);
  CHECK(ldp::wire::make_glm_copies(1, 1e-6, {2, 256, 8}).code == status::invalid_argument);
  CHECK(ldp::wire::make_glm_copies(1, 1e-6, {0, 2, 8}).code == status::invalid_argument);
  // The paper's degree d = 32 / alpha^3 (Theorem 30), and the report sizes of mechanisms.md H.4.
  CHECK(ldp::wire::glm_degree_for_accuracy(1) == 32);
  CHECK(ldp::wire::glm_degree_for_accuracy(2) == 4);
  CHECK(ldp::wire::glm_degree_for_accuracy(4) == 1);
  CHECK(ldp::wire::glm_degree_for_accuracy(0.5) == 0);  // d = 256 > 255
  CHECK(ldp::wire::glm_copy_count(32) == 1057);
}

TEST_CASE("zcdp_epsilon: CKS 2020 Corollary 13, between the exact Gaussian curve and rho + 2 sqrt(rho ln(1/delta))") {
  // Independent values: numpy's minimum of the corollary's bound over 2,000,001 orders a = 1 + e^t,
  // t in [-30, 30], at delta = 1e-6.
  const std::pair<double, double> pinned[] = {
      {0.01, 0.621692655}, {0.1, 2.141938928}, {0.5, 5.221534445}, {1, 7.766216626}, {13, 38.428934977}};
  for (const auto& pin : pinned) {
    const double rho = pin.first, epsilon = pin.second;  // named copies: clang 14 cannot capture bindings
    CAPTURE(rho);
    const double e = ldp::wire::zcdp_epsilon(rho, 1e-6);
    CHECK(e == doctest::Approx(epsilon).epsilon(2e-9));
    CHECK(e <= rho + 2 * std::sqrt(rho * std::log(1e6)));
    CHECK(e >= gaussian_epsilon(rho, 1e-6));
  }
  for (double rho : {1e-6, 1e-3, 0.3, 3.0, 30.0}) {
    for (double delta : {1e-12, 1e-6, 1e-2}) {
      CAPTURE(rho);
      CAPTURE(delta);
      const double e = ldp::wire::zcdp_epsilon(rho, delta);
      CHECK(e <= rho + 2 * std::sqrt(rho * std::log(1 / delta)));
      CHECK(e >= gaussian_epsilon(rho, delta) - 1e-12);
    }
  }
  CHECK(ldp::wire::zcdp_epsilon(0, 1e-6) == 0);
}

TEST_CASE("C.4 erratum 6: the paper's printed noise is below epsilon under exact Gaussian accounting, not 3 epsilon") {
  // Algorithms 4/5 with ||x||_2, |y| <= 1 (L2 change 2 each): copy 0 has variance
  // 32 ln(1.25/delta) / epsilon^2, each of the d (d + 1) others 8 ln(1.25/delta) d^2 (d + 1)^2 / epsilon^2.
  for (double epsilon : {0.25, 1.0}) {
    for (double d : {1.0, 2.0, 32.0}) {
      const double delta = 1e-6, log_term = std::log(1.25 / delta);
      const double first = 32 * log_term / (epsilon * epsilon);
      const double other = 8 * log_term * d * d * (d + 1) * (d + 1) / (epsilon * epsilon);
      const double rho = 8 / (2 * first) + d * (d + 1) * 8 / (2 * other);
      CAPTURE(epsilon);
      CAPTURE(d);
      // The exact curve of the (continuous) Gaussian noise the paper prints; the zCDP conversion
      // ldpkit uses for its discrete noise is a little looser (1.05 epsilon at d = 1, epsilon = 1).
      CHECK(gaussian_epsilon(rho, delta) < epsilon);
      CHECK(ldp::wire::zcdp_epsilon(rho, delta) < 1.06 * epsilon);
    }
  }
}

TEST_CASE("glm-copies device: the copy budget, the input's size, clamping, the report's entries") {
  const params big = glm_block(1, 2, 33);  // 1123 copies
  glm_context c;
  std::vector<std::byte> workspace(glm_context::workspace_size(big));
  CHECK(glm_context::init(workspace, big, &c) ==
        (ldp::device::glm_max_copies < 1123 ? status::limit_exceeded : status::ok));
  const params p = glm_block(4, 2, 2);
  ldp::test::owned_context<glm_context> ok(p);
  REQUIRE(ok.code == status::ok);
  auto rng = ldp::test::seeded_drbg("glm device");
  ldp::wire::report r;
  const std::vector<int64_t> three = {1, 2, 3};
  CHECK(ok->fields(three, 256, rng, &r) == status::invalid_argument);
  // Out-of-range inputs draw the same report as their clamped values.
  const std::vector<int64_t> wild = {-5, 900}, clamped = {0, 256};
  auto a = ldp::test::seeded_drbg("glm clamp"), b = ldp::test::seeded_drbg("glm clamp");
  std::vector<unsigned char> ra(ldp::wire::max_report_size(p)), rb(ra.size());
  std::size_t na = 0, nb = 0;
  REQUIRE(ok->randomize(wild, 1000, a, ra, ldp::device::framing::report, &na) == status::ok);
  REQUIRE(ok->randomize(clamped, 256, b, rb, ldp::device::framing::report, &nb) == status::ok);
  CHECK(std::vector<unsigned char>(ra.begin(), ra.begin() + na) ==
        std::vector<unsigned char>(rb.begin(), rb.begin() + nb));
  ldp::wire::report decoded;
  REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), {ra.data(), na}, &decoded) == status::ok);
  CHECK(decoded.count == 7 * 3);
}

TEST_CASE("glm-copies aggregator: the means of the copies, the saved state, merge order, a non-canonical body") {
  const params p = glm_block(1, 2, 1);  // 3 copies of (x_0, x_1, s)
  const auto a = ldp::test::make_aggregator(p);
  const std::vector<std::vector<int64_t>> users = {{256, 0, 256}, {128, 64, -256}, {0, 256, 256}};
  std::vector<std::vector<unsigned char>> bytes;
  for (const auto& u : users) {
    bytes.push_back(exact_report(p, u));
    REQUIRE(a->add_report(bytes.back()) == status::ok);
  }
  const auto e = a->estimate_all(0.95);
  REQUIRE(e.size() == 3);
  const double sigma2 = static_cast<double>(p.get(field::noise_sigma2)) / 65536.0;
  CHECK(e[0].value == doctest::Approx((1 + 0.5 + 0) / 3.0));
  CHECK(e[1].value == doctest::Approx((0 + 0.25 + 1) / 3.0));
  CHECK(e[2].value == doctest::Approx(1 / 3.0));
  CHECK(e[0].variance == doctest::Approx((0.25 + sigma2 / 3) / 3));
  CHECK(e[2].variance == doctest::Approx((1 + sigma2 / 3) / 3));
  CHECK(e[0].kind == ldp::server::variance_kind::bound);
  CHECK(ldp::server::is_glm_mechanism(p.mech));
  const auto saved = a->serialize();
  std::unique_ptr<aggregator> back;
  REQUIRE(aggregator::deserialize(saved, &back) == status::ok);
  CHECK(back->serialize() == saved);
  ldp::test::check_merge_order(p, bytes, {0, 1, 3}, saved);
  // The rows sorted: the first two swapped is refused.
  std::vector<unsigned char> body(saved.begin() + ldp::wire::state_header_size, saved.end());
  const std::size_t row = 9 * 8;
  REQUIRE(body.size() >= 3 * row);
  std::swap_ranges(body.end() - 3 * row, body.end() - 2 * row, body.end() - 2 * row);
  std::vector<unsigned char> swapped(ldp::wire::state_header_size);
  REQUIRE(ldp::wire::encode_state_header(p.mech, ldp::wire::fingerprint(p), body, swapped) == status::ok);
  swapped.insert(swapped.end(), body.begin(), body.end());
  std::unique_ptr<aggregator> refused;
  CHECK(aggregator::deserialize(swapped, &refused) == status::malformed_report);
}

TEST_CASE("glm links: f(s <theta, x> / p) is wire::loss_value; Lemma 32's kink law gives f'") {
  std::mt19937_64 g(3);
  const auto uniform = [&] { return std::ldexp(static_cast<double>(g() >> 11), -53); };
  for (loss_kind loss : {loss_kind::logistic, loss_kind::hinge}) {
    for (uint32_t p : {1u, 2u, 5u}) {
      for (int t = 0; t < 50; ++t) {
        std::vector<double> w(p), x(p);
        double m = 0;
        for (uint32_t j = 0; j < p; ++j) {
          w[j] = uniform();
          x[j] = uniform();
          m += (2 * w[j] - 1) * x[j];
        }
        const double y = t % 2;
        CHECK(ldp::server::glm_link(loss, p, (2 * y - 1) * m / p) ==
              doctest::Approx(ldp::wire::loss_value(loss, w.data(), x.data(), p, y)).epsilon(1e-12));
      }
      // f'(z) = (f'(1) - f'(-1)) P(s < z) + f'(-1), P by the midpoint rule over the quantile.
      const double lo = ldp::server::glm_link_slope(loss, p, -1), hi = ldp::server::glm_link_slope(loss, p, 1);
      for (double z : {-0.9, -0.3, 0.25, 0.7}) {  // not at hinge's kinks 1/p
        const int nodes = 20000;
        int below = 0;
        for (int i = 0; i < nodes; ++i) below += ldp::server::glm_kink_quantile(loss, p, (i + 0.5) / nodes) < z;
        CAPTURE(z);
        CHECK((hi - lo) * below / nodes + lo == doctest::Approx(ldp::server::glm_link_slope(loss, p, z)).epsilon(1e-4));
      }
    }
  }
  CHECK(std::isnan(ldp::server::glm_link(loss_kind::squared, 2, 0.1)));
}

TEST_CASE("glm estimator on noise-free copies: term j uses its own s_j and the exponents j, d - j (erratum 7)") {
  const params p = glm_block(1, 2, 3);
  const std::vector<int64_t> copy = {192, 64, -256};  // x = (0.75, 0.25), s = -1
  const auto bytes = exact_report(p, copy);
  ldp::wire::report r;
  REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), bytes, &r) == status::ok);
  std::vector<int64_t> row(r.count);
  REQUIRE(ldp::wire::read_vector(r, row) == status::ok);
  const std::vector<double> theta = {0.4, -0.8}, s = {0.3, -0.2, 0.6, 0.0};
  const double z = -1 * (0.4 * 0.75 - 0.8 * 0.25) / 2, beta = 0.3;
  for (loss_kind loss : {loss_kind::logistic, loss_kind::hinge}) {
    const double lo = ldp::server::glm_link_slope(loss, 2, -1), hi = ldp::server::glm_link_slope(loss, 2, 1);
    double sum = 0;
    const double binomial[] = {1, 3, 3, 1};
    for (int j = 0; j <= 3; ++j) {
      const double t = 4.0 * j / 3 - 2, u = (z - s[j] + 2) / 4;
      sum += 0.5 * (1 + t / std::sqrt(t * t + beta * beta)) * binomial[j] * std::pow(u, j) * std::pow(1 - u, 3 - j);
    }
    const double expected = (hi - lo) * sum + lo;
    CHECK(ldp::server::glm_slope_estimate(p, row.data(), theta.data(), s.data(), beta, loss) ==
          doctest::Approx(expected).epsilon(1e-12));
    double grad[2];
    ldp::server::glm_gradient(p, row.data(), theta.data(), s.data(), beta, loss, grad);
    CHECK(grad[0] == doctest::Approx(expected * -1 * 0.75 / 2).epsilon(1e-12));
    CHECK(grad[1] == doctest::Approx(expected * -1 * 0.25 / 2).epsilon(1e-12));
  }
}

TEST_CASE("glm_train: its refusals, the same w_priv from any merge order, w = (theta + 1) / 2") {
  const params p = glm_block(4, 2, 2);
  ldp::test::owned_context<glm_context> c(p);
  REQUIRE(c.code == status::ok);
  auto rng = ldp::test::seeded_drbg("glm train");
  std::vector<std::vector<unsigned char>> bytes;
  for (int i = 0; i < 40; ++i) {
    const std::vector<int64_t> x = {i * 6, 256 - i * 6};
    bytes.emplace_back(ldp::wire::max_report_size(p));
    std::size_t size = 0;
    REQUIRE(c->randomize(x, i % 2 ? 256 : -256, rng, bytes.back(), ldp::device::framing::report, &size) == status::ok);
    bytes.back().resize(size);
  }
  const auto all = ldp::test::make_aggregator(p), x = ldp::test::make_aggregator(p), y = ldp::test::make_aggregator(p);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    REQUIRE(all->add_report(bytes[i]) == status::ok);
    REQUIRE((i < 15 ? x : y)->add_report(bytes[i]) == status::ok);
  }
  REQUIRE(y->merge(*x) == status::ok);
  ldp::server::glm_options o;
  o.loss = loss_kind::logistic;
  ldp::server::glm_result a, b;
  REQUIRE(ldp::server::glm_train(*all, o, &a) == status::ok);
  REQUIRE(ldp::server::glm_train(*y, o, &b) == status::ok);
  CHECK(a.theta == b.theta);
  REQUIRE(a.w.size() == 2);
  for (int j = 0; j < 2; ++j) {
    CHECK(a.w[j] == (a.theta[j] + 1) / 2);
    CHECK(a.theta[j] >= -1);
    CHECK(a.theta[j] <= 1);
  }
  CHECK(a.steps == 40);
  CHECK(a.smoothing == doctest::Approx(std::cbrt(16.0) / 4));
  CHECK(a.epsilon == ldp::wire::implemented_epsilon(p));
  ldp::server::glm_result r;
  o.loss = loss_kind::squared;
  CHECK(ldp::server::glm_train(*all, o, &r) == status::invalid_argument);
  o.loss = loss_kind::hinge;
  o.smoothing = -1;
  CHECK(ldp::server::glm_train(*all, o, &r) == status::invalid_argument);
  o.smoothing = 0;
  CHECK(ldp::server::glm_train(*ldp::test::make_aggregator(p), o, &r) == status::invalid_argument);
  CHECK(ldp::server::glm_train(*ldp::test::make_aggregator(ldp::test::example_params(ldp::wire::mechanism::laplace)), o,
                               &r) == status::invalid_argument);
}
