// The built-in losses and the grid of the Bernstein learners (ldp/wire/loss.h, docs/mechanisms.md
// H.0): the formulas at hand-computed points, the range [0, 1] with its maximum 1 attained (the
// normalization is tight), the clamping of inputs, NaN handling, and the grid's index order.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "ldp/wire/loss.h"

using ldp::wire::grid_point;
using ldp::wire::grid_point_count;
using ldp::wire::loss_kind;
using ldp::wire::loss_value;

namespace {

const loss_kind builtin[] = {loss_kind::squared, loss_kind::logistic, loss_kind::hinge};

}  // namespace

TEST_CASE("the losses at hand-computed points") {
  // p = 1, theta = 2 * 0.75 - 1 = 0.5, x = 1: m = 0.5.
  const double w[] = {0.75}, x[] = {1.0};
  CHECK(loss_value(loss_kind::squared, w, x, 1, 0.2) == doctest::Approx(0.09 / 4).epsilon(1e-14));
  CHECK(loss_value(loss_kind::logistic, w, x, 1, 1.0) ==
        doctest::Approx(std::log1p(std::exp(-0.5)) / std::log1p(std::exp(1.0))).epsilon(1e-14));
  CHECK(loss_value(loss_kind::logistic, w, x, 1, 0.0) ==
        doctest::Approx(std::log1p(std::exp(0.5)) / std::log1p(std::exp(1.0))).epsilon(1e-14));
  CHECK(loss_value(loss_kind::hinge, w, x, 1, 1.0) == doctest::Approx(0.25).epsilon(1e-15));
  CHECK(loss_value(loss_kind::hinge, w, x, 1, 0.0) == doctest::Approx(0.75).epsilon(1e-15));
  // p = 3: theta = (1, -0.5, 0), x = (0.5, 1, 0.25): m = 0.5 - 0.5 + 0 = 0.
  const double w3[] = {1.0, 0.25, 0.5}, x3[] = {0.5, 1.0, 0.25};
  CHECK(loss_value(loss_kind::squared, w3, x3, 3, 1.0) == doctest::Approx(1.0 / 16).epsilon(1e-15));
  CHECK(loss_value(loss_kind::logistic, w3, x3, 3, 1.0) ==
        doctest::Approx(std::log(2.0) / std::log1p(std::exp(3.0))).epsilon(1e-14));
  CHECK(loss_value(loss_kind::hinge, w3, x3, 3, 0.0) == doctest::Approx(0.25).epsilon(1e-15));
  // A large p does not overflow the logistic normalization (e^p beyond double's range).
  std::vector<double> wl(800, 0.0), xl(800, 1.0);
  CHECK(loss_value(loss_kind::logistic, wl.data(), xl.data(), 800, 1.0) == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("every built-in loss stays in [0, 1] and attains 0 and 1 (the normalization is tight)") {
  std::mt19937_64 gen(14);
  std::uniform_real_distribution<double> unit(0, 1);
  for (uint32_t p : {1u, 2u, 5u, 16u}) {
    std::vector<double> w(p), x(p);
    for (loss_kind kind : builtin) {
      for (int trial = 0; trial < 2000; ++trial) {
        for (uint32_t j = 0; j < p; ++j) {
          w[j] = unit(gen);
          x[j] = unit(gen);
        }
        const double y = kind == loss_kind::squared ? unit(gen) : static_cast<double>(trial % 2);
        const double v = loss_value(kind, w.data(), x.data(), p, y);
        REQUIRE(v >= 0.0);
        REQUIRE(v <= 1.0);
      }
      // The maximum: theta = -1 everywhere, x = 1, positive label (m = -p against y = 1).
      std::vector<double> zero(p, 0.0), one(p, 1.0);
      CHECK(loss_value(kind, zero.data(), one.data(), p, 1.0) == doctest::Approx(1.0).epsilon(1e-13));
      // The minimum 0: for squared m = y (x = 0, y = 0); for hinge s m >= 1 (theta = 1, x = 1, y = 1).
      if (kind != loss_kind::logistic) {
        const double* at = kind == loss_kind::squared ? zero.data() : one.data();
        CHECK(loss_value(kind, one.data(), at, p, kind == loss_kind::squared ? 0.0 : 1.0) == 0.0);
      }
    }
  }
}

TEST_CASE("inputs outside their domain are clamped; NaN, p = 0 and the caller kind give NaN") {
  const double w[] = {1.5}, x[] = {2.0}, w_in[] = {1.0}, x_in[] = {1.0};
  for (loss_kind kind : builtin) {
    CHECK(loss_value(kind, w, x, 1, 3.0) == loss_value(kind, w_in, x_in, 1, 1.0));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double w_nan[] = {nan};
    CHECK(std::isnan(loss_value(kind, w_nan, x_in, 1, 1.0)));
    CHECK(std::isnan(loss_value(kind, w_in, w_nan, 1, 1.0)));
    CHECK(std::isnan(loss_value(kind, w_in, x_in, 1, nan)));
    CHECK(std::isnan(loss_value(kind, w_in, x_in, 0, 1.0)));
  }
  CHECK(std::isnan(loss_value(loss_kind::caller, w_in, x_in, 1, 1.0)));
}

TEST_CASE("the grid: (k + 1)^p points, axis 0 fastest, w_j = v_j / k") {
  CHECK(grid_point_count(1, 1) == 2);
  CHECK(grid_point_count(2, 3) == 16);
  CHECK(grid_point_count(16, 1) == 65536);
  CHECK(grid_point_count(32, 1) == (uint64_t{1} << 32));
  CHECK(grid_point_count(33, 1) == 0);
  CHECK(grid_point_count(2, 0xFFFFFFFFu) == 0);  // 2^64 would wrap around
  double w[3] = {};
  grid_point(2, 3, 7, w);  // 7 = 3 + 1 * 4
  CHECK(w[0] == 1.0);
  CHECK(w[1] == 1.0 / 3);
  grid_point(3, 2, 5, w);  // 5 = 2 + 1 * 3 + 0 * 9
  CHECK(w[0] == 1.0);
  CHECK(w[1] == 0.5);
  CHECK(w[2] == 0.0);
  // Every point once: the index is a bijection onto {0, 1/k, ..., 1}^p.
  std::vector<int> seen(27, 0);
  for (uint64_t l = 0; l < 27; ++l) {
    grid_point(3, 2, l, w);
    int back = 0;
    for (int j = 2; j >= 0; --j) back = back * 3 + static_cast<int>(std::lround(w[j] * 2));
    ++seen[static_cast<size_t>(back)];
    CHECK(back == static_cast<int>(l));
  }
}
