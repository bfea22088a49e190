// Ghazi et al. Algorithm 2 (docs/mechanisms.md I.3): the public matrix, the l1 decoder (exact recovery
// without noise, the LASSO error bound with noise), and the release's calibration and sensitivity.
// Every check is deterministic (fixed seeds): none can fail by chance.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/random.h"
#include "ldp/server/central/compressed_sensing.h"
#include "ldp/server/central/sparse_projection.h"
#include "tables.h"

namespace {

using ldp::status;
using ldp::server::cs_decode;
using ldp::server::cs_decode_options;
using ldp::server::cs_matrix;
using ldp::server::cs_release;
using ldp::server::cs_release_options;
using ldp::server::release_cs_mean;
using ldp::server::sparse_point;

std::vector<double> times(const std::vector<double>& a, const std::vector<double>& x, std::size_t m) {
  const std::size_t d = x.size();
  std::vector<double> y(m, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < d; ++j) y[i] += a[i * d + j] * x[j];
  }
  return y;
}

double distance(const std::vector<double>& u, const std::vector<double>& v) {
  double s = 0;
  for (std::size_t j = 0; j < u.size(); ++j) s += (u[j] - v[j]) * (u[j] - v[j]);
  return std::sqrt(s);
}

// An s-sparse vector with spread support and values of magnitude in [0.5, 1.5], random signs.
std::vector<double> sparse_vector(ldp::random::drbg& rng, std::size_t d, std::size_t s) {
  std::vector<double> x(d, 0.0);
  for (std::size_t placed = 0; placed < s;) {
    const auto j = static_cast<std::size_t>(rng.next_u64() % d);
    if (x[j] != 0) continue;
    const double magnitude = 0.5 + static_cast<double>(rng.next_u64() >> 11) * 0x1p-53;
    x[j] = (rng.next_u64() & 1) != 0 ? magnitude : -magnitude;
    ++placed;
  }
  return x;
}

}  // namespace

TEST_CASE("cs_matrix: a function of (m, d, seed), entries N(0, 1/m)") {
  std::vector<double> a, b, c;
  REQUIRE(cs_matrix(64, 200, 7, &a) == status::ok);
  REQUIRE(cs_matrix(64, 200, 7, &b) == status::ok);
  REQUIRE(cs_matrix(64, 200, 8, &c) == status::ok);
  CHECK(a == b);
  CHECK(a != c);
  // 12800 entries: the sample variance times m is 1 within 6 standard errors (sqrt(2 / 12800) = 0.0125),
  // and the mean is 0 within 6 / sqrt(12800) / sqrt(m): a fixed seed, so this is a check of the scale.
  double sum = 0, squares = 0;
  for (double v : a) {
    sum += v;
    squares += v * v;
  }
  const double n = static_cast<double>(a.size());
  CHECK(std::fabs(sum / n) < 6 / std::sqrt(n) / 8);
  CHECK(std::fabs(squares / n * 64 - 1) < 6 * std::sqrt(2 / n));
  CHECK(cs_matrix(0, 10, 1, &a) == status::invalid_argument);
  CHECK(cs_matrix(1u << 15, 1u << 14, 1, &a) == status::invalid_argument);
}

TEST_CASE("cs_decode: recovers an s-sparse vector exactly from noiseless measurements") {
  auto rng = ldp::test::seeded_drbg("cs exact recovery");
  const std::size_t d = 256, m = 80;
  std::vector<double> a;
  REQUIRE(cs_matrix(m, d, 11, &a) == status::ok);
  for (std::size_t s : {1, 3, 6}) {
    const std::vector<double> x = sparse_vector(rng, d, s);
    const std::vector<double> y = times(a, x, m);
    cs_decode_options o;
    o.lambda = 1e-10;
    std::vector<double> z;
    REQUIRE(cs_decode(a, y, d, o, &z) == status::ok);
    REQUIRE(z.size() == d);
    CAPTURE(s);
    CHECK(distance(z, x) < 1e-6);
  }
}

