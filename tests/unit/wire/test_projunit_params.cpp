// ProjUnit and FastProjUnit blocks and their payload (ldp/wire/projunit_params.h, docs/mechanisms.md
// B.8, docs/wire_format.md projected_unit): the derivation from PrivUnitG's block in k dimensions, the
// default k, the projection rule, the norm correction, and encode/decode of the seed + k int16 payload
// with its bad cases.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/wire.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

TEST_CASE("make_projunit / make_fastprojunit: PrivUnitG's cap and keep in k dimensions, d and k recorded") {
  for (const mechanism m : {mechanism::projunit, mechanism::fastprojunit}) {
    const auto make = [&](uint32_t d, uint32_t k, double eps) {
      return m == mechanism::projunit ? ldp::wire::make_projunit(d, k, 1.5, 16, eps)
                                      : ldp::wire::make_fastprojunit(d, k, 1.5, 16, eps);
    };
    for (const double eps : {0.5, 1.0, 4.0}) {
      CAPTURE(eps);
      const auto made = make(784, 50, eps);
      REQUIRE(made.code == status::ok);
      const auto g = ldp::wire::make_privunitg(50, 1.5, 16, eps);
      REQUIRE(g.code == status::ok);
      const ldp::wire::params& p = made.block;
      CHECK(p.mech == m);
      CHECK(p.get(field::domain) == 784);
      CHECK(p.get(field::projection_dim) == 50);
      CHECK(p.get(field::threshold_keep) == g.block.get(field::threshold_keep));
      CHECK(p.get(field::cap_threshold) == g.block.get(field::cap_threshold));
      CHECK(made.epsilon_impl == g.epsilon_impl);
      CHECK(made.epsilon_impl <= eps);
      const double c = ldp::wire::projection_norm_mean(m, 784, 50);
      CHECK(static_cast<double>(p.get(field::output_scale)) ==
            doctest::Approx(static_cast<double>(g.block.get(field::output_scale)) / c).epsilon(1e-10));
    }
    // k = 0 picks min(d, 1000); k > d, d = 0 and d past the family's maximum are refused.
    CHECK(make(64, 0, 1.0).block.get(field::projection_dim) == 64);
    CHECK(make(4096, 0, 1.0).block.get(field::projection_dim) == 1000);
    CHECK(make(64, 65, 1.0).code == status::invalid_argument);
    CHECK(make(0, 0, 1.0).code == status::invalid_argument);
    CHECK(make(65537, 16, 1.0).code == status::invalid_argument);
    CHECK(make(65536, 16, 1.0).code == status::ok);
  }
}

TEST_CASE("projection_norm_mean: 1 - 1/(4k); FastProjUnit's finite-population factor, exactly 1 at k = d~") {
  CHECK(ldp::wire::projection_norm_mean(mechanism::projunit, 784, 100) == 1 - 1.0 / 400);
  CHECK(ldp::wire::projection_norm_mean(mechanism::fastprojunit, 784, 100) == 1 - 924.0 / (400 * 1023));
  CHECK(ldp::wire::projection_norm_mean(mechanism::fastprojunit, 1024, 1024) == 1.0);
  CHECK(ldp::wire::projection_norm_mean(mechanism::fastprojunit, 1, 1) == 1.0);
}

TEST_CASE("validate: 1 <= projection_dim <= d, projunit k d <= 2^26, and the field is required") {
  auto p = ldp::wire::make_projunit(32, 8, 1.0, 16, 1.0).block;
  REQUIRE(ldp::wire::validate(p) == status::ok);
  p.set(field::projection_dim, 0);
  CHECK(ldp::wire::validate(p) == status::invalid_parameters);
  p.set(field::projection_dim, 33);
  CHECK(ldp::wire::validate(p) == status::invalid_parameters);
  p.set(field::projection_dim, 32);
  CHECK(ldp::wire::validate(p) == status::ok);
  p.present &= ~ldp::wire::field_bit(field::projection_dim);
  CHECK(ldp::wire::validate(p) == status::invalid_parameters);
  // projunit's server work per report: k d <= 2^26 (d = 65536: k <= 1024); fastprojunit has no such
  // rule (its server does one FWHT of d~ per report).
  auto wide = ldp::wire::make_projunit(65536, 1024, 1.0, 16, 1.0);
  REQUIRE(wide.code == status::ok);
  wide.block.set(field::projection_dim, 1025);
  CHECK(ldp::wire::validate(wide.block) == status::invalid_parameters);
  CHECK(ldp::wire::make_projunit(65536, 1025, 1.0, 16, 1.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_projunit(65536, 0, 1.0, 16, 1.0).code == status::ok);  // the default k = 1000
  wide.block.mech = mechanism::fastprojunit;
  CHECK(ldp::wire::validate(wide.block) == status::ok);
  // A PrivUnitG block does not take the field.
  auto g = ldp::wire::make_privunitg(32, 1.0, 16, 1.0).block;
  g.set(field::projection_dim, 8);
  CHECK(ldp::wire::validate(g) == status::invalid_parameters);
}

TEST_CASE("projected_unit payload: 8-byte seed then k int16, round trip and bad payloads") {
  const auto p = ldp::wire::make_fastprojunit(10, 3, 1.0, 16, 2.0).block;
  CHECK(ldp::wire::max_payload_size(p) == 8 + 2 * 3);
  ldp::wire::report r;
  r.mech = p.mech;
  r.seed = 0x0102030405060708u;
  const std::vector<int64_t> q = {32767, -32767, -2};
  r.values = q;
  std::vector<unsigned char> out(ldp::wire::max_payload_size(p));
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_payload(p, r, out, &size) == status::ok);
  CHECK(out == std::vector<unsigned char>{8, 7, 6, 5, 4, 3, 2, 1, 0xff, 0x7f, 0x01, 0x80, 0xfe, 0xff});
  ldp::wire::report back;
  REQUIRE(ldp::wire::decode_payload(p, out, &back) == status::ok);
  CHECK(back.seed == r.seed);
  CHECK(back.count == 3);
  std::vector<int64_t> values(3);
  REQUIRE(ldp::wire::read_vector(back, values) == status::ok);
  CHECK(values == q);
  // Encoder: d values where k are due, a value outside [-32767, 32767].
  const std::vector<int64_t> wrong_count(10, 0);
  r.values = wrong_count;
  CHECK(ldp::wire::encode_payload(p, r, out, &size) == status::invalid_argument);
  const std::vector<int64_t> too_low = {0, -32768, 0};
  r.values = too_low;
  CHECK(ldp::wire::encode_payload(p, r, out, &size) == status::out_of_range);
  // Decoder: truncated seed, missing coordinate, extra byte, -32768.
  CHECK(ldp::wire::decode_payload(p, ldp::span<const unsigned char>(out.data(), 7), &back) == status::wrong_length);
  CHECK(ldp::wire::decode_payload(p, ldp::span<const unsigned char>(out.data(), 12), &back) == status::wrong_length);
  std::vector<unsigned char> longer(out);
  longer.push_back(0);
  CHECK(ldp::wire::decode_payload(p, longer, &back) == status::wrong_length);
  std::vector<unsigned char> low(out);
  low[12] = 0x00;
  low[13] = 0x80;
  CHECK(ldp::wire::decode_payload(p, low, &back) == status::out_of_range);
}
