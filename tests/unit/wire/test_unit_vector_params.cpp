// The unit-vector family's blocks (docs/mechanisms.md B.6, wire_format.md 3.2-3.3): c_d against the
// Gamma-function closed form, the l2-ball derivation (epsilon_impl <= epsilon, the D.1 rounding loss,
// the unbiasing constant), and validate()'s rules.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>

#include "ldp/wire.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

// The block of a derivation that succeeded for m with epsilon_impl within epsilon (D.1).
const ldp::wire::params& checked(const ldp::wire::derived_params& made, mechanism m, double epsilon) {
  REQUIRE(made.code == status::ok);
  CHECK(made.block.mech == m);
  CHECK(made.epsilon_impl * ldp::wire::epsilon_margin <= epsilon);
  CHECK(made.epsilon_impl == ldp::wire::implemented_epsilon(made.block));
  return made.block;
}

// validate() of a block after a change.
template <class Change>
status validate_after(ldp::wire::params p, Change change) {
  change(p);
  return ldp::wire::validate(p);
}

}  // namespace

TEST_CASE("c_d = Gamma(d/2) / (sqrt(pi) Gamma((d+1)/2)) = E|U_1| on the sphere") {
  CHECK(ldp::wire::sphere_abs_coordinate_mean(1) == 1.0);
  CHECK(ldp::wire::sphere_abs_coordinate_mean(2) == doctest::Approx(2 / M_PI).epsilon(1e-15));
  CHECK(ldp::wire::sphere_abs_coordinate_mean(3) == 0.5);
  for (uint32_t d : {4u, 7u, 64u, 784u, 4096u, 65536u}) {
    const double x = d;
    const double expected = std::exp(std::lgamma(x / 2) - std::lgamma((x + 1) / 2)) / std::sqrt(M_PI);
    CAPTURE(d);
    CHECK(ldp::wire::sphere_abs_coordinate_mean(d) == doctest::Approx(expected).epsilon(1e-11));
  }
}

TEST_CASE("make_l2_ball: epsilon_impl <= epsilon, within the D.1 loss, and B from the implemented threshold") {
  for (double epsilon : {0.1, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0}) {
    for (uint32_t d : {1u, 2u, 64u, 784u, 4096u}) {
      CAPTURE(epsilon);
      CAPTURE(d);
      const auto made = ldp::wire::make_l2_ball(d, 1.0, 16, epsilon);
      const ldp::wire::params& p = checked(made, mechanism::l2_ball, epsilon);
      const double keep = static_cast<double>(p.get(field::threshold_keep)) / 4294967296.0;
      CHECK(std::log(keep / (1 - keep)) == doctest::Approx(made.epsilon_impl).epsilon(1e-12));
      // Threshold rounding costs at most a few units of 2^-32 in probability.
      CHECK(epsilon - made.epsilon_impl < 1e-8 * (std::exp(epsilon) + 2));
      const double b = ldp::wire::unit_vector_scale(p);
      CHECK(b == doctest::Approx(1 / ((2 * keep - 1) * ldp::wire::sphere_abs_coordinate_mean(d))).epsilon(1e-9));
      CHECK(ldp::wire::max_payload_size(p) == 2 * std::size_t{d});
    }
  }
}