TEST_CASE("cs_decode: the LASSO error bound with noise") {
  // With lambda >= 2 ||A^T w||_inf, the LASSO error is at most 3 sqrt(s) lambda / kappa, kappa the
  // restricted eigenvalue of A^T A on the cone ||v_{S^c}||_1 <= 3 ||v_S||_1 (Hastie, Tibshirani,
  // Wainwright 2015, Thm 11.1). kappa >= 1/4 is a conservative value for this Gaussian A (m = 96,
  // s <= 4: m is about 3 s ln(d / s)); the bound is checked, not assumed, at these fixed seeds.
  auto rng = ldp::test::seeded_drbg("cs noisy recovery");
  const std::size_t d = 300, m = 96;
  std::vector<double> a;
  REQUIRE(cs_matrix(m, d, 12, &a) == status::ok);
  for (double noise : {1e-3, 1e-2, 5e-2}) {
    for (std::size_t s : {2, 4}) {
      const std::vector<double> x = sparse_vector(rng, d, s);
      std::vector<double> y = times(a, x, m);
      std::vector<double> w(m);
      for (std::size_t i = 0; i < m; ++i) {
        w[i] = noise * (static_cast<double>(rng.next_u64() >> 11) * 0x1p-53 * 2 - 1) * std::sqrt(3.0);
        y[i] += w[i];
      }
      double bound = 0;  // ||A^T w||_inf
      for (std::size_t j = 0; j < d; ++j) {
        double g = 0;
        for (std::size_t i = 0; i < m; ++i) g += a[i * d + j] * w[i];
        bound = std::max(bound, std::fabs(g));
      }
      cs_decode_options o;
      o.lambda = 2 * bound;
      std::vector<double> z;
      REQUIRE(cs_decode(a, y, d, o, &z) == status::ok);
      CAPTURE(noise);
      CAPTURE(s);
      CHECK(distance(z, x) <= 3 * std::sqrt(static_cast<double>(s)) * o.lambda / 0.25);
      // The LASSO's optimality (KKT) conditions, g = A^T (y - A z): |g_j| <= lambda everywhere and
      // g_j = lambda sign(z_j) on the support of z.
      const std::vector<double> az = times(a, z, m);
      for (std::size_t j = 0; j < d; ++j) {
        double g = 0;
        for (std::size_t i = 0; i < m; ++i) g += a[i * d + j] * (y[i] - az[i]);
        CHECK(std::fabs(g) <= o.lambda * (1 + 1e-6));
        if (z[j] != 0) CHECK(g == doctest::Approx(z[j] > 0 ? o.lambda : -o.lambda).epsilon(1e-6));
      }
    }
  }
}

TEST_CASE("cs_decode: arguments") {
  std::vector<double> a(6, 1.0), y(2, 1.0), z;
  CHECK(cs_decode(a, y, 3, cs_decode_options{}, &z) == status::ok);
  CHECK(cs_decode(a, y, 4, cs_decode_options{}, &z) == status::invalid_argument);
  cs_decode_options o;
  o.lambda = -1;
  CHECK(cs_decode(a, y, 3, o, &z) == status::invalid_argument);
  y[0] = NAN;
  CHECK(cs_decode(a, y, 3, cs_decode_options{}, &z) == status::invalid_argument);
}

