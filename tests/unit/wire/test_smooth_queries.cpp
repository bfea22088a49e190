// smooth-queries on the wire (docs/mechanisms.md H.6, docs/wire_format.md 3.15): the fixed-point
// Chebyshev recurrence and features of ldp/wire/chebyshev.h against cos(v arccos x) and their stated
// error bound, and make_smooth_queries' block: t^p features, range [-1, 1], the per-coordinate scale
// 2 t^p / epsilon (erratum 10), epsilon_impl and the validation rules.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "ldp/wire.h"
#include "ldp/wire/chebyshev.h"
#include "ldp/wire/smooth_params.h"

using ldp::status;
using ldp::wire::field;

namespace {

// 2^f T_v(x / 2^f) in long double.
long double exact_value(uint32_t v, int64_t x, unsigned f) {
  const long double u = std::ldexp(static_cast<long double>(x), -static_cast<int>(f));
  return std::ldexp(std::cos(v * std::acos(u)), static_cast<int>(f));
}

}  // namespace

TEST_CASE("the recurrence equals cos(v arccos x) within v (v - 1) / 4 grid units, exactly at -1, 0, 1") {
  // Fails (checked): T_(v+1) = 2 x T_v + T_(v-1), the product truncated instead of rounded (errors
  // up to about v (v - 1) / 2), and the clamp applied inside the recurrence at x = +-1 (where no
  // clamp is needed, so that one passes: the exact cases below pin the endpoints instead).
  constexpr uint32_t t = 64;
  std::vector<int64_t> values(t);
  for (unsigned f : {8u, 16u, 30u}) {
    const int64_t one = int64_t{1} << f;
    long double worst_ratio = 0;
    for (int64_t i = 0; i <= 2000; ++i) {
      const int64_t x = -one + (2 * one * i) / 2000 + (i % 7 == 3 ? 1 : 0);
      ldp::wire::chebyshev_values(x, f, values);
      for (uint32_t v = 0; v < t; ++v) {
        const long double err = std::fabs(static_cast<long double>(values[v]) - exact_value(v, x, f));
        const long double bound = v * (v - 1.0L) / 4;
        CAPTURE(f);
        CAPTURE(x);
        CAPTURE(v);
        if (v <= 1) {
          CHECK(values[v] == (v == 0 ? one : std::max(-one, std::min(one, x))));
        } else {
          CHECK(err <= bound + 1e-6L);  // long double's own error is far below a grid unit
          worst_ratio = std::max(worst_ratio, err / bound);
        }
      }
    }
    MESSAGE("f " << f << ": largest error / bound " << static_cast<double>(worst_ratio));
    for (int64_t x : {-one, int64_t{0}, one}) {
      ldp::wire::chebyshev_values(x, f, values);
      for (uint32_t v = 0; v < t; ++v) {
        CAPTURE(x);
        CAPTURE(v);
        CHECK(static_cast<long double>(values[v]) == std::round(exact_value(v, x, f)));
      }
    }
  }
  // Inputs outside [-1, 1] are clamped first.
  std::vector<int64_t> inside(5), outside(5);
  ldp::wire::chebyshev_values(int64_t{1} << 16, 16, inside);
  ldp::wire::chebyshev_values(int64_t{5} << 16, 16, outside);
  CHECK(inside == outside);
}

TEST_CASE("features: axis 0 fastest, within the stated bound of the product") {
  // Fails (checked): axis order reversed (index sum_j v_j t^(p-1-j)), and a product left
  // unrounded (values 2^f times too large).
  constexpr unsigned f = 16;
  const std::vector<int64_t> coords = {-40000, 12345, 65536, -65536};  // -0.61, 0.19, 1, -1
  for (uint32_t p : {1u, 2u, 3u, 4u}) {
    for (uint32_t t : {2u, 3u, 7u}) {
      const std::vector<int64_t> x(coords.begin(), coords.begin() + p);
      const auto n = static_cast<std::size_t>(ldp::wire::smooth_feature_count(p, t));
      REQUIRE(n == static_cast<uint64_t>(std::pow(t, p)));
      std::vector<int64_t> out(n);
      ldp::wire::chebyshev_features(x, f, t, out);
      for (std::size_t l = 0; l < n; ++l) {
        long double product = 1;
        uint64_t rest = l;
        for (uint32_t j = 0; j < p; ++j) {
          product *= exact_value(static_cast<uint32_t>(rest % t), x[j], f) / 65536.0L;
          rest /= t;
        }
        CAPTURE(p);
        CAPTURE(t);
        CAPTURE(l);
        const long double err = std::fabs(static_cast<long double>(out[l]) - 65536.0L * product);
        CHECK(err <= ldp::wire::chebyshev_feature_error_bound(l, t, p) + 1e-6L);
        CHECK(std::llabs(out[l]) <= 65536);
      }
    }
  }
  CHECK(ldp::wire::chebyshev_feature_error_bound(2 + 3 * 5, 5, 2) == 2.0 * 1 / 4 + 3.0 * 2 / 4 + 0.5);
}

