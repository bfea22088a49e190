// Kent M5 (docs/mechanisms.md C.1 M5): the wire's M5 blocks, the device's fixed-point feature means
// (bit for bit against an independent integer computation), k's rule, and the density's formula.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/server.h"
#include "ldp/wire.h"

using ldp::status;
using ldp::server::user_level_config;
using ldp::server::user_level_method;
using ldp::server::user_level_protocol;
using ldp::wire::field;

namespace {

ldp::wire::kent_shape m5_shape(uint32_t k, uint32_t j, unsigned f, uint32_t cap) {
  ldp::wire::kent_shape s;
  s.frac_bits = f;
  s.clip_lo = -(int64_t{1} << f);
  s.clip_hi = int64_t{1} << f;
  s.observations = cap;
  s.vector_dim = k - 1;
  s.fold_coordinate = j;
  s.basis = 1;
  return s;
}

}  // namespace

TEST_CASE("M5 blocks: basis 1 with the fold, the features' range [-1, 1]") {
  const auto vote = ldp::wire::make_kent_vote(1.0, 8, m5_shape(9, 3, 16, 64));
  REQUIRE(vote.code == status::ok);
  CHECK(vote.block.get(field::basis) == 1);
  CHECK(ldp::wire::shape_of(vote.block).basis == 1);
  ldp::wire::kent_shape bad = m5_shape(9, 3, 16, 64);
  bad.basis = 2;  // no other basis
  CHECK(ldp::wire::make_kent_vote(1.0, 8, bad).code != status::ok);
  bad = m5_shape(9, 3, 16, 64);
  bad.clip_hi = int64_t{1} << 15;  // not [-1, 1]
  bad.clip_lo = -bad.clip_hi;
  CHECK(ldp::wire::make_kent_vote(1.0, 8, bad).code != status::ok);
  bad = m5_shape(9, 8, 16, 64);  // j >= k - 1
  CHECK(ldp::wire::make_kent_refine(1.0, -100, 100, bad).code != status::ok);
  bad = m5_shape(9, 3, 16, 64);
  bad.vector_dim = 0;  // basis without the fold
  CHECK(ldp::wire::make_kent_vote(1.0, 8, bad).code != status::ok);
}

TEST_CASE("the device's feature mean: one rounding of the exact Q30 sum, bit for bit") {
  // Reference: S = sum of basis_feature over the first T~ observations; the value v is the nearest
  // integer to S 2^f / (T~ 2^30), ties to even, checked as |2 (v D - S 2^(f-30) ...)| in integers.
  const std::vector<int64_t> xs = {0, 1, 12345, 32768, 65536, 70000, -5, 40000, 99, 54321};
  for (unsigned f : {16u, 30u, 40u}) {
    for (uint32_t j : {0u, 1u, 4u, 7u}) {
      CAPTURE(f);
      CAPTURE(j);
      const auto block = ldp::wire::make_kent_refine(1.0, -(int64_t{1} << f), int64_t{1} << f, m5_shape(9, j, f, 7));
      REQUIRE(block.code == status::ok);
      ldp::test::owned_context<ldp::device::user_level_context> device(block.block);
      REQUIRE(device.code == status::ok);
      std::vector<int64_t> obs;
      for (int64_t x : xs) obs.push_back(x * (int64_t{1} << (f - 16)));
      int64_t v = 0;
      REQUIRE(device->value(obs, &v) == status::ok);
      long double s = 0;
      for (std::size_t t = 0; t < 7; ++t) s += static_cast<long double>(ldp::wire::basis_feature(j, obs[t], f));
      const long double exact = std::ldexp(s, static_cast<int>(f) - 30) / 7;
      CHECK(std::fabs(static_cast<long double>(v) - exact) <= 0.5L);
      // The features of observations past T~ = 7 are never read.
      obs[8] = 0;
      int64_t w = 0;
      REQUIRE(device->value(obs, &w) == status::ok);
      CHECK(w == v);
    }
  }
  // 2000 random datasets at f = 16: a device that rounded each feature to the grid before averaging
  // (two roundings) lands on the other side of the exact mean in some of them.
  std::mt19937_64 engine(42);
  std::uniform_int_distribution<int64_t> grid(0, int64_t{1} << 16);
  for (uint32_t j = 0; j < 8; ++j) {
    const auto block = ldp::wire::make_kent_refine(1.0, -(int64_t{1} << 16), int64_t{1} << 16, m5_shape(9, j, 16, 7));
    ldp::test::owned_context<ldp::device::user_level_context> device(block.block);
    REQUIRE(device.code == status::ok);
    for (int r = 0; r < 250; ++r) {
      std::vector<int64_t> obs(7);
      long double s = 0;
      for (int64_t& x : obs) {
        x = grid(engine);
        s += static_cast<long double>(ldp::wire::basis_feature(j, x, 16));
      }
      int64_t v = 0;
      REQUIRE(device->value(obs, &v) == status::ok);
      CHECK(std::fabs(static_cast<long double>(v) - std::ldexp(s, -14) / 7) <= 0.5L);
    }
  }
  // Pinned on every target (this test runs under qemu): f = 16, j = 1, the first 7 of xs.
  const auto block = ldp::wire::make_kent_vote(1.0, 8, m5_shape(9, 1, 16, 7));
  ldp::test::owned_context<ldp::device::user_level_context> device(block.block);
  int64_t v = 0;
  REQUIRE(device->value(xs, &v) == status::ok);
  CHECK(v == 8670);
}