TEST_CASE("release_cs_mean: calibration on the sensitivity 2 floor((1 + eta) L 2^f)") {
  std::vector<sparse_point> points(10, sparse_point{{3}, {0.5}});
  cs_release_options o;
  o.measurements = 16;
  o.radius = 2;
  o.rip_slack = 0.5;
  o.frac_bits = 10;
  o.epsilon = 1;
  o.delta = 1e-6;
  auto rng = ldp::test::seeded_drbg("cs calibration");
  cs_release r;
  REQUIRE(release_cs_mean(points, 64, o, rng, &r) == status::ok);
  CHECK(r.sensitivity == 2 * 3 * 1024);
  // sigma^2 from the zCDP rule, computed here from its formula: rho = Delta^2 / (2 sigma^2) with
  // rho + 2 sqrt(rho ln(1/delta)) <= epsilon, sigma^2 the smallest such integer (up to the D.1 margin).
  const double log_term = std::log(1e6);
  const double root = std::sqrt(log_term + 1) - std::sqrt(log_term);
  const double ideal = 6144.0 * 6144.0 / (2 * root * root);
  CHECK(static_cast<double>(r.sigma2) >= ideal);
  CHECK(static_cast<double>(r.sigma2) <= ideal * 1.001 + 1);
  CHECK(r.epsilon_impl <= 1);
  CHECK(r.noise_sd == doctest::Approx(std::sqrt(static_cast<double>(r.sigma2)) / 1024 / 10));
  CHECK(r.lambda == doctest::Approx(r.noise_sd * std::sqrt(2 * std::log(128.0))));
  CHECK(r.measured_mean.size() == 16);
  CHECK(r.mean.size() == 64);
}

TEST_CASE("release_cs_mean: replacing one point moves the measured mean by at most 2 C / n") {
  // The same noise draws (same DRBG seed) on neighbouring sets: the difference of the measured means
  // is the difference of the clipped sums. x and -x with x = A^T u / ||A^T u||, which A stretches by
  // about 1 + sqrt(d / m) > 1 + eta: without the measurement clip the difference would exceed 2C/n.
  const uint32_t d = 256, m = 32;
  cs_release_options o;
  o.measurements = m;
  o.matrix_seed = 5;
  o.radius = 1;
  o.rip_slack = 0.5;
  std::vector<double> a;
  REQUIRE(cs_matrix(m, d, 5, &a) == status::ok);
  std::vector<double> stretched(d, 0.0);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < d; ++j) stretched[j] += a[i * d + j] * (i % 2 == 0 ? 1.0 : 0.5);
  }
  double norm = 0;
  for (double v : stretched) norm += v * v;
  norm = std::sqrt(norm);
  sparse_point plus, minus;
  for (uint32_t j = 0; j < d; ++j) {
    plus.index.push_back(j);
    plus.value.push_back(stretched[j] / norm);
    minus.index.push_back(j);
    minus.value.push_back(-stretched[j] / norm);
  }
  REQUIRE(distance(times(a, plus.value, m), std::vector<double>(m, 0.0)) > 2.5);  // the clip acts
  auto rng = ldp::test::seeded_drbg("cs sensitivity data");
  std::vector<sparse_point> first, second;
  for (int i = 0; i < 20; ++i) {
    const std::vector<double> x = sparse_vector(rng, d, 3);
    sparse_point p;
    for (uint32_t j = 0; j < d; ++j) {
      if (x[j] != 0) {
        p.index.push_back(j);
        p.value.push_back(x[j] / 3);
      }
    }
    first.push_back(p);
  }
  second = first;
  first[7] = plus;
  second[7] = minus;
  auto rng1 = ldp::test::seeded_drbg("cs sensitivity noise");
  auto rng2 = ldp::test::seeded_drbg("cs sensitivity noise");
  cs_release r1, r2;
  REQUIRE(release_cs_mean(first, d, o, rng1, &r1) == status::ok);
  REQUIRE(release_cs_mean(second, d, o, rng2, &r2) == status::ok);
  const double moved = distance(r1.measured_mean, r2.measured_mean);
  const double limit = static_cast<double>(r1.sensitivity) / std::ldexp(1.0, 16) / 20;
  CHECK(moved <= limit);
  CHECK(moved > 0.99 * limit);  // both clipped to the sphere, opposite: the bound is attained
}

