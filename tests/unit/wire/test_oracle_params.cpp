// Threshold derivation for the frequency oracles (docs/mechanisms.md D.1): deterministic math, the
// implemented epsilon never above the request and within the quantization loss of it, thresholds
// as tight as that allows, and the choices of A.4 (g) and A.5 (K).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ldp/random.h"
#include "ldp/wire.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::frequency_oracle;
using ldp::wire::mechanism;

namespace {

double ulps(double a, double b) {
  if (b == 0) return a == 0 ? 0 : 1e300;
  return std::fabs(a - b) / std::fabs(std::nextafter(b, 0.0) - b);
}

const unsigned char seed[32] = {7};

ldp::wire::derived_params derive(mechanism m, double eps, uint32_t d) {
  // dBitFlip samples rows = 8 buckets, at most d of them (docs/mechanisms.md E.3).
  const uint32_t rows = m == mechanism::dbitflip && d < 8 ? d : 8;
  return ldp::wire::make_frequency_oracle(m, eps, d, rows, 64, seed);
}

const std::vector<mechanism> oracles = ldp::test::mechanisms_of(ldp::wire::mechanism_family::frequency_oracle);

// The epsilon of a block with one threshold moved one step away from privacy.
double one_step_looser(ldp::wire::params p) {
  switch (ldp::wire::oracle_of(p.mech)) {
    case frequency_oracle::sue:
    case frequency_oracle::dbitflip:
      p.set(field::threshold_keep, p.get(field::threshold_keep) + 1);
      p.set(field::threshold_other, p.get(field::threshold_other) - 1);
      break;
    case frequency_oracle::oue:
    case frequency_oracle::cms:
    case frequency_oracle::hcms: p.set(field::threshold_other, p.get(field::threshold_other) - 1); break;
    case frequency_oracle::grr:
    case frequency_oracle::blh:
    case frequency_oracle::olh:
    case frequency_oracle::flh:
    case frequency_oracle::hr: p.set(field::threshold_keep, p.get(field::threshold_keep) + 1); break;
  }
  return ldp::wire::implemented_epsilon(p);
}

}  // namespace

TEST_CASE("det_exp and det_log agree with libm to a few ulps") {
  auto rng = ldp::test::seeded_drbg("det math");
  for (int i = 0; i < 20000; ++i) {
    const double x = (static_cast<double>(rng.next_u32()) / 4294967296.0 - 0.5) * 100;
    CHECK(ulps(ldp::wire::det_exp(x), std::exp(x)) <= 4);
    const double y = std::ldexp(1.0 + rng.next_u32() / 4294967296.0, static_cast<int>(rng.next_u32() % 600) - 300);
    CHECK(ulps(ldp::wire::det_log(y), std::log(y)) <= 4);
  }
  for (uint64_t n = 1; n < (uint64_t{1} << 34); n = n * 3 + 1) {
    CHECK(ulps(ldp::wire::det_log(static_cast<double>(n)), std::log(static_cast<double>(n))) <= 4);
  }
  CHECK(ldp::wire::det_log(1.0) == 0.0);
  CHECK(ldp::wire::det_exp(0.0) == 1.0);
  CHECK(std::isinf(ldp::wire::det_log(0.0)));
  CHECK(std::isnan(ldp::wire::det_log(-1.0)));
}

TEST_CASE("epsilon_impl <= epsilon, within the quantization loss, and tight") {
  for (mechanism m : oracles) {
    for (double eps : {0.05, 0.5, 1.0, 1.5, 2.0, 4.0, 8.0}) {
      for (uint32_t d : {2u, 10u, 1000u}) {
        const std::string oracle_name = ldp::wire::mechanism_name(m);
        CAPTURE(oracle_name);
        CAPTURE(eps);
        CAPTURE(d);
        const auto r = derive(m, eps, d);
        REQUIRE(r.code == status::ok);
        CHECK(ldp::wire::validate(r.block) == status::ok);
        CHECK(r.epsilon_impl <= eps);
        CHECK(r.epsilon_impl == ldp::wire::implemented_epsilon(r.block));
        // Loss bound of D.1: one threshold step changes epsilon by about 2^-32 / min(p, 1 - p) per
        // differing position (two for SUE and CMS).
        const double loss = eps - r.epsilon_impl;
        CHECK(loss >= 0);
        CHECK(loss < 1e-5);
        // Tightness: one step looser would exceed the request (or the margin of 2^-40).
        CHECK(one_step_looser(r.block) * (1 + std::ldexp(1.0, -40)) > eps);
      }
    }
  }
}

TEST_CASE("implemented epsilon recomputed independently with libm") {
  const auto sue = ldp::wire::make_sue(1.0, 10).block;
  const double tp = static_cast<double>(sue.get(field::threshold_keep));
  const double tq = static_cast<double>(sue.get(field::threshold_other));
  CHECK(ldp::wire::implemented_epsilon(sue) == doctest::Approx(2 * std::log(tp / tq)).epsilon(1e-13));
  // The classic bug: a per-bit keep probability of e^eps / (1 + e^eps) would double epsilon.
  CHECK(tp / 4294967296.0 == doctest::Approx(std::exp(0.5) / (1 + std::exp(0.5))).epsilon(1e-9));
  const auto grr = ldp::wire::make_grr(1.0, 10).block;
  const double t = static_cast<double>(grr.get(field::threshold_keep));
  CHECK(ldp::wire::implemented_epsilon(grr) == doctest::Approx(std::log(t * 9 / (4294967296.0 - t))).epsilon(1e-13));
  const auto oue = ldp::wire::make_oue(2.0, 10).block;
  CHECK(oue.get(field::threshold_keep) == (uint64_t{1} << 31));
}

