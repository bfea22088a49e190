// Privacy audits of the distribution family (docs/mechanisms.md G, D.2): square-wave, hierarchical and
// haar through distribution_context::fields, the shipped code.
//
// (a) Exact: the coins are enumerated with their exact weights (enumerator.h), giving P(report | x)
// for x in every bucket; the largest ratio over pairs of inputs and reports must be e^{epsilon_impl}
// (no leak, no wasted noise), and epsilon_impl the epsilon asked for (to 1e-6: T has 32 bits).
// The tree forms are audited given the inner OLH's revealed seed, for three seeds; their level is
// drawn from the coins alone, so the enumeration covers it with weight 1/h.
// (b) Monte-Carlo on the real DRBG (Table D.2): for buckets v and w and an event of likelihood ratio
// e^{epsilon_impl}, check_audit_event (audit.h). Square Wave's event is "the output is in v's window
// and not in w's" (probability T / 2^32 |W_v \ W_w| / (2b + 1) from v, (1 - T / 2^32) |W_v \ W_w| /
// (D - 1) from w); the tree forms' is OLH's event for the items v and w give the report's level.
// Each proportion is two-sided at 4e-8, so a correct build fails one of the 6 cases with
// probability below 6 x 1.6e-7 < 1e-6; at 200,000 reports per input the event holds for w about
// 1,800 times or more (the tree forms at epsilon 4: OLH with g = 56), which puts the 0.9 check more
// than 15 standard errors of ln(k1 / k0) below the truth.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "audit.h"
#include "device_context.h"
#include "enumerator.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "privacy_ratio.h"
#include "tables.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

// The exact max ratio of block p over inputs at the first grid point of every bucket, reports keyed
// by their payload bytes.
ldp::test::ratio_result exact_ratio(const ldp::wire::params& p, uint64_t seed) {
  ldp::test::owned_context<ldp::device::distribution_context> c(p);
  REQUIRE(c.code == status::ok);
  return ldp::test::max_ratio(static_cast<uint32_t>(p.get(field::domain)), seed,
                              [&](uint32_t v, ldp::test::enumerating_coins& coins) {
                                ldp::wire::report r;
                                REQUIRE(c->fields(ldp::wire::range_cell_edge(p, v), coins, &r) == status::ok);
                                std::vector<unsigned char> z(ldp::wire::max_payload_size(p));
                                std::size_t size = 0;
                                REQUIRE(ldp::wire::encode_payload(p, r, z, &size) == status::ok);
                                return std::string(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(size));
                              });
}

// e^{epsilon} with the tolerance of the enumeration's long double path weights.
long double bound(double epsilon) { return std::exp(static_cast<long double>(epsilon)); }

// A square-wave block of D buckets, window half width b, and the keep threshold p * 2^32.
ldp::wire::params with_keep(uint32_t d, int64_t b, long double keep) {
  ldp::wire::params p = ldp::wire::make_square_wave(1.0, d, 0, 1, 16, b).block;
  p.set(field::threshold_keep, static_cast<uint64_t>(std::floor(keep * 4294967296.0L)));
  REQUIRE(ldp::wire::validate(p) == status::ok);
  return p;
}

}  // namespace

TEST_CASE("exact audit: square-wave is epsilon_impl-LDP, tightly, at the epsilon asked for") {
  for (const double eps : {0.5, 1.0, 3.0}) {
    for (const uint32_t d : {2u, 5u, 16u}) {
      // b = 0 (GRR on D values), 1, the rule's width (-1), and the widest window b = D.
      for (const int64_t b : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{d}}) {
        CAPTURE(eps);
        CAPTURE(d);
        CAPTURE(b);
        const auto derived = ldp::wire::make_square_wave(eps, d, -4, 4, 8, b);
        REQUIRE(derived.code == status::ok);
        CHECK(derived.epsilon_impl <= eps);
        CHECK(derived.epsilon_impl >= eps - 1e-6);
        const auto r = exact_ratio(derived.block, 0);
        CHECK_FALSE(r.infinite);
        CHECK(r.max_ratio <= bound(derived.epsilon_impl) * (1 + 1e-12L));
        CHECK(r.max_ratio >= bound(derived.epsilon_impl) * (1 - 1e-9L));
      }
    }
  }
}