TEST_CASE("release_cs_mean: a point beyond L counts as the point scaled to L") {
  cs_release_options o;
  o.measurements = 8;
  o.radius = 1;
  o.rip_slack = 4;  // a clip on the measurements this loose never acts on points of norm 1 here
  const std::vector<sparse_point> far{sparse_point{{1, 5}, {30, 40}}, sparse_point{{2}, {0.5}}};
  const std::vector<sparse_point> scaled{sparse_point{{1, 5}, {0.6, 0.8}}, sparse_point{{2}, {0.5}}};
  auto rng1 = ldp::test::seeded_drbg("cs point clip");
  auto rng2 = ldp::test::seeded_drbg("cs point clip");
  cs_release r1, r2;
  REQUIRE(release_cs_mean(far, 16, o, rng1, &r1) == status::ok);
  REQUIRE(release_cs_mean(scaled, 16, o, rng2, &r2) == status::ok);
  CHECK(distance(r1.measured_mean, r2.measured_mean) < 1e-4);  // the grid's rounding only
}

TEST_CASE("release_cs_mean: the decoded mean of sparse data at eps = 1") {
  // n = 3000 points on a common 4-sparse support (values vary per point), so the mean is 4-sparse.
  // The error is at most the LASSO bound 3 sqrt(s) lambda / (1/4) of the decoder's test when lambda
  // dominates ||A^T z||_inf (lambda = noise_sd sqrt(2 ln 2d): exceeded with probability below 1/2 per
  // release; the fixed seed makes the check deterministic) and far below the mean's norm.
  const uint32_t d = 256, m = 64;
  auto rng = ldp::test::seeded_drbg("cs accuracy data");
  const std::vector<double> centre = sparse_vector(rng, d, 4);
  std::vector<uint32_t> support;
  for (uint32_t j = 0; j < d; ++j) {
    if (centre[j] != 0) support.push_back(j);
  }
  std::vector<sparse_point> points;
  std::vector<double> mean(d, 0.0);
  const std::size_t n = 3000;
  for (std::size_t i = 0; i < n; ++i) {
    sparse_point p;
    for (uint32_t j : support) {
      const double jitter = 0.8 + 0.4 * static_cast<double>(rng.next_u64() >> 11) * 0x1p-53;
      p.index.push_back(j);
      p.value.push_back(centre[j] * jitter / 3);
      mean[j] += p.value.back() / static_cast<double>(n);
    }
    points.push_back(p);
  }
  cs_release_options o;
  o.measurements = m;
  o.matrix_seed = 9;
  o.radius = 1;
  o.epsilon = 1;
  o.delta = 1e-6;
  auto noise = ldp::test::seeded_drbg("cs accuracy noise");
  cs_release r;
  REQUIRE(release_cs_mean(points, d, o, noise, &r) == status::ok);
  const double error = distance(r.mean, mean);
  CHECK(error <= 3 * 2 * r.lambda / 0.25);
  CHECK(error < 0.1 * distance(mean, std::vector<double>(d, 0.0)));
}

TEST_CASE("release_cs_mean: arguments") {
  std::vector<sparse_point> points{sparse_point{{1, 1}, {0.5, 0.5}}};
  cs_release_options o;
  o.measurements = 4;
  auto rng = ldp::test::seeded_drbg("cs arguments");
  cs_release r;
  CHECK(release_cs_mean(points, 8, o, rng, &r) == status::invalid_argument);  // repeated index
  points[0] = sparse_point{{1, 1}, {0.0, 0.5}};
  CHECK(release_cs_mean(points, 8, o, rng, &r) == status::invalid_argument);  // repeated, first value 0
  points[0] = sparse_point{{8}, {0.5}};
  CHECK(release_cs_mean(points, 8, o, rng, &r) == status::invalid_argument);  // index >= d
  points[0] = sparse_point{{2}, {0.5}};
  CHECK(release_cs_mean(points, 8, o, rng, &r) == status::ok);
  o.measurements = 9;
  CHECK(release_cs_mean(points, 8, o, rng, &r) == status::invalid_argument);  // m > d
  o.measurements = 4;
  o.delta = 0;
  CHECK(release_cs_mean(points, 8, o, rng, &r) == status::invalid_argument);
  CHECK(release_cs_mean({}, 8, cs_release_options{}, rng, &r) == status::invalid_argument);
}
