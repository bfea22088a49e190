// Memoized oracle blocks (docs/mechanisms.md E.1, docs/wire_format.md 3.2-3.3): the derivation keeps the
// permanent stage of the plain oracle at epsilon_inf and picks the least noisy instantaneous
// thresholds whose composite epsilon_1 fits; the composite channel against a direct long double
// evaluation; the block rules of tags 29 and 30.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ldp/wire.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

bool unary(const ldp::wire::params& p) { return ldp::wire::kind_of(p.mech) == ldp::wire::payload_kind::unary_bits; }

// The instantaneous thresholds moved one step toward less noise (unary: the symmetric flip down by
// one; local hashing: the keep up by one).
ldp::wire::params one_step_looser(ldp::wire::params p) {
  p.set(field::instant_keep, p.get(field::instant_keep) + 1);
  if (unary(p)) p.set(field::instant_other, p.get(field::instant_other) - 1);
  return p;
}

// epsilon_1 of the composite channel evaluated directly in long double from the integers.
long double direct_report_epsilon(const ldp::wire::params& p) {
  const long double one = 4294967296.0L;
  const long double t = static_cast<long double>(p.get(field::threshold_keep)) / one,
                    i = static_cast<long double>(p.get(field::instant_keep)) / one;
  if (unary(p)) {
    const long double o = static_cast<long double>(p.get(field::threshold_other)) / one,
                      j = static_cast<long double>(p.get(field::instant_other)) / one;
    const long double ps = t * i + (1 - t) * j, qs = o * i + (1 - o) * j;
    return std::log(ps * (1 - qs) / (qs * (1 - ps)));
  }
  const long double g = static_cast<long double>(p.get(field::hash_range));
  const long double c = t * i + (1 - t) * (1 - i) / (g - 1);
  return std::log(c * (g - 1) / (1 - c));
}

}  // namespace

TEST_CASE("make_memoized_oracle: the permanent stage is the plain oracle at epsilon_inf, epsilon_1 fits tightly") {
  for (mechanism m : ldp::test::memoized_oracles()) {
    for (const auto& levels : std::vector<std::pair<double, double>>{
             {1.0, 0.5}, {2.0, 1.0}, {4.0, 1.0}, {8.0, 2.0}, {3.0, 2.9}, {0.2, 0.05}, {20.0, 0.5}}) {
      // Named copies, not a structured binding: clang 14 (C++17) cannot capture one in CAPTURE's lambda.
      const double inf = levels.first, report = levels.second;
      for (uint32_t d : {2u, 10u, 1000u}) {
        const std::string name = ldp::wire::mechanism_name(m);
        CAPTURE(name);
        CAPTURE(inf);
        CAPTURE(report);
        CAPTURE(d);
        const auto memo = ldp::wire::make_memoized_oracle(m, inf, report, d);
        REQUIRE(memo.code == status::ok);
        const ldp::wire::params& p = memo.block;
        CHECK(ldp::wire::validate(p) == status::ok);
        CHECK(ldp::wire::is_memoized(p));
        // The permanent thresholds are the plain oracle's at epsilon_inf; olh's hash range is the
        // one make_olh chooses at epsilon_report (and may make it a blh block).
        const auto plain =
            m == mechanism::olh
                ? ldp::wire::make_olh(
                      inf, d, static_cast<uint32_t>(ldp::wire::make_olh(report, d).block.get(field::hash_range)))
                : ldp::wire::make_frequency_oracle(m, inf, d);
        REQUIRE(plain.code == status::ok);
        CHECK(p.mech == plain.block.mech);
        CHECK(p.get(field::threshold_keep) == plain.block.get(field::threshold_keep));
        CHECK(p.get(field::threshold_other) == plain.block.get(field::threshold_other));
        CHECK(p.get(field::hash_range) == plain.block.get(field::hash_range));
        CHECK(ldp::wire::longitudinal_epsilon(p) == plain.epsilon_impl);
        // epsilon_1: recomputed, within the request, a few ulps from the long double evaluation,
        // and as large as the grid allows (one step less noise breaks the request).
        CHECK(memo.epsilon_impl == ldp::wire::implemented_epsilon(p));
        CHECK(memo.epsilon_impl * ldp::wire::epsilon_margin <= report);
        CHECK(static_cast<double>(direct_report_epsilon(p)) == doctest::Approx(memo.epsilon_impl).epsilon(1e-12));
        CHECK(memo.epsilon_impl < ldp::wire::longitudinal_epsilon(p));
        const ldp::wire::params looser = one_step_looser(p);
        if (ldp::wire::validate(looser) == status::ok) {
          CHECK(ldp::wire::implemented_epsilon(looser) * ldp::wire::epsilon_margin > report);
        }
        if (unary(p)) {
          CHECK(p.get(field::instant_keep) + p.get(field::instant_other) == (uint64_t{1} << 32));
        } else {
          CHECK_FALSE(p.has(field::instant_other));
        }
      }
    }
  }
}