TEST_CASE("exact audit: the tree forms are their inner OLH's epsilon_impl-LDP, tightly") {
  for (const double eps : {0.5, 2.0}) {
    const ldp::wire::derived_params members[] = {
        ldp::wire::make_hierarchical(eps, 8, 2, 0, 1, 16),
        ldp::wire::make_hierarchical(eps, 9, 3, 0, 1, 16),
        ldp::wire::make_haar(eps, 8, 0, 1, 16),
    };
    for (const auto& derived : members) {
      REQUIRE(derived.code == status::ok);
      const ldp::wire::params& p = derived.block;
      CAPTURE(ldp::wire::mechanism_name(p.mech));
      CAPTURE(p.get(field::domain));
      CAPTURE(eps);
      CHECK(derived.epsilon_impl <= eps);
      CHECK(derived.epsilon_impl == ldp::wire::make_olh(eps, static_cast<uint32_t>(p.get(field::domain))).epsilon_impl);
      long double best = 0;
      for (const uint64_t seed : {uint64_t{1}, uint64_t{0x9e3779b97f4a7c15u}, uint64_t{42}}) {
        const auto r = exact_ratio(p, seed);
        CHECK_FALSE(r.infinite);
        CHECK(r.max_ratio <= bound(derived.epsilon_impl) * (1 + 1e-12L));
        if (r.max_ratio > best) best = r.max_ratio;
      }
      CHECK(best >= bound(derived.epsilon_impl) * (1 - 1e-9L));
    }
  }
}

TEST_CASE("exact audit: a square-wave threshold not from the window rule fails it") {
  // Epsilon 3, D = 16, b = 3. Keeping the window with e^eps / (1 + e^eps), a two-output rule, leaks
  // (D - 1) / (2b + 1) times more than e^eps; GRR's keep on the D buckets, e^eps / (e^eps + D - 1),
  // the window ignored, wastes noise: the ratio is e^eps / (2b + 1).
  const long double e = std::exp(3.0L);
  const auto leak = exact_ratio(with_keep(16, 3, e / (1 + e)), 0);
  CHECK(leak.max_ratio > bound(3.0) * 2);
  const auto waste = exact_ratio(with_keep(16, 3, e / (e + 15)), 0);
  CHECK(waste.max_ratio < bound(3.0) * 0.5L);
  // The rule's own block attains e^eps (the audit above), so the audit separates them.
  const auto right = ldp::wire::make_square_wave(3.0, 16, 0, 1, 16, 3);
  REQUIRE(right.code == status::ok);
  CHECK(exact_ratio(right.block, 0).max_ratio == doctest::Approx(static_cast<double>(bound(3.0))).epsilon(1e-6));
}

namespace {

constexpr double alpha = 4e-8;
constexpr uint64_t runs = 200000;

// Table D.2's event for the buckets v and w (see the header comment).
bool in_event(const ldp::wire::params& p, const ldp::wire::report& r, uint32_t v, uint32_t w) {
  if (p.mech == mechanism::square_wave) {
    const uint64_t b = p.get(field::window_half_width);
    const auto in_window = [&](uint32_t u) { return r.index >= u && r.index <= u + 2 * b; };
    return in_window(v) && !in_window(w);
  }
  const auto key = ldp::wire::report_hash_key(r.seed);
  const auto g = static_cast<uint32_t>(p.get(field::hash_range));
  const uint32_t hv = ldp::wire::hash_to_range(key, ldp::wire::distribution_item(p, r.group, v), g);
  const uint32_t hw = ldp::wire::hash_to_range(key, ldp::wire::distribution_item(p, r.group, w), g);
  return hv != hw && r.index == hv;
}

uint64_t count_event(const ldp::wire::params& p, uint32_t input, uint32_t v, uint32_t w, ldp::random::drbg& rng) {
  ldp::test::owned_context<ldp::device::distribution_context> c(p);
  REQUIRE(c.code == status::ok);
  ldp::device::drbg_coins coins(rng);
  const int64_t x = ldp::wire::range_cell_edge(p, input);
  uint64_t hits = 0, failures = 0;
  for (uint64_t i = 0; i < runs; ++i) {
    ldp::wire::report r;
    failures += c->fields(x, coins, &r) != status::ok;
    hits += in_event(p, r, v, w);
  }
  REQUIRE(failures == 0);
  return hits;
}

}  // namespace

TEST_CASE("Monte-Carlo audit of the DRBG path: no leak and no wasted noise, every member at epsilon 1 and 4") {
  for (const double eps : {1.0, 4.0}) {
    // 16 buckets of [-1, 1]: square-wave with b = 2 (disjoint windows for v = 3, w = 11),
    // hierarchical with fan-out 4, haar; v and w differ in their item on every level.
    const ldp::wire::derived_params members[] = {
        ldp::wire::make_square_wave(eps, 16, -1, 1, 16, 2),
        ldp::wire::make_hierarchical(eps, 16, 4, -1, 1, 16),
        ldp::wire::make_haar(eps, 16, -1, 1, 16),
    };
    for (const auto& derived : members) {
      REQUIRE(derived.code == status::ok);
      const ldp::wire::params& p = derived.block;
      const std::string name = ldp::wire::mechanism_name(p.mech);
      CAPTURE(name);
      CAPTURE(eps);
      auto rng = ldp::test::seeded_drbg(name.c_str());
      const uint32_t v = 3, w = 11;
      const uint64_t k1 = count_event(p, v, v, w, rng);
      const uint64_t k0 = count_event(p, w, v, w, rng);
      ldp::test::check_audit_event(k1, k0, runs, alpha, derived.epsilon_impl);
    }
  }
}