TEST_CASE("k: the rule of C.1 M5, odd, at least 3") {
  // (n T alpha^2)^(1/4) = (10000 * 32)^(1/4) = 23.8; n alpha^2 / (100 ln(n alpha^2)) = 10.86: k = 9.
  CHECK(user_level_protocol::m5_basis_size(10000, 32, 0, 1.0, 1.0, 100) == 9);
  // The first term binds: (1e6 * 1)^(1/4) = 31.6 against 1e6 / 1381.6 = 723.8: k = 31.
  CHECK(user_level_protocol::m5_basis_size(1000000, 1, 0, 1.0, 1.0, 100) == 31);
  CHECK(user_level_protocol::m5_basis_size(1000000, 100, 1, 1.0, 1.0, 100) == 31);  // the cap counts
  CHECK(user_level_protocol::m5_basis_size(1000000, 1, 0, 1.0, 3.0, 100) == 5);     // beta = 3: 1e6^(1/8)
  CHECK(user_level_protocol::m5_basis_size(100, 1, 0, 1.0, 1.0, 100) == 3);
  CHECK(user_level_protocol::m5_basis_size(0, 1, 0, 1.0, 1.0, 100) == 0);
}

TEST_CASE("density: 1 + 2 sum theta_j c_j(x), variance 4 sum c_j^2 Var, clip and renormalize") {
  user_level_config c;
  c.method = user_level_method::m5;
  c.users = 1000;
  c.basis_size = 5;
  user_level_protocol p;
  REQUIRE(user_level_protocol::create(c, &p) == status::ok);
  REQUIRE(p.folds() == 4);
  std::vector<ldp::server::estimate> features(4);
  const double theta[4] = {0.3, -0.1, 0.2, 0.05}, var[4] = {0.01, 0.02, 0.03, 0.04};
  for (uint32_t j = 0; j < 4; ++j) {
    features[j].value = theta[j];
    features[j].variance = var[j];
  }
  std::vector<ldp::server::density_point> d;
  REQUIRE(p.density(features, 8, 0.95, false, &d) == status::ok);
  const double pi = std::acos(-1.0);
  double mass = 0;
  for (uint32_t i = 0; i < 8; ++i) {
    const double x = (i + 0.5) / 8;
    const double c1 = std::cos(2 * pi * x), s1 = std::sin(2 * pi * x), c2 = std::cos(4 * pi * x),
                 s2 = std::sin(4 * pi * x);
    CHECK(d[i].x == x);
    CHECK(d[i].value == doctest::Approx(1 + 2 * (0.3 * c1 - 0.1 * s1 + 0.2 * c2 + 0.05 * s2)).epsilon(1e-12));
    CHECK(d[i].variance ==
          doctest::Approx(4 * (0.01 * c1 * c1 + 0.02 * s1 * s1 + 0.03 * c2 * c2 + 0.04 * s2 * s2)).epsilon(1e-12));
    CHECK(d[i].ci_high - d[i].value == doctest::Approx(1.959964 * std::sqrt(d[i].variance)).epsilon(1e-5));
    mass += d[i].value / 8;
  }
  CHECK(mass == doctest::Approx(1).epsilon(1e-12));  // the midpoint rule is exact for P >= k
  std::vector<ldp::server::density_point> clipped;
  REQUIRE(p.density(features, 8, 0.95, true, &clipped) == status::ok);
  double z = 0;
  for (const auto& q : d) z += std::max(q.value, 0.0) / 8;
  for (uint32_t i = 0; i < 8; ++i) CHECK(clipped[i].value == doctest::Approx(std::max(d[i].value, 0.0) / z));
  const std::vector<ldp::server::estimate> three(3);
  CHECK(p.density(three, 8, 0.95, false, &d) == status::invalid_argument);
  CHECK(p.density(features, 0, 0.95, false, &d) == status::invalid_argument);
}