TEST_CASE("make_memoized_oracle refuses what it cannot build") {
  CHECK(ldp::wire::make_memoized_oracle(mechanism::sue, 1.0, 1.0, 10).code == status::invalid_argument);
  CHECK(ldp::wire::make_memoized_oracle(mechanism::olh, 1.0, 2.0, 10).code == status::invalid_argument);
  CHECK(ldp::wire::make_memoized_oracle(mechanism::oue, 1.0, 0.0, 10).code == status::invalid_argument);
  CHECK(ldp::wire::make_memoized_oracle(mechanism::oue, 41.0, 1.0, 10).code == status::invalid_argument);
  CHECK(ldp::wire::make_memoized_oracle(mechanism::sue, 2.0, 1.0, 1).code == status::invalid_argument);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(ldp::wire::make_memoized_oracle(mechanism::sue, nan, 1.0, 10).code == status::invalid_argument);
  CHECK(ldp::wire::make_memoized_oracle(mechanism::sue, 2.0, nan, 10).code == status::invalid_argument);
  // duchi's memo fields are E.2's (test_memo_mean.cpp); make_memoized_oracle refuses it all the same.
  CHECK(ldp::wire::make_memoized_oracle(mechanism::duchi, 2.0, 1.0, 10).code == status::invalid_argument);
  for (mechanism m :
       {mechanism::grr, mechanism::hr, mechanism::cms, mechanism::hcms, mechanism::flh, mechanism::kent_vote}) {
    CHECK(ldp::wire::memo_fields(m) == 0);
    CHECK(ldp::wire::make_memoized_oracle(m, 2.0, 1.0, 10).code == status::invalid_argument);
  }
}

TEST_CASE("longitudinal_epsilon: the permanent level, unbounded without memoization, NaN outside the oracles") {
  const auto plain = ldp::wire::make_oue(1.0, 10).block;
  CHECK(ldp::wire::longitudinal_epsilon(plain) == std::numeric_limits<double>::infinity());
  CHECK_FALSE(ldp::wire::is_memoized(plain));
  const unsigned char rotation_seed[32] = {1};
  CHECK(std::isnan(
      ldp::wire::longitudinal_epsilon(ldp::wire::make_vector_duchi(4, 1.0, 12, 1.0, 1e-3, rotation_seed).block)));
  const auto memo = ldp::wire::make_memoized_oracle(mechanism::oue, 3.0, 1.0, 10);
  REQUIRE(memo.code == status::ok);
  CHECK(ldp::wire::longitudinal_epsilon(memo.block) == ldp::wire::make_oue(3.0, 10).epsilon_impl);
}

TEST_CASE("the composite channel: both stages composed, complements consistent") {
  for (mechanism m : ldp::test::memoized_oracles()) {
    const auto memo = ldp::wire::make_memoized_oracle(m, 4.0, 1.0, 10);
    REQUIRE(memo.code == status::ok);
    const ldp::wire::memo_channel c = ldp::wire::composite_channel(memo.block);
    CHECK(c.p + c.not_p == doctest::Approx(1.0).epsilon(1e-15));
    CHECK(c.q + c.not_q == doctest::Approx(1.0).epsilon(1e-15));
    CHECK(c.p > c.q);
    if (!unary(memo.block)) {
      const auto g = static_cast<double>(memo.block.get(field::hash_range));
      CHECK(c.p + (g - 1) * c.q == doctest::Approx(1.0).epsilon(1e-15));
    }
  }
  // Hand values: SUE thresholds 3/4 and 1/4, instantaneous 1/2 + 1/4: p* = 3/4 * 3/4 + 1/4 * 1/4.
  ldp::wire::params p = ldp::wire::make_sue(1.0, 4).block;
  p.set(field::threshold_keep, uint64_t{3} << 30).set(field::threshold_other, uint64_t{1} << 30);
  p.set(field::instant_keep, uint64_t{3} << 30).set(field::instant_other, uint64_t{1} << 30);
  REQUIRE(ldp::wire::validate(p) == status::ok);
  const auto c = ldp::wire::composite_channel(p);
  CHECK(c.p == 10.0 / 16);
  CHECK(c.q == 6.0 / 16);
  CHECK(ldp::wire::implemented_epsilon(p) == doctest::Approx(std::log((10.0 * 10) / (6.0 * 6))));
  CHECK(ldp::wire::longitudinal_epsilon(p) == doctest::Approx(std::log(9.0)));
  // And GRR on g = 4: keep 1/2 twice: p* = 1/4 + (1/2)(1/2)/3 = 1/3.
  ldp::wire::params h = ldp::wire::make_olh(1.0, 10, 4).block;
  h.set(field::threshold_keep, uint64_t{1} << 31).set(field::instant_keep, uint64_t{1} << 31);
  REQUIRE(ldp::wire::validate(h) == status::ok);
  const auto ch = ldp::wire::composite_channel(h);
  CHECK(ch.p == doctest::Approx(1.0 / 3).epsilon(1e-15));
  CHECK(ch.q == doctest::Approx(2.0 / 9).epsilon(1e-15));
  CHECK(ldp::wire::implemented_epsilon(h) == doctest::Approx(std::log(1.5)));
}

