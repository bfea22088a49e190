// Numeric parameter blocks (docs/mechanisms.md B.0-B.2, D.1): the grid conversion, the discrete Laplace
// scale and the Duchi thresholds with their implemented epsilon (never above the request, within
// one integer step of it), the validation rules of docs/wire_format.md 3.3, and the exact privacy
// of Duchi's thresholds by enumerating the two-outcome pmf at every grid input.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/base/bits.h"
#include "ldp/wire.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

// 1 + 2^-41: a level below epsilon / this is below epsilon after any double rounding of it.
constexpr double strict = 1.0 + 1.0 / 2199023255552.0;

const double epsilons[] = {1e-3, 0.01, 0.1, 0.25, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 4.0, 5.5, 8.0, 10.0, 16.0, 25.0, 40.0};

// a * b <= c * e for 64-bit unsigned integers, exactly.
bool product_le(uint64_t a, uint64_t b, uint64_t c, uint64_t e) {
  const ldp::u128 l = ldp::mul_64x64(a, b), r = ldp::mul_64x64(c, e);
  return l.hi < r.hi || (l.hi == r.hi && l.lo <= r.lo);
}

}  // namespace

TEST_CASE("to_fixed rounds half to even onto the grid and reports saturation") {
  int64_t v = 0;
  CHECK(ldp::wire::to_fixed(0.5, 0, &v) == status::ok);
  CHECK(v == 0);
  CHECK(ldp::wire::to_fixed(1.5, 0, &v) == status::ok);
  CHECK(v == 2);
  CHECK(ldp::wire::to_fixed(-2.5, 0, &v) == status::ok);
  CHECK(v == -2);
  CHECK(ldp::wire::to_fixed(0.25, 16, &v) == status::ok);
  CHECK(v == 16384);
  CHECK(ldp::wire::to_fixed(-1.0, 62, &v) == status::ok);
  CHECK(v == -(int64_t{1} << 62));
  CHECK(ldp::wire::to_fixed(2.0, 62, &v) == status::overflow);
  CHECK(v == INT64_MAX);
  CHECK(ldp::wire::to_fixed(NAN, 4, &v) == status::invalid_argument);
  CHECK(ldp::wire::to_fixed(1.0, 63, &v) == status::invalid_argument);
}

TEST_CASE("Laplace scale: epsilon_impl = Delta t_den / t_num never above the request, t_num minimal") {
  const uint64_t deltas[] = {1, 2, 3, 1000, uint64_t{1} << 17, 123456789, uint64_t{1} << 40, (uint64_t{1} << 62) - 1};
  for (uint64_t delta : deltas) {
    for (double eps : epsilons) {
      CAPTURE(delta);
      CAPTURE(eps);
      uint64_t num = 0, den = 0;
      const status s = ldp::wire::laplace_scale(delta, eps, &num, &den);
      if (static_cast<double>(delta) / eps > static_cast<double>(ldp::wire::laplace_max_scale)) {
        CHECK(s == status::invalid_argument);
        continue;
      }
      REQUIRE(s == status::ok);
      CHECK((den & (den - 1)) == 0);
      CHECK(den <= ldp::wire::laplace_scale_den);
      CHECK(num <= ldp::wire::laplace_max_scale_num);
      const double level = static_cast<double>(delta) * static_cast<double>(den) / static_cast<double>(num);
      CHECK(level * strict <= eps);
      // One step smaller would pass the request (up to the 2^-40 margin): no wasted noise.
      const double smaller = static_cast<double>(delta) * static_cast<double>(den) / static_cast<double>(num - 1);
      CHECK(smaller > eps / (1 + 1e-11));
      // The fine denominator whenever it fits: the rounding loss is at most 1 / t_num relative.
      if (static_cast<double>(delta) / eps <= std::ldexp(1.0, 41)) CHECK(den == ldp::wire::laplace_scale_den);
    }
  }
  uint64_t num = 1, den = 1;
  CHECK(ldp::wire::laplace_scale(0, 1.0, &num, &den) == status::invalid_argument);
  CHECK(ldp::wire::laplace_scale(10, 0.0, &num, &den) == status::invalid_argument);
  CHECK(ldp::wire::laplace_scale(10, 41.0, &num, &den) == status::invalid_argument);
  CHECK(ldp::wire::laplace_scale(10, NAN, &num, &den) == status::invalid_argument);
  CHECK(num == 0);
}