TEST_CASE("l2-ball blocks: the rules of wire_format.md 3.3") {
  const auto good = ldp::wire::make_l2_ball(100, 1.0, 16, 1.0);
  REQUIRE(good.code == status::ok);
  CHECK(ldp::wire::validate(good.block) == status::ok);
  const auto broken = [&](auto change) { return validate_after(good.block, change); };
  CHECK(broken([](auto& p) { p.set(field::domain, 0); }) == status::invalid_parameters);
  CHECK(broken([](auto& p) { p.set(field::domain, 65537); }) == status::invalid_parameters);
  CHECK(broken([](auto& p) { p.set(field::threshold_keep, uint64_t{1} << 31); }) == status::invalid_parameters);
  CHECK(broken([](auto& p) { p.set(field::threshold_keep, uint64_t{1} << 32); }) == status::invalid_parameters);
  CHECK(broken([](auto& p) { p.set(field::output_scale, (uint64_t{1} << 32) - 1); }) == status::invalid_parameters);
  CHECK(broken([](auto& p) { p.set_signed(field::radius, 0); }) == status::invalid_parameters);
  // R^2 d~ must stay below 2^62: R = 2^26 with d~ = 128 is 2^59, 2^27 with 2^16 is 2^70.
  CHECK(broken([](auto& p) { p.set_signed(field::radius, int64_t{1} << 26); }) == status::ok);
  CHECK(broken([](auto& p) { p.set(field::domain, 65536).set_signed(field::radius, int64_t{1} << 27); }) ==
        status::invalid_parameters);
  CHECK(broken([](auto& p) { p.present &= ~ldp::wire::field_bit(field::output_scale); }) == status::invalid_parameters);
  CHECK(ldp::wire::make_l2_ball(0, 1.0, 16, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_l2_ball(65537, 1.0, 16, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_l2_ball(8, 1.0, 16, 0.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_l2_ball(8, 1e9, 16, 1.0).code == status::invalid_argument);
}

// PrivUnitG (docs/mechanisms.md B.7).

TEST_CASE("upper_normal_tail: the series against erfc, and delta_E against its formula at sigma = 2^26") {
  for (int k = 0; k <= 3 * 1024; k += 7) {
    const double s = k / 1024.0;
    CAPTURE(s);
    CHECK(ldp::wire::upper_normal_tail(s) == doctest::Approx(std::erfc(s / std::sqrt(2.0)) / 2).epsilon(1e-12));
  }
  // 24 / (pi^2 sqrt(2 pi) sigma) + 2 sqrt(d) e^(-sigma^2); the second term underflows for every d <= 2^16.
  const double sigma = std::ldexp(1.0, 26);
  const double esseen =
      24 / (M_PI * M_PI * std::sqrt(2 * M_PI) * sigma) + 2 * std::sqrt(65536.0) * std::exp(-sigma * sigma);
  CHECK(esseen <= ldp::wire::privunitg_cap_error);
  CHECK(ldp::wire::privunitg_cap_error < 1.446e-8);
  // The block's interval contains Qbar +- (delta_E + the series' error) for every g on the grid.
  for (uint32_t g = 0; g <= ldp::wire::privunitg_max_cap_threshold; g += uint32_t{1} << 16) {
    const double q = std::erfc(static_cast<double>(g) / sigma / std::sqrt(2.0)) / 2;
    const auto bounds = ldp::wire::privunitg_cap_bounds(g);
    CAPTURE(g);
    CHECK(bounds.lo <= q - esseen);
    CHECK(bounds.hi >= q + esseen);
  }
}

TEST_CASE("make_privunitg: epsilon_impl <= epsilon, the cost of the bound, the optimal cap and the scale") {
  for (double epsilon : {0.001, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 40.0}) {
    for (uint32_t d : {1u, 2u, 64u, 784u, 4096u}) {
      CAPTURE(epsilon);
      CAPTURE(d);
      const auto made = ldp::wire::make_privunitg(d, 1.0, 16, epsilon);
      const ldp::wire::params& p = checked(made, mechanism::privunitg, epsilon);
      const auto g = static_cast<uint32_t>(p.get(field::cap_threshold));
      CHECK(g <= ldp::wire::privunitg_max_cap_threshold);
      CHECK(g % (uint32_t{1} << 16) == 0);  // t on the grid of 2^-10
      // The level from the definition: the largest of the three ratios of B.7.
      const double keep = static_cast<double>(p.get(field::threshold_keep)) / 4294967296.0;
      const auto q = ldp::wire::privunitg_cap_bounds(g);
      const double level =
          std::log(std::max({keep * (1 - q.lo) / ((1 - keep) * q.lo), q.hi / q.lo, (1 - q.lo) / (1 - q.hi)}));
      CHECK(level == doctest::Approx(made.epsilon_impl).epsilon(1e-9));
      // What the bound costs: about 2 delta_E / Q, plus the 2^-32 rounding of P_keep.
      CHECK(epsilon - made.epsilon_impl <= 3 * ldp::wire::privunitg_cap_error / q.lo + 1e-8 * (std::exp(epsilon) + 2));
      // output_scale = 2^35 / mean at the implemented P_keep.
      const double t = g / std::ldexp(1.0, 26), tail = std::erfc(t / std::sqrt(2.0)) / 2;
      const double density = std::exp(-t * t / 2) / std::sqrt(2 * M_PI);
      const double mean = density * (keep / tail - (1 - keep) / (1 - tail));
      CHECK(ldp::wire::unit_vector_scale(p) == doctest::Approx(8 / mean).epsilon(1e-9));
      CHECK(ldp::wire::max_payload_size(p) == 2 * std::size_t{d});
    }
  }
  // B.7's table (d = 784, the grid of 0.005 there, of 2^-10 here): the optimal t and E||mU||^2 / d.
  const double table[][3] = {{0.5, 0.20, 25.2}, {1, 0.40, 6.33}, {2, 0.79, 1.62}, {4, 1.52, 0.437}, {8, 2.74, 0.134}};
  for (const auto& row : table) {
    CAPTURE(row[0]);
    const auto made = ldp::wire::make_privunitg(784, 1.0, 16, row[0]);
    REQUIRE(made.code == status::ok);
    const double t = static_cast<double>(made.block.get(field::cap_threshold)) / std::ldexp(1.0, 26);
    CHECK(std::fabs(t - row[1]) <= 0.01);
    const double keep = static_cast<double>(made.block.get(field::threshold_keep)) / 4294967296.0;
    const auto m = ldp::wire::privunitg_moments(t, keep);
    CHECK((m.along + 783) / (m.mean * m.mean) / 784 == doctest::Approx(row[2]).epsilon(0.01));
  }
}

TEST_CASE("privunitg blocks: the rules of wire_format.md 3.3") {
  const auto good = ldp::wire::make_privunitg(100, 1.0, 16, 1.0);
  REQUIRE(good.code == status::ok);
  CHECK(ldp::wire::validate(good.block) == status::ok);
  const auto broken = [&](auto change) { return validate_after(good.block, change); };
  const auto g = static_cast<uint32_t>(good.block.get(field::cap_threshold));
  const auto below = static_cast<uint64_t>(ldp::wire::privunitg_cap_bounds(g).hi * 4294967296.0);  // p < Q_hi
  CHECK(broken([&](auto& p) { p.set(field::threshold_keep, below); }) == status::invalid_parameters);
  CHECK(broken([&](auto& p) { p.set(field::threshold_keep, below + 2); }) == status::ok);
  CHECK(broken([](auto& p) { p.set(field::threshold_keep, uint64_t{1} << 32); }) == status::invalid_parameters);
  CHECK(broken([](auto& p) { p.set(field::cap_threshold, ldp::wire::privunitg_max_cap_threshold + 1); }) ==
        status::invalid_parameters);
  CHECK(broken([](auto& p) { p.set(field::output_scale, (uint64_t{1} << 32) - 1); }) == status::invalid_parameters);
  CHECK(broken([](auto& p) { p.set(field::domain, 65537); }) == status::invalid_parameters);
  CHECK(broken([](auto& p) { p.present &= ~ldp::wire::field_bit(field::cap_threshold); }) ==
        status::invalid_parameters);
  CHECK(ldp::wire::make_privunitg(8, 1.0, 16, 0.00099).code == status::invalid_argument);
  CHECK(ldp::wire::make_privunitg(0, 1.0, 16, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_privunitg(65537, 1.0, 16, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_privunitg(8, 1e9, 16, 1.0).code == status::invalid_argument);
}
