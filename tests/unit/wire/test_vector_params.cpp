// Vector mean blocks (docs/mechanisms.md B.5; docs/wire_format.md 3.2-3.3): the clip r of the rotated
// coordinate by its defining inequality, the scalar thresholds or scale on [-r, r] with their
// implemented epsilon, the rotation scale as an exact rational, and rejected arguments.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "ldp/wire.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

const unsigned char seed[32] = {7, 1, 2, 3};

// r^2 d~ <= R^2 * 2 ln(2 d~ / beta) in long double, with a relative slack far above det_log's error
// and far below one grid step at these sizes.
bool clip_inequality(int64_t r, int64_t radius, uint64_t dim, double beta, long double slack) {
  const auto big_r = static_cast<long double>(radius), small_r = static_cast<long double>(r);
  const auto n = static_cast<long double>(dim);
  const long double bound = big_r * big_r * 2 * std::log(2 * n / beta);
  return small_r * small_r * n <= bound * (1 + slack);
}

}  // namespace

TEST_CASE("the clip is the largest grid value with r^2 d~ <= R^2 2 ln(2 d~ / beta), at most R") {
  const int64_t radii[] = {1, 3, 1000, 65536, 1 << 20, 189812531};
  const uint64_t dims[] = {1, 2, 4, 128, 1024, uint64_t{1} << 16};
  const double betas[] = {1e-9, 1e-3, 0.05, 0.5};
  for (int64_t radius : radii) {
    for (uint64_t dim : dims) {
      for (double beta : betas) {
        CAPTURE(radius);
        CAPTURE(dim);
        CAPTURE(beta);
        const int64_t r = ldp::wire::vector_clip(radius, dim, beta);
        const auto squared = static_cast<uint64_t>(radius) * static_cast<uint64_t>(radius);
        if (squared * dim >= (uint64_t{1} << 62)) {
          CHECK(r == 0);  // the int32 rotation would not fit
          continue;
        }
        REQUIRE(r >= 0);
        CHECK(r <= radius);
        if (r < radius) {
          CHECK(clip_inequality(r, radius, dim, beta, 1e-12L));
          CHECK_FALSE(clip_inequality(r + 1, radius, dim, beta, -1e-12L));
        } else {
          CHECK(clip_inequality(r, radius, dim, beta, 1e-12L));
        }
      }
    }
  }
  // A golden value, identical on every target: R = 2^16, d~ = 128, beta = 1e-3 gives
  // r = floor(2^16 sqrt(2 ln(256000) / 128)) = floor(28908.47...).
  CHECK(ldp::wire::vector_clip(65536, 128, 1e-3) == 28908);
  CHECK(ldp::wire::vector_clip(0, 128, 1e-3) == 0);
  CHECK(ldp::wire::vector_clip(65536, 100, 1e-3) == 0);  // not a power of two
  CHECK(ldp::wire::vector_clip(65536, 128, 0.0) == 0);
  CHECK(ldp::wire::vector_clip(65536, 128, 1.0) == 0);
}