TEST_CASE("make_laplace and make_laplace_vector: the grid of B.0 and the level of the block") {
  for (double eps : epsilons) {
    CAPTURE(eps);
    const auto lap = ldp::wire::make_laplace(-1.0, 1.0, 16, eps);
    REQUIRE(lap.code == status::ok);
    const auto& p = lap.block;
    CHECK(p.mech == mechanism::laplace);
    CHECK(p.get(field::frac_bits) == 16);
    CHECK(p.get_signed(field::clip_lo) == -65536);
    CHECK(p.get_signed(field::clip_hi) == 65536);
    CHECK(ldp::wire::sensitivity(p) == 131072);
    CHECK(lap.epsilon_impl * strict <= eps);
    CHECK(lap.epsilon_impl > eps * (1 - 1e-7));  // loss <= 1 / t_num, t_num >= 2^33 / 40
    CHECK(lap.epsilon_impl == ldp::wire::implemented_epsilon(p));
    CHECK(lap.epsilon_impl ==
          131072.0 * static_cast<double>(p.get(field::scale_den)) / static_cast<double>(p.get(field::scale_num)));

    const auto vec = ldp::wire::make_laplace_vector(5, 0.0, 10.0, 8, eps);
    REQUIRE(vec.code == status::ok);
    CHECK(vec.block.get(field::domain) == 5);
    CHECK(ldp::wire::sensitivity(vec.block) == 5 * 2560);
    CHECK(vec.epsilon_impl * strict <= eps);
    CHECK(vec.epsilon_impl > eps * (1 - 1e-7));
    // The vector's noise is d times the scalar's on the same range: the L1 sensitivity.
    const auto scalar = ldp::wire::make_laplace(0.0, 10.0, 8, eps);
    const double t_vec =
        static_cast<double>(vec.block.get(field::scale_num)) / static_cast<double>(vec.block.get(field::scale_den));
    const double t_one = static_cast<double>(scalar.block.get(field::scale_num)) /
                         static_cast<double>(scalar.block.get(field::scale_den));
    CHECK(t_vec == doctest::Approx(5 * t_one).epsilon(1e-6));  // each within 1 / t_num of ideal
  }
  // A range rounded onto the grid: [0.3, 0.7] at f = 2 is [1, 3] quarter units (half to even).
  const auto coarse = ldp::wire::make_laplace(0.3, 0.7, 2, 1.0);
  REQUIRE(coarse.code == status::ok);
  CHECK(coarse.block.get_signed(field::clip_lo) == 1);
  CHECK(coarse.block.get_signed(field::clip_hi) == 3);
  CHECK(ldp::wire::make_laplace(0.3, 0.4, 1, 1.0).code == status::invalid_argument);  // lo == hi on the grid
  CHECK(ldp::wire::make_laplace(1.0, -1.0, 16, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_laplace(-1.0, 1.0, 63, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_laplace(-1.0, 1.0, 16, 0.0).code == status::invalid_argument);
  // |hi| = 2^61 is the largest magnitude; beyond it a report could saturate.
  CHECK(ldp::wire::make_laplace(0.5, 1.0, 61, 40.0).code == status::ok);
  CHECK(ldp::wire::make_laplace(1.0, 1.5, 61, 40.0).code == status::invalid_argument);
  // t > 2^56 grid units.
  CHECK(ldp::wire::make_laplace(0.0, 1.0, 50, 1.0 / 128).code == status::invalid_argument);
  CHECK(ldp::wire::make_laplace(0.0, 1.0, 50, 1.0 / 32).code == status::ok);
  CHECK(ldp::wire::make_laplace_vector(0, 0.0, 1.0, 8, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_laplace_vector(1u << 31, -1.0, 1.0, 40, 1.0).code == status::invalid_argument);
}

TEST_CASE("Duchi thresholds: T_lo + T_hi = 2^32, ln(T_hi/T_lo) never above the request, T_lo minimal") {
  for (double eps : epsilons) {
    CAPTURE(eps);
    uint64_t lo = 0, hi = 0;
    REQUIRE(ldp::wire::duchi_thresholds(eps, &lo, &hi) == status::ok);
    CHECK(lo + hi == (uint64_t{1} << 32));
    CHECK(lo >= 1);
    CHECK(lo < hi);
    const double level = std::log(static_cast<double>(hi) / static_cast<double>(lo));
    CHECK(level * (1 + 1e-12) <= eps);
    // T_lo - 1 would exceed the request: the level is within one threshold step of epsilon.
    const double below = std::log(static_cast<double>(hi + 1) / static_cast<double>(lo - 1));
    CHECK(below > eps * (1 - 1e-12));
    const auto duchi = ldp::wire::make_duchi(-1.0, 1.0, 16, eps);
    REQUIRE(duchi.code == status::ok);
    CHECK(duchi.block.get(field::threshold_bits) == 32);
    CHECK(duchi.block.get(field::threshold_keep) == hi);
    CHECK(duchi.block.get(field::threshold_other) == lo);
    CHECK(duchi.epsilon_impl == ldp::wire::implemented_epsilon(duchi.block));
    CHECK(duchi.epsilon_impl == doctest::Approx(level).epsilon(1e-12));
    CHECK(duchi.epsilon_impl * strict <= eps);
  }
  uint64_t lo = 0, hi = 0;
  CHECK(ldp::wire::duchi_thresholds(1e-12, &lo, &hi) == status::invalid_argument);  // T_lo = T_hi
  CHECK(ldp::wire::duchi_thresholds(-1.0, &lo, &hi) == status::invalid_argument);
  // w + f + 1 <= 64 on [-1, 1]: f = 31 is the largest.
  CHECK(ldp::wire::make_duchi(-1.0, 1.0, 31, 1.0).code == status::ok);
  CHECK(ldp::wire::make_duchi(-1.0, 1.0, 32, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_duchi(0.0, 100.0, 16, 1.0).code == status::ok);
}

TEST_CASE("Duchi: N(x) is exactly linear in x, from T_lo Q to T_hi Q, and clamps") {
  for (unsigned f : {0u, 3u, 16u}) {
    const auto duchi = ldp::wire::make_duchi(-1.0, 1.0, f, 2.0);
    REQUIRE(duchi.code == status::ok);
    const auto& p = duchi.block;
    const uint64_t q = ldp::wire::range_width(p), t_hi = p.get(field::threshold_keep),
                   t_lo = p.get(field::threshold_other);
    CHECK(q == uint64_t{2} << f);
    const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
    CHECK(ldp::wire::duchi_threshold(p, lo) == t_lo * q);
    CHECK(ldp::wire::duchi_threshold(p, hi) == t_hi * q);
    CHECK(ldp::wire::duchi_threshold(p, lo - 1000) == t_lo * q);
    CHECK(ldp::wire::duchi_threshold(p, INT64_MAX) == t_hi * q);
    CHECK(ldp::wire::duchi_denominator(p) == (q << 32));
    const int64_t step = f == 16 ? 97 : 1;  // all 2^17 + 1 inputs at f = 16 would be slow for no gain
    for (int64_t x = lo; x < hi; x += step) {
      const int64_t next = x + 1;
      CHECK(ldp::wire::duchi_threshold(p, next) - ldp::wire::duchi_threshold(p, x) == t_hi - t_lo);
      // B.2's form on [-1, 1]: N(x) = T_lo 2^(f+1) + (T_hi - T_lo)(x_q + 2^f).
      CHECK(ldp::wire::duchi_threshold(p, x) ==
            t_lo * (uint64_t{2} << f) + (t_hi - t_lo) * static_cast<uint64_t>(x + (int64_t{1} << f)));
    }
  }
  // 2^w * Q = 2^64 is carried as 0: the uniform is one raw word.
  const auto full = ldp::wire::make_duchi(-1.0, 1.0, 31, 1.0);
  REQUIRE(full.code == status::ok);
  CHECK(ldp::wire::duchi_denominator(full.block) == 0);
  CHECK(ldp::wire::duchi_threshold(full.block, INT64_MAX) ==
        full.block.get(field::threshold_keep) * (uint64_t{1} << 32));
}

TEST_CASE("Duchi exact privacy: every pair of grid inputs, both outcomes, ratio at most T_hi/T_lo and attained") {
  // f = 3 on [-1, 1]: 17 grid inputs, 289 ordered pairs. P(b = 1 | x) = N(x) / D and
  // P(b = 0 | x) = (D - N(x)) / D with D = 2^32 Q; the ratio bound T_hi / T_lo = e^{epsilon_impl}
  // is checked as an exact integer inequality.
  for (double eps : {0.5, 1.0, 3.0, 8.0}) {
    CAPTURE(eps);
    const auto duchi = ldp::wire::make_duchi(-1.0, 1.0, 3, eps);
    REQUIRE(duchi.code == status::ok);
    const auto& p = duchi.block;
    const uint64_t t_hi = p.get(field::threshold_keep), t_lo = p.get(field::threshold_other);
    const uint64_t d = ldp::wire::duchi_denominator(p);
    const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
    bool attained = false;
    for (int64_t x = lo; x <= hi; ++x) {
      for (int64_t y = lo; y <= hi; ++y) {
        const uint64_t nx = ldp::wire::duchi_threshold(p, x), ny = ldp::wire::duchi_threshold(p, y);
        REQUIRE(nx <= d);
        REQUIRE(ny > 0);
        REQUIRE(d - ny > 0);
        CHECK(product_le(nx, t_lo, ny, t_hi));          // P(1|x) / P(1|y) <= T_hi / T_lo
        CHECK(product_le(d - nx, t_lo, d - ny, t_hi));  // P(0|x) / P(0|y) <= T_hi / T_lo
        attained = attained || (product_le(ny, t_hi, nx, t_lo) && product_le(nx, t_lo, ny, t_hi));
      }
    }
    CHECK(attained);  // at (hi, lo): N = T_hi Q against T_lo Q
    CHECK(duchi.epsilon_impl <= eps);
  }
}

TEST_CASE("validation rules of the numeric blocks (wire_format.md 3.3)") {
  using ldp::wire::validate;
  const auto with = [](mechanism m, field f, uint64_t v) {
    auto p = ldp::test::example_params(m);
    REQUIRE(validate(p) == status::ok);
    p.set(f, v);
    return validate(p);
  };
  // Duchi: symmetric, ordered, non-zero thresholds; the uniform fits 64 bits.
  CHECK(with(mechanism::duchi, field::threshold_other, 1155094611u) == status::invalid_parameters);
  CHECK(with(mechanism::duchi, field::threshold_keep, 1155094610u) == status::invalid_parameters);
  auto swapped = ldp::test::example_params(mechanism::duchi);
  swapped.set(field::threshold_keep, 1155094610u).set(field::threshold_other, 3139872686u);
  CHECK(validate(swapped) == status::invalid_parameters);
  auto zero = ldp::test::example_params(mechanism::duchi);
  zero.set(field::threshold_keep, uint64_t{1} << 32).set(field::threshold_other, 0);
  CHECK(validate(zero) == status::invalid_parameters);
  auto equal = ldp::test::example_params(mechanism::duchi);
  equal.set(field::threshold_keep, uint64_t{1} << 31).set(field::threshold_other, uint64_t{1} << 31);
  CHECK(validate(equal) == status::invalid_parameters);  // epsilon 0: no privacy meaning, no estimator (issue 21)
  auto wide = ldp::test::example_params(mechanism::duchi);
  wide.set_signed(field::clip_lo, 0).set_signed(field::clip_hi, int64_t{1} << 32);
  CHECK(validate(wide) == status::ok);  // 2^32 * 2^32 = 2^64
  wide.set_signed(field::clip_hi, (int64_t{1} << 32) + 1);
  CHECK(validate(wide) == status::invalid_parameters);
  // Discrete Laplace: magnitudes, scale_num and the scale itself.
  CHECK(with(mechanism::laplace, field::clip_hi, uint64_t{1} << 61) == status::ok);
  CHECK(with(mechanism::laplace, field::clip_hi, (uint64_t{1} << 61) + 1) == status::invalid_parameters);
  CHECK(with(mechanism::laplace, field::clip_lo, static_cast<uint64_t>(-(int64_t{1} << 61) - 1)) ==
        status::invalid_parameters);
  CHECK(with(mechanism::laplace, field::scale_num, uint64_t{1} << 58) == status::ok);
  CHECK(with(mechanism::laplace, field::scale_num, (uint64_t{1} << 58) + 1) == status::invalid_parameters);
  auto coarse = ldp::test::example_params(mechanism::laplace);
  coarse.set(field::scale_num, (uint64_t{1} << 56) + 1).set(field::scale_den, 1);
  CHECK(validate(coarse) == status::invalid_parameters);  // t above 2^56 grid units
  coarse.set(field::scale_num, uint64_t{1} << 56);
  CHECK(validate(coarse) == status::ok);
  CHECK(with(mechanism::kent_refine, field::interval_hi, (uint64_t{1} << 61) + 1) == status::invalid_parameters);
  auto vec = ldp::test::example_params(mechanism::laplace_vector);
  vec.set_signed(field::clip_lo, 0).set_signed(field::clip_hi, int64_t{1} << 31);
  vec.set(field::domain, uint64_t{1} << 31);
  CHECK(validate(vec) == status::ok);  // d Q = 2^62
  vec.set_signed(field::clip_hi, (int64_t{1} << 31) + 1);
  CHECK(validate(vec) == status::invalid_parameters);
}

TEST_CASE("implemented_epsilon of the example numeric blocks") {
  const auto lap = ldp::test::example_params(mechanism::laplace);  // [-1, 1], f = 16, t = 3
  CHECK(ldp::wire::implemented_epsilon(lap) == 131072.0 / 3);
  const auto vec = ldp::test::example_params(mechanism::laplace_vector);  // d = 4
  CHECK(ldp::wire::implemented_epsilon(vec) == 4 * 131072.0 / 3);
  const auto refine = ldp::test::example_params(mechanism::kent_refine);  // interval [-6554, 19661]
  CHECK(ldp::wire::implemented_epsilon(refine) == 26215.0 / 3);
  const auto duchi = ldp::test::example_params(mechanism::duchi);
  CHECK(ldp::wire::implemented_epsilon(duchi) == doctest::Approx(std::log(3139872686.0 / 1155094610.0)));
  CHECK(std::isnan(ldp::wire::implemented_epsilon(ldp::test::example_params(mechanism::sparse_projection))));
}
