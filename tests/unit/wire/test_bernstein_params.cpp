// The bernstein block (ldp/wire/bernstein_params.h, docs/mechanisms.md H.1, docs/wire_format.md 3.3
// and 3.11): a laplace-vector block of N = (k + 1)^p coordinates on [0, 1] plus the grid and the
// loss; epsilon_impl from the integers (Table D.1's discrete Laplace row with Delta = N Q), the
// limits on N and f, and every validation rule of the block.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "ldp/wire.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::loss_kind;
using ldp::wire::make_bernstein;
using ldp::wire::mechanism;

namespace {

// epsilon_impl <= epsilon / (1 + 2^-40) (docs/mechanisms.md D.1).
const double strict = 1 + std::ldexp(1.0, -40);

}  // namespace

TEST_CASE("make_bernstein: N = (k + 1)^p coordinates on [0, 2^f], the scale of the L1 sensitivity N Q") {
  for (double eps : {0.25, 1.0, 4.0, 10.0}) {
    CAPTURE(eps);
    const auto d = make_bernstein(2, 3, loss_kind::logistic, 12, eps);
    REQUIRE(d.code == status::ok);
    const auto& p = d.block;
    CHECK(p.mech == mechanism::bernstein);
    CHECK(p.get(field::vector_dim) == 2);
    CHECK(p.get(field::grid_size) == 3);
    CHECK(p.get(field::loss) == 2);
    CHECK(ldp::wire::loss_of(p) == loss_kind::logistic);
    CHECK(p.get(field::domain) == 16);
    CHECK(p.get(field::frac_bits) == 12);
    CHECK(p.get_signed(field::clip_lo) == 0);
    CHECK(p.get_signed(field::clip_hi) == 4096);
    CHECK(ldp::wire::sensitivity(p) == 16 * 4096);
    // Table D.1's discrete Laplace row from the block's integers: N Q t_den / t_num.
    const double from_integers =
        16.0 * 4096 * static_cast<double>(p.get(field::scale_den)) / static_cast<double>(p.get(field::scale_num));
    CHECK(d.epsilon_impl == ldp::wire::implemented_epsilon(p));
    CHECK(d.epsilon_impl == from_integers);
    CHECK(d.epsilon_impl * strict <= eps);
    CHECK(d.epsilon_impl > eps * (1 - 1e-7));  // t_num >= 2^16 N Q / 40: the step costs below 1e-7
    // The same noise as a laplace-vector block of N coordinates on [0, 1]: the factored derivation.
    const auto vec = ldp::wire::make_laplace_vector(16, 0.0, 1.0, 12, eps);
    CHECK(p.get(field::scale_num) == vec.block.get(field::scale_num));
    CHECK(p.get(field::scale_den) == vec.block.get(field::scale_den));
  }
  for (loss_kind loss : {loss_kind::caller, loss_kind::squared, loss_kind::hinge}) {
    CHECK(make_bernstein(1, 1, loss, 16, 1.0).code == status::ok);
  }
}

TEST_CASE("make_bernstein refuses N above 65536, f above 32, p or k of 0 and a bad epsilon") {
  CHECK(make_bernstein(16, 1, loss_kind::squared, 16, 1.0).code == status::ok);  // 2^16
  CHECK(make_bernstein(17, 1, loss_kind::squared, 16, 1.0).code == status::invalid_argument);
  CHECK(make_bernstein(2, 255, loss_kind::squared, 16, 1.0).code == status::ok);  // 256^2 = 65536
  CHECK(make_bernstein(2, 256, loss_kind::squared, 16, 1.0).code == status::invalid_argument);
  CHECK(make_bernstein(1, 65535, loss_kind::squared, 16, 1.0).code == status::ok);
  CHECK(make_bernstein(1, 65536, loss_kind::squared, 16, 1.0).code == status::invalid_argument);
  CHECK(make_bernstein(40, 0xffffffffu, loss_kind::squared, 16, 1.0).code == status::invalid_argument);
  CHECK(make_bernstein(0, 3, loss_kind::squared, 16, 1.0).code == status::invalid_argument);
  CHECK(make_bernstein(2, 0, loss_kind::squared, 16, 1.0).code == status::invalid_argument);
  CHECK(make_bernstein(2, 3, loss_kind::squared, 32, 1.0).code == status::ok);
  CHECK(make_bernstein(2, 3, loss_kind::squared, 33, 1.0).code == status::invalid_argument);
  CHECK(make_bernstein(2, 3, loss_kind::squared, 16, 0.0).code == status::invalid_argument);
  CHECK(make_bernstein(2, 3, loss_kind::squared, 16, 41.0).code == status::invalid_argument);
  CHECK(make_bernstein(2, 3, static_cast<loss_kind>(4), 16, 1.0).code == status::invalid_argument);
  // The scale t = N 2^f / epsilon grid units stays at most 2^56.
  CHECK(make_bernstein(16, 1, loss_kind::squared, 32, 1.0).code == status::ok);  // 2^48
  CHECK(make_bernstein(16, 1, loss_kind::squared, 32, 1.0 / 512).code == status::invalid_argument);
}

TEST_CASE("validate: every rule of a bernstein block (docs/wire_format.md 3.3)") {
  const ldp::wire::params good = ldp::test::example_params(mechanism::bernstein);
  REQUIRE(ldp::wire::validate(good) == status::ok);
  const auto refused = [&](auto change) {
    ldp::wire::params p = good;
    change(p);
    return ldp::wire::validate(p) == status::invalid_parameters;
  };
  CHECK(refused([](auto& p) { p.set(field::domain, 8); }));  // N != (k + 1)^p
  CHECK(refused([](auto& p) { p.set(field::domain, 10); }));
  CHECK(refused([](auto& p) { p.set(field::grid_size, 3); }));
  CHECK(refused([](auto& p) { p.set(field::grid_size, 0); }));
  CHECK(refused([](auto& p) { p.set(field::vector_dim, 0); }));
  CHECK(refused([](auto& p) { p.set(field::vector_dim, 3); }));
  CHECK(refused([](auto& p) { p.set(field::loss, 4); }));
  CHECK(refused([](auto& p) { p.set_signed(field::clip_lo, 1); }));
  CHECK(refused([](auto& p) { p.set_signed(field::clip_hi, 65535); }));
  CHECK(refused([](auto& p) { p.set_signed(field::clip_lo, -65536); }));
  CHECK(refused([](auto& p) { p.set(field::frac_bits, 33).set_signed(field::clip_hi, int64_t{1} << 33); }));
  CHECK(refused([](auto& p) { p.set(field::frac_bits, 17); }));                      // clip_hi no longer 2^f
  CHECK(refused([](auto& p) { p.present &= ~ldp::wire::field_bit(field::loss); }));  // exactly the table's fields
  CHECK(refused([](auto& p) { p.set(field::observations, 4); }));
  // A grid of 2^16 + 1 points: (k + 1)^p above the limit with a matching domain.
  CHECK(refused([](auto& p) { p.set(field::vector_dim, 1).set(field::grid_size, 65536).set(field::domain, 65537); }));
  ldp::wire::params p = good;
  p.set(field::vector_dim, 1).set(field::grid_size, 8);  // 9 points on one axis: still N = 9
  CHECK(ldp::wire::validate(p) == status::ok);
  p.set(field::loss, 0);
  CHECK(ldp::wire::validate(p) == status::ok);
}