TEST_CASE("OLH picks the integer g with the smaller variance; HR pads K past d") {
  // e^1.5 + 1 = 5.48: g is 5 or 6; at epsilon = 1, e + 1 = 3.72: g is 3 or 4.
  const uint64_t g15 = ldp::wire::make_olh(1.5, 1000).block.get(field::hash_range);
  CHECK((g15 == 5 || g15 == 6));
  const uint64_t g1 = ldp::wire::make_olh(1.0, 1000).block.get(field::hash_range);
  CHECK((g1 == 3 || g1 == 4));
  CHECK(ldp::wire::make_olh(0.1, 1000).block.mech == mechanism::blh);  // g = 2 is BLH
  CHECK(ldp::wire::make_blh(1.0, 1000).block.get(field::hash_range) == 2);
  CHECK(ldp::wire::make_hr(1.0, 10).block.get(field::hadamard_dim) == 16);
  CHECK(ldp::wire::make_hr(1.0, 15).block.get(field::hadamard_dim) == 16);
  CHECK(ldp::wire::make_hr(1.0, 16).block.get(field::hadamard_dim) == 32);
}

TEST_CASE("bad arguments are refused") {
  CHECK(ldp::wire::make_frequency_oracle(mechanism::laplace, 1.0, 10).code == status::invalid_argument);
  CHECK(ldp::wire::make_frequency_oracle(mechanism::cms, 1.0, 10, 8, 64, nullptr).code == status::invalid_argument);
  CHECK(ldp::wire::make_grr(0.0, 10).code == status::invalid_argument);
  CHECK(ldp::wire::make_grr(-1.0, 10).code == status::invalid_argument);
  CHECK(ldp::wire::make_grr(41.0, 10).code == status::invalid_argument);
  CHECK(ldp::wire::make_grr(std::nan(""), 10).code == status::invalid_argument);
  CHECK(ldp::wire::make_sue(1.0, 1).code == status::invalid_argument);
  CHECK(ldp::wire::make_hcms(1.0, 10, 8, 100, seed).code == status::invalid_parameters);  // m not 2^k
}

TEST_CASE("an epsilon the thresholds cannot implement above 0 is refused (issue 21)") {
  // At 1e-12 the rounded thresholds give GRR a negative level and the others 0: every oracle's
  // builder refuses, and validate() refuses such blocks however they were made.
  for (mechanism m : oracles) {
    CAPTURE(ldp::wire::mechanism_name(m));
    const auto tiny = derive(m, 1e-12, 10);
    CHECK(tiny.code == status::invalid_parameters);
    const auto usable = derive(m, 1e-6, 10);
    REQUIRE(usable.code == status::ok);
    CHECK(usable.epsilon_impl > 0);
    CHECK(ldp::wire::validate(tiny.block) == status::invalid_parameters);
  }
  ldp::wire::kent_shape shape;
  shape.clip_hi = 1 << 16;
  CHECK(ldp::wire::make_kent_vote(1e-12, 4, shape).code == status::invalid_parameters);
  CHECK(ldp::wire::make_kent_vote(1e-6, 4, shape).code == status::ok);
  // The boundary, by hand: GRR on 4 values keeps with 2^30 / 2^32 = 1/4, as likely as each other value.
  auto grr = derive(mechanism::grr, 1.0, 4).block;
  grr.set(field::threshold_keep, uint64_t{1} << 30);
  CHECK(ldp::wire::validate(grr) == status::invalid_parameters);
  grr.set(field::threshold_keep, (uint64_t{1} << 30) + 1);
  CHECK(ldp::wire::validate(grr) == status::ok);
  auto oue = derive(mechanism::oue, 1.0, 4).block;
  oue.set(field::threshold_other, oue.get(field::threshold_keep));
  CHECK(ldp::wire::validate(oue) == status::invalid_parameters);
  auto cms = derive(mechanism::cms, 1.0, 4).block;
  cms.set(field::threshold_other, uint64_t{1} << 31);
  CHECK(ldp::wire::validate(cms) == status::invalid_parameters);
  cms.set(field::threshold_other, (uint64_t{1} << 31) - 1);
  CHECK(ldp::wire::validate(cms) == status::ok);
}

TEST_CASE("the universal hash: golden values, ranges and row independence") {
  const auto k = ldp::wire::report_hash_key(0x0123456789abcdefu);
  const auto k2 = ldp::wire::report_hash_key(0x0123456789abcdeeu);
  CHECK((k.a != k2.a && k.b != k2.b));
  for (uint32_t v = 0; v < 1000; ++v) {
    CHECK(ldp::wire::hash_to_range(k, v, 7) < 7);
    CHECK(ldp::wire::hash32(k, v) == static_cast<uint32_t>((k.a * v + k.b) >> 32));
  }
  const ldp::wire::sketch_hash sketch(seed);
  int same_rows = 0;
  for (uint32_t v = 0; v < 1000; ++v) {
    CHECK(sketch(3, v, 100) < 100);
    same_rows += sketch(0, v, 1 << 20) == sketch(1, v, 1 << 20);
  }
  CHECK(same_rows < 5);  // rows are different functions
  // Golden: pins the key derivation across platforms (s390x, ARM) and releases.
  CHECK(ldp::wire::hash_to_range(k, 42, 1000) == 300u);
  CHECK(sketch(1, 42, 1 << 20) == 1001024u);
}