TEST_CASE("make_smooth_queries: t^p coordinates on [-1, 1] with the scale 2 t^p / epsilon (erratum 10)") {
  // Fails (checked): the paper's b = 1, scale t^p / epsilon (the scale check and epsilon_impl = 2
  // epsilon), and the sensitivity of laplace-vector's Q alone without the t^p factor.
  for (uint32_t p : {1u, 2u, 4u}) {
    for (uint32_t t : {2u, 4u, 8u}) {
      for (double eps : {0.5, 1.0, 4.0}) {
        for (unsigned f : {12u, 20u, 30u}) {
          const auto made = ldp::wire::make_smooth_queries(p, t, f, eps);
          REQUIRE(made.code == status::ok);
          const ldp::wire::params& b = made.block;
          const auto n = static_cast<std::size_t>(ldp::wire::smooth_feature_count(p, t));
          CHECK(b.mech == ldp::wire::mechanism::smooth_queries);
          CHECK(b.get(field::vector_dim) == p);
          CHECK(b.get(field::degree) == t);
          CHECK(b.get(field::domain) == n);
          CHECK(b.get_signed(field::clip_lo) == -(int64_t{1} << f));
          CHECK(b.get_signed(field::clip_hi) == int64_t{1} << f);
          // In value: t_num / t_den / 2^f >= 2 t^p / epsilon, and above it by at most the margin
          // and one step of t_num (D.1).
          const double step = 1.0 / static_cast<double>(b.get(field::scale_num));
          const double scale = static_cast<double>(b.get(field::scale_num)) /
                               static_cast<double>(b.get(field::scale_den)) / std::ldexp(1.0, static_cast<int>(f));
          const double ideal = 2.0 * static_cast<double>(n) / eps;
          CHECK(scale >= ideal);
          CHECK(scale <= ideal * (1 + 1e-9 + step));
          CHECK(made.epsilon_impl <= eps);
          CHECK(made.epsilon_impl >= eps * (1 - 1e-9 - step));
          CHECK(ldp::wire::implemented_epsilon(b) == made.epsilon_impl);
          CHECK(ldp::wire::validate(b) == status::ok);
        }
      }
    }
  }
}

TEST_CASE("smooth-queries blocks: the rules of wire_format.md 3.3") {
  CHECK(ldp::wire::make_smooth_queries(16, 2, 16, 1.0).code == status::ok);  // 2^16 features
  CHECK(ldp::wire::make_smooth_queries(1, 65536, 16, 1.0).code == status::ok);
  CHECK(ldp::wire::make_smooth_queries(17, 2, 16, 1.0).code == status::invalid_argument);  // 2^17
  CHECK(ldp::wire::make_smooth_queries(1, 65537, 16, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_smooth_queries(2, 1, 16, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_smooth_queries(0, 4, 16, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_smooth_queries(2, 4, 31, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_smooth_queries(2, 4, 16, 0.0).code == status::invalid_argument);
  const ldp::wire::params good = ldp::wire::make_smooth_queries(2, 4, 16, 1.0).block;
  REQUIRE(ldp::wire::validate(good) == status::ok);
  ldp::wire::params bad = good;
  bad.set(field::domain, 15);  // not t^p
  CHECK(ldp::wire::validate(bad) != status::ok);
  bad = good;
  bad.set_signed(field::clip_lo, 0);  // the range is [-1, 1]
  CHECK(ldp::wire::validate(bad) != status::ok);
  bad = good;
  bad.set_signed(field::clip_hi, int64_t{1} << 15);
  CHECK(ldp::wire::validate(bad) != status::ok);
  bad = good;
  bad.set(field::degree, 1);
  CHECK(ldp::wire::validate(bad) != status::ok);
}
