// Parameter blocks: canonical encoding, strict decoding, per-mechanism validation, fingerprints.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ldp/wire.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

std::vector<unsigned char> encoded(const ldp::wire::params& p) {
  std::vector<unsigned char> out(ldp::wire::params_max_size);
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_params(p, out, &size) == status::ok);
  out.resize(size);
  return out;
}

status decode(const std::vector<unsigned char>& bytes) {
  ldp::wire::params p;
  return ldp::wire::decode_params(bytes, &p);
}

}  // namespace

TEST_CASE("every example block round-trips and has a stable fingerprint") {
  for (mechanism m : ldp::test::all_mechanisms()) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const auto p = ldp::test::example_params(m);
    const auto bytes = encoded(p);
    ldp::wire::params back;
    REQUIRE(ldp::wire::decode_params(bytes, &back) == status::ok);
    CHECK(encoded(back) == bytes);
    CHECK(ldp::wire::fingerprint(back) == ldp::wire::fingerprint(p));
    CHECK(ldp::wire::fingerprint(p) != 0);
    CHECK(bytes.size() <= ldp::wire::params_max_size);
  }
}

TEST_CASE("any change of a parameter changes the fingerprint") {
  // The uProxy failure: clients built with one setting, the server expecting another.
  const auto p = ldp::test::example_params(mechanism::sue);
  auto q = p;
  q.set(field::threshold_keep, p.get(field::threshold_keep) + 1);
  CHECK(ldp::wire::fingerprint(q) != ldp::wire::fingerprint(p));
  auto r = p;
  r.set(field::domain, 11);
  CHECK(ldp::wire::fingerprint(r) != ldp::wire::fingerprint(p));
  auto s = ldp::test::example_params(mechanism::oue);
  s.set(field::threshold_keep, p.get(field::threshold_keep)).set(field::threshold_other, p.get(field::threshold_other));
  CHECK(ldp::wire::fingerprint(s) != ldp::wire::fingerprint(p));  // same numbers, other mechanism
}

TEST_CASE("validation: exactly the required fields, each in range") {
  using ldp::wire::validate;
  CHECK(validate(ldp::wire::params{}) == status::unknown_mechanism);
  auto missing = ldp::test::example_params(mechanism::grr);
  missing.present &= ~(1u << static_cast<int>(field::threshold_keep));
  CHECK(validate(missing) == status::invalid_parameters);
  auto extra = ldp::test::example_params(mechanism::grr);
  extra.set(field::hash_range, 4);
  CHECK(validate(extra) == status::invalid_parameters);

  const struct {
    mechanism m;
    field f;
    int64_t value;
  } bad[] = {
      {mechanism::grr, field::threshold_bits, 0},
      {mechanism::grr, field::threshold_bits, 64},
      {mechanism::grr, field::threshold_keep, (int64_t{1} << 32) + 1},
      {mechanism::grr, field::domain, 1},
      {mechanism::blh, field::hash_range, 4},
      {mechanism::olh, field::hash_range, 1},
      {mechanism::hr, field::hadamard_dim, 8},
      {mechanism::hr, field::hadamard_dim, 10},
      {mechanism::hcms, field::sketch_columns, 100},
      {mechanism::cms, field::sketch_rows, 0},
      {mechanism::laplace, field::clip_lo, 1 << 16},
      {mechanism::laplace, field::scale_den, 0},
      {mechanism::laplace, field::frac_bits, 63},
      {mechanism::sparse_projection, field::sparsity, 1001},
      {mechanism::kent_vote, field::round, 2},
      {mechanism::kent_refine, field::round, 1},
      {mechanism::kent_refine, field::observations, 0},
      {mechanism::kent_refine, field::interval_hi, -6554},
      {mechanism::vector_duchi, field::hadamard_dim, 64},
      {mechanism::sue, field::domain, (int64_t{1} << 24) + 1},
      // The radius: positive, at least the clip r, small enough for the int32 rotation
      // (R^2 * d~ < 2^62 with d~ = 128); the clip interval symmetric.
      {mechanism::vector_duchi, field::radius, 0},
      {mechanism::vector_laplace, field::radius, 65535},
      {mechanism::vector_duchi, field::radius, int64_t{1} << 28},
      {mechanism::vector_laplace, field::clip_lo, -65535},
  };
  for (auto b : bad) {
    const std::string oracle_name = ldp::wire::mechanism_name(b.m);
    CAPTURE(oracle_name);
    CAPTURE(static_cast<int>(b.f));
    CAPTURE(b.value);
    auto p = ldp::test::example_params(b.m);
    REQUIRE(validate(p) == status::ok);
    p.set_signed(b.f, b.value);
    CHECK(validate(p) == status::invalid_parameters);
    std::vector<unsigned char> out(ldp::wire::params_max_size);
    std::size_t size = 0;
    CHECK(ldp::wire::encode_params(p, out, &size) == status::invalid_parameters);
    CHECK(ldp::wire::fingerprint(p) == 0);
  }
}

TEST_CASE("strict decoding of parameter blocks") {
  const auto good = encoded(ldp::test::example_params(mechanism::olh));
  REQUIRE(decode(good) == status::ok);
  auto version = good;
  version[0] = 2;
  CHECK(decode(version) == status::unsupported_version);
  auto mech = good;
  mech[1] = 0x7f;
  CHECK(decode(mech) == status::unknown_mechanism);
  CHECK(decode(std::vector<unsigned char>(good.begin(), good.end() - 1)) == status::wrong_length);
  auto longer = good;
  longer.push_back(0);
  CHECK(decode(longer) == status::wrong_length);
  CHECK(decode({}) == status::wrong_length);
  auto count = good;
  ++count[2];
  CHECK(decode(count) == status::wrong_length);
  // Tags out of order or repeated: the first tag (domain, 1) rewritten to a later tag.
  auto order = good;
  order[3] = 5;
  CHECK(decode(order) == status::malformed_report);
  auto unknown = good;
  unknown[3] = 0x40;
  CHECK(decode(unknown) == status::malformed_report);
  // Decodes, but the value is out of range for the mechanism.
  auto range = good;
  range[4] = 1;  // domain = 1
  range[5] = range[6] = range[7] = 0;
  CHECK(decode(range) == status::invalid_parameters);
}

TEST_CASE("buffer too small for the encoding") {
  const auto p = ldp::test::example_params(mechanism::cms);
  std::vector<unsigned char> out(10);
  std::size_t size = 1;
  CHECK(ldp::wire::encode_params(p, out, &size) == status::buffer_too_small);
  CHECK(size == 0);
}

TEST_CASE("vector blocks: the largest radius the int32 rotation allows") {
  // d~ = 128: R^2 * 128 < 2^62 holds up to R = floor(sqrt((2^62 - 1) / 128)) = 189812531.
  auto p = ldp::test::example_params(mechanism::vector_laplace);
  p.set_signed(field::radius, 189812531);
  CHECK(ldp::wire::validate(p) == status::ok);
  p.set_signed(field::radius, 189812532);
  CHECK(ldp::wire::validate(p) == status::invalid_parameters);
}
