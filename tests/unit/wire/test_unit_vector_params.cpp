// The unit-vector family's blocks (docs/mechanisms.md B.6, wire_format.md 3.2-3.3): c_d against the
// Gamma-function closed form, the l2-ball derivation (epsilon_impl <= epsilon, the D.1 rounding loss,
// the unbiasing constant), and validate()'s rules.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>

#include "ldp/wire.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

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
      REQUIRE(made.code == status::ok);
      const ldp::wire::params& p = made.block;
      CHECK(p.mech == mechanism::l2_ball);
      CHECK(made.epsilon_impl * ldp::wire::epsilon_margin <= epsilon);
      CHECK(made.epsilon_impl == ldp::wire::implemented_epsilon(p));
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
  const auto broken = [&](auto change) {
    ldp::wire::params p = good.block;
    change(p);
    return ldp::wire::validate(p);
  };
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