TEST_CASE("block rules of tags 29 and 30 (wire_format.md 3.2-3.3)") {
  const auto sue = ldp::wire::make_memoized_oracle(mechanism::sue, 2.0, 1.0, 10).block;
  const auto olh = ldp::wire::make_memoized_oracle(mechanism::olh, 2.0, 1.0, 10).block;
  REQUIRE(ldp::wire::validate(sue) == status::ok);
  REQUIRE(ldp::wire::validate(olh) == status::ok);
  // Round trip and a fingerprint of its own.
  for (const ldp::wire::params& p : {sue, olh}) {
    std::vector<unsigned char> bytes(ldp::wire::params_max_size);
    std::size_t size = 0;
    REQUIRE(ldp::wire::encode_params(p, bytes, &size) == status::ok);
    ldp::wire::params back;
    REQUIRE(ldp::wire::decode_params({bytes.data(), size}, &back) == status::ok);
    CHECK(ldp::wire::fingerprint(back) == ldp::wire::fingerprint(p));
    ldp::wire::params plain = p;
    plain.present &= ~ldp::wire::memo_fields(p.mech);
    CHECK(ldp::wire::validate(plain) == status::ok);
    CHECK(ldp::wire::fingerprint(plain) != ldp::wire::fingerprint(p));
  }
  const auto invalid = [](ldp::wire::params p) { return ldp::wire::validate(p) == status::invalid_parameters; };
  auto p = sue;
  p.present &= ~ldp::wire::field_bit(field::instant_other);  // unary needs both
  CHECK(invalid(p));
  p = olh;
  p.set(field::instant_other, 1);  // local hashing has no instant_other
  CHECK(invalid(p));
  p = ldp::wire::make_grr(1.0, 10).block;
  p.set(field::instant_keep, uint64_t{3} << 30);  // no memoized GRR
  CHECK(invalid(p));
  p = sue;
  p.set(field::instant_other, p.get(field::instant_keep));  // epsilon_1 = 0
  CHECK(invalid(p));
  p = sue;
  p.set(field::instant_keep, (uint64_t{1} << 32) + 1);  // above 2^w
  CHECK(invalid(p));
  p = olh;
  const uint64_t g = olh.get(field::hash_range);
  p.set(field::instant_keep, (uint64_t{1} << 32) / g);  // the true bucket no more likely than another
  CHECK(invalid(p));
  p.set(field::instant_keep, (uint64_t{1} << 32) / g + 1);
  CHECK(ldp::wire::validate(p) == status::ok);
  // No instantaneous noise at all is a valid (if pointless) block: epsilon_1 = epsilon_inf.
  p = sue;
  p.set(field::instant_keep, uint64_t{1} << 32).set(field::instant_other, 0);
  CHECK(ldp::wire::validate(p) == status::ok);
  CHECK(ldp::wire::implemented_epsilon(p) == doctest::Approx(ldp::wire::longitudinal_epsilon(p)).epsilon(1e-12));
}

TEST_CASE("one memoized report costs the variance of the plain oracle at epsilon_1") {
  // The composite of two symmetric binary channels (SUE, BLH), of OUE's true bit at 1/2 through a
  // symmetric one, and of two GRRs on OLH's g buckets is the plain oracle's channel at epsilon_1:
  // the leading variance coefficient q (1 - q) / (p - q)^2 matches to the rounding of the
  // thresholds (OLH: its g is chosen at epsilon_1 for this).
  for (mechanism m : ldp::test::memoized_oracles()) {
    for (const auto& levels : std::vector<std::pair<double, double>>{{2.0, 1.0}, {8.0, 1.0}, {4.0, 2.0}}) {
      const double inf = levels.first, report = levels.second;  // CAPTURE'd: no structured binding (clang 14)
      const std::string name = ldp::wire::mechanism_name(m);
      CAPTURE(name);
      CAPTURE(inf);
      CAPTURE(report);
      const auto memo = ldp::wire::make_memoized_oracle(m, inf, report, 1000);
      REQUIRE(memo.code == status::ok);
      const auto plain = ldp::wire::make_frequency_oracle(m, memo.epsilon_impl, 1000).block;
      const auto lead = [](double p, double q) { return q * (1 - q) / ((p - q) * (p - q)); };
      const ldp::wire::memo_channel c = ldp::wire::composite_channel(memo.block);
      const double one = 4294967296.0;
      double memo_lead = 0, plain_lead = 0;
      if (unary(memo.block)) {
        memo_lead = lead(c.p, c.q);
        plain_lead = lead(static_cast<double>(plain.get(field::threshold_keep)) / one,
                          static_cast<double>(plain.get(field::threshold_other)) / one);
      } else {
        REQUIRE(plain.get(field::hash_range) == memo.block.get(field::hash_range));
        const double q = 1.0 / static_cast<double>(plain.get(field::hash_range));
        memo_lead = lead(c.p, q);
        plain_lead = lead(static_cast<double>(plain.get(field::threshold_keep)) / one, q);
      }
      CHECK(memo_lead == doctest::Approx(plain_lead).epsilon(1e-6));
    }
  }
}