TEST_CASE("vector-duchi and vector-laplace blocks: the scalar mechanism on [-r, r] plus the rotation") {
  for (uint32_t d : {1u, 3u, 100u, 128u, 1000u}) {
    CAPTURE(d);
    uint64_t dim = 1;
    while (dim < d) dim <<= 1;
    const int64_t r = ldp::wire::vector_clip(1 << 16, dim, 1e-3);
    const double real_r = static_cast<double>(r) / 65536;
    const auto duchi = ldp::wire::make_vector_duchi(d, 1.0, 16, 1.0, 1e-3, seed);
    REQUIRE(duchi.code == status::ok);
    const auto& p = duchi.block;
    CHECK(p.mech == mechanism::vector_duchi);
    CHECK(ldp::wire::validate(p) == status::ok);
    CHECK(p.get(field::domain) == d);
    CHECK(p.get(field::hadamard_dim) == dim);
    CHECK(p.get_signed(field::radius) == 65536);
    CHECK(p.get_signed(field::clip_hi) == r);
    CHECK(p.get_signed(field::clip_lo) == -r);
    CHECK(std::equal(seed, seed + 32, p.rotation_seed));
    const auto scalar = ldp::wire::make_duchi(-real_r, real_r, 16, 1.0);
    REQUIRE(scalar.code == status::ok);
    CHECK(p.get(field::threshold_keep) == scalar.block.get(field::threshold_keep));
    CHECK(p.get(field::threshold_other) == scalar.block.get(field::threshold_other));
    CHECK(duchi.epsilon_impl == scalar.epsilon_impl);
    CHECK(duchi.epsilon_impl == ldp::wire::implemented_epsilon(p));
    CHECK(duchi.epsilon_impl <= 1.0);
    CHECK(duchi.epsilon_impl > 1.0 - 1e-6);

    const auto laplace = ldp::wire::make_vector_laplace(d, 1.0, 16, 1.0, 1e-3, seed);
    REQUIRE(laplace.code == status::ok);
    const auto& q = laplace.block;
    CHECK(q.mech == mechanism::vector_laplace);
    CHECK(q.get_signed(field::clip_hi) == r);
    // Sensitivity 2r grid units: epsilon_impl = 2r t_den / t_num.
    const double level = static_cast<double>(2 * r) * static_cast<double>(q.get(field::scale_den)) /
                         static_cast<double>(q.get(field::scale_num));
    CHECK(laplace.epsilon_impl == level);
    CHECK(laplace.epsilon_impl <= 1.0);
    CHECK(laplace.epsilon_impl > 1.0 - 1e-4);
  }
}

TEST_CASE("vector block arguments out of range are rejected") {
  const auto bad = [](ldp::wire::derived_params p) { return p.code == status::invalid_argument; };
  CHECK(bad(ldp::wire::make_vector_duchi(0, 1.0, 16, 1.0, 1e-3, seed)));
  CHECK(bad(ldp::wire::make_vector_duchi((1u << 30) + 1, 1.0, 16, 1.0, 1e-3, seed)));
  CHECK(bad(ldp::wire::make_vector_duchi(100, 1.0, 16, 1.0, 0.0, seed)));
  CHECK(bad(ldp::wire::make_vector_duchi(100, 1.0, 16, 1.0, 1.0, seed)));
  CHECK(bad(ldp::wire::make_vector_duchi(100, 1.0, 16, 0.0, 1e-3, seed)));
  CHECK(bad(ldp::wire::make_vector_duchi(100, 1.0, 16, 1.0, 1e-3, nullptr)));
  CHECK(bad(ldp::wire::make_vector_laplace(100, 1e-6, 16, 1.0, 1e-3, seed)));  // R below one grid step
  CHECK(bad(ldp::wire::make_vector_laplace(100, -1.0, 16, 1.0, 1e-3, seed)));
  CHECK(bad(ldp::wire::make_vector_laplace(100, 1.0, 63, 1.0, 1e-3, seed)));
  // R 2^f sqrt(d~) must stay below 2^31: f = 23 fits d~ = 128 (2^23 * 2^3.5 < 2^31), f = 28 not.
  CHECK(ldp::wire::make_vector_laplace(100, 1.0, 23, 1.0, 1e-3, seed).code == status::ok);
  CHECK(bad(ldp::wire::make_vector_laplace(100, 1.0, 28, 1.0, 1e-3, seed)));
}

TEST_CASE("the rotation scale is 2^(-L/2), or the rational nearest 2^(-L/2) for odd L") {
  for (unsigned l = 0; l <= 30; ++l) {
    CAPTURE(l);
    const ldp::wire::rotation_scale s = ldp::wire::scale_of_rotation(l);
    const long double value = static_cast<long double>(s.mult) / std::ldexp(1.0L, static_cast<int>(s.shift));
    const long double exact = std::pow(2.0L, -static_cast<long double>(l) / 2);
    CHECK(std::fabs(value / exact - 1) < 8e-12L);
    CHECK(s.shift <= 46);
    // |v| < 2^31 times mult stays below 2^63.
    CHECK(s.mult < (uint64_t{1} << 32));
  }
  CHECK(ldp::wire::scale_of_rotation(4).mult == 1);
  CHECK(ldp::wire::scale_of_rotation(4).shift == 2);
  auto p = ldp::wire::make_vector_duchi(100, 1.0, 16, 1.0, 1e-3, seed).block;
  CHECK(ldp::wire::rotation_log2(p) == 7);
}
