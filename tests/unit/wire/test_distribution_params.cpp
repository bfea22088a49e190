// The distribution family's blocks (ldp/wire/distribution_params.h, docs/mechanisms.md G,
// docs/wire_format.md 3.3): Square Wave's threshold from the window rule and its epsilon_impl, the
// window half width rule of Li et al., the tree forms' inner OLH, levels and default fan-out, the
// inner item of every bucket and level against a brute force over the node intervals, and the
// blocks validate() refuses (each at its exact boundary where it has one).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/wire.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

constexpr long double two32 = 4294967296.0L;

// G.1 in long double, from the block's integers: ln(T (D - 1) / ((2^32 - T)(2b + 1))).
long double square_wave_epsilon(const ldp::wire::params& p) {
  const auto t = static_cast<long double>(p.get(field::threshold_keep));
  const auto d = static_cast<long double>(p.get(field::domain));
  const auto window = static_cast<long double>(2 * p.get(field::window_half_width) + 1);
  return std::log(t * (d - 1) / ((two32 - t) * window));
}

// Li et al.'s b(eps) (the width maximising the mutual information), as a fraction of the range.
long double li_half_width(long double eps) {
  const long double e = std::exp(eps);
  return (eps * e - e + 1) / (2 * e * (e - 1 - eps));
}

// The fan-out of least (B - 1) / ln(B)^2 among B in [2, 16] of which D is a power, by trying every B
// and every power; 0 for none.
uint32_t branching_by_search(uint32_t d) {
  uint32_t best = 0;
  long double best_cost = 0;
  for (uint32_t b = 2; b <= 16; ++b) {
    bool power = false;
    for (uint64_t n = b; n <= d; n *= b) power = power || n == d;
    if (!power) continue;
    const long double cost = (b - 1) / (std::log(static_cast<long double>(b)) * std::log(static_cast<long double>(b)));
    if (best == 0 || cost < best_cost) best = b, best_cost = cost;
  }
  return best;
}

ldp::wire::params valid_block(mechanism m) {
  const auto derived = m == mechanism::square_wave    ? ldp::wire::make_square_wave(1.0, 16, -1, 1, 16, 3)
                       : m == mechanism::hierarchical ? ldp::wire::make_hierarchical(1.0, 16, 4, -1, 1, 16)
                                                      : ldp::wire::make_haar(1.0, 16, -1, 1, 16);
  REQUIRE(derived.code == status::ok);
  REQUIRE(ldp::wire::validate(derived.block) == status::ok);
  return derived.block;
}

}  // namespace

TEST_CASE("make_square_wave: the window rule's threshold, rounded toward privacy, and its epsilon_impl") {
  for (const double eps : {0.1, 0.5, 1.0, 2.0, 4.0, 10.0}) {
    for (const uint32_t d : {2u, 16u, 1000u, 65536u}) {
      for (const int64_t b : {int64_t{0}, int64_t{3}, int64_t{-1}, int64_t{d}}) {
        if (b > d) continue;
        CAPTURE(eps);
        CAPTURE(d);
        CAPTURE(b);
        const auto derived = ldp::wire::make_square_wave(eps, d, -2.5, 7.5, 20, b);
        REQUIRE(derived.code == status::ok);
        const ldp::wire::params& p = derived.block;
        CHECK(p.mech == mechanism::square_wave);
        CHECK(p.get(field::domain) == d);
        CHECK(p.get(field::threshold_bits) == 32);
        const uint64_t half = b < 0 ? ldp::wire::square_wave_half_width(eps, d) : static_cast<uint64_t>(b);
        CHECK(p.get(field::window_half_width) == half);
        CHECK(p.get(field::frac_bits) == 20);
        CHECK(p.get_signed(field::clip_lo) == -2621440);
        CHECK(p.get_signed(field::clip_hi) == 7864320);
        CHECK(ldp::wire::square_wave_outputs(p) == d + 2 * half);
        // T / 2^32 = (2b + 1) e^eps / ((2b + 1) e^eps + D - 1), never above it, at most a few units below.
        const long double window = 2 * static_cast<long double>(half) + 1;
        const long double ideal = window * std::exp(static_cast<long double>(eps)) /
                                  (window * std::exp(static_cast<long double>(eps)) + (d - 1)) * two32;
        const auto t = static_cast<long double>(p.get(field::threshold_keep));
        CHECK(t <= ideal);
        CHECK(t >= ideal - 4);
        // epsilon_impl is G.1's ratio of the integers, at most eps and within a few steps of T
        // (one step moves it by about 1 / T + 1 / (2^32 - T)).
        CHECK(derived.epsilon_impl == ldp::wire::implemented_epsilon(p));
        CHECK(static_cast<long double>(derived.epsilon_impl) ==
              doctest::Approx(static_cast<double>(square_wave_epsilon(p))).epsilon(1e-12));
        CHECK(derived.epsilon_impl <= eps);
        CHECK(eps - derived.epsilon_impl <= static_cast<double>(4 / t + 4 / (two32 - t)));
      }
    }
  }
}

TEST_CASE("the window half width rule: round(D b(eps)) with Li et al.'s b(eps), narrowing as eps grows") {
  // eps = 1: b = 1 / (2 e (e - 2)) = 0.25609..., so 1024 buckets get round(262.2) = 262.
  CHECK(ldp::wire::square_wave_half_width(1.0, 1024) == 262);
  for (const uint32_t d : {2u, 10u, 1024u, 65536u}) {
    uint32_t previous = d;
    for (const double eps : {0.05, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 20.0}) {
      CAPTURE(d);
      CAPTURE(eps);
      const long double exact = li_half_width(eps) * d;
      const uint32_t b = ldp::wire::square_wave_half_width(eps, d);
      // Rounded to nearest (ties aside: the library's exp is its own deterministic one).
      if (std::fabs(exact - std::floor(exact) - 0.5L) > 1e-6L) {
        CHECK(b == static_cast<uint32_t>(std::floor(exact + 0.5L)));
      }
      CHECK(2 * b <= d);  // b(eps) < 1/2: the window never covers more than the range
      CHECK(b <= previous);
      previous = b;
    }
  }
  // A negative half_width asks for the rule.
  const auto ruled = ldp::wire::make_square_wave(2.0, 500, 0, 1, 16, -1);
  REQUIRE(ruled.code == status::ok);
  CHECK(ruled.block.get(field::window_half_width) == ldp::wire::square_wave_half_width(2.0, 500));
}

TEST_CASE("default_branching: the least (B - 1) / ln(B)^2 among the fan-outs D is a power of") {
  CHECK(ldp::wire::default_branching(1024) == 4);   // 2: 2.08, 4: 1.56 (32 and 1024 are above 16)
  CHECK(ldp::wire::default_branching(65536) == 4);  // 2, 4, 16: 1.95
  CHECK(ldp::wire::default_branching(4096) == 4);   // 8: 1.62, 16: 1.95
  CHECK(ldp::wire::default_branching(512) == 8);    // 2 and 8 only
  CHECK(ldp::wire::default_branching(2) == 2);
  CHECK(ldp::wire::default_branching(27) == 3);
  CHECK(ldp::wire::default_branching(1000) == 10);
  CHECK(ldp::wire::default_branching(6) == 6);  // one level
  CHECK(ldp::wire::default_branching(17) == 0);
  CHECK(ldp::wire::default_branching(96) == 0);
  for (uint32_t d = 2; d <= 20000; ++d) {
    if (d == 81 || d == 729 || d == 6561) continue;  // 3 and 9 tie exactly: ln 9 = 2 ln 3
    CAPTURE(d);
    CHECK(ldp::wire::default_branching(d) == branching_by_search(d));
  }
  // make_hierarchical takes it for branching 0, and refuses D without one.
  const auto ruled = ldp::wire::make_hierarchical(1.0, 4096, 0, 0, 1, 16);
  REQUIRE(ruled.code == status::ok);
  CHECK(ruled.block.get(field::branching) == 4);
  CHECK(ldp::wire::distribution_levels(ruled.block) == 6);
  CHECK(ldp::wire::make_hierarchical(1.0, 17, 0, 0, 1, 16).code == status::invalid_argument);
}

TEST_CASE("the tree forms: OLH on the D buckets at eps, the levels, no range or fan-out in the inner block") {
  for (const double eps : {0.5, 1.0, 4.0}) {
    const ldp::wire::derived_params olh = ldp::wire::make_olh(eps, 256);
    const ldp::wire::derived_params forms[] = {ldp::wire::make_hierarchical(eps, 256, 4, 0, 100, 8),
                                               ldp::wire::make_hierarchical(eps, 256, 16, 0, 100, 8),
                                               ldp::wire::make_haar(eps, 256, 0, 100, 8)};
    for (const auto& derived : forms) {
      REQUIRE(derived.code == status::ok);
      const ldp::wire::params& p = derived.block;
      CAPTURE(ldp::wire::mechanism_name(p.mech));
      CAPTURE(eps);
      CHECK(derived.epsilon_impl == olh.epsilon_impl);
      CHECK(ldp::wire::implemented_epsilon(p) == olh.epsilon_impl);
      const ldp::wire::params inner = ldp::wire::distribution_inner_block(p);
      CHECK(inner.mech == mechanism::olh);
      CHECK(ldp::wire::fingerprint(inner) == ldp::wire::fingerprint(olh.block));
      CHECK(ldp::wire::group_count(p) == ldp::wire::distribution_levels(p));
      const uint64_t b = p.mech == mechanism::haar ? 2 : p.get(field::branching);
      CHECK(ldp::wire::distribution_branching(p) == b);
      CHECK(ldp::wire::distribution_levels(p) == (b == 2 ? 8u : b == 4 ? 4u : 2u));
    }
  }
  CHECK(ldp::wire::distribution_levels(valid_block(mechanism::square_wave)) == 0);
}

TEST_CASE("distribution_item: the node of the level's interval that holds the bucket, by brute force") {
  // hierarchical: group g reports the node j of level g + 1 (B^(g+1) nodes of D / B^(g+1) buckets)
  // with j D / B^(g+1) <= v < (j + 1) D / B^(g+1).
  for (const uint32_t b : {2u, 3u, 4u, 7u, 16u}) {
    for (uint32_t d = b; d <= 4096; d *= b) {
      const auto derived = ldp::wire::make_hierarchical(1.0, d, b, 0, 1, 16);
      REQUIRE(derived.code == status::ok);
      const ldp::wire::params& p = derived.block;
      const uint32_t h = ldp::wire::distribution_levels(p);
      uint32_t nodes = 1;
      for (uint32_t g = 0; g < h; ++g) {
        nodes *= b;
        const uint32_t span = d / nodes;
        for (uint32_t v = 0; v < d; ++v) {
          uint32_t j = 0;
          while (!(j * span <= v && v < (j + 1) * span)) ++j;
          if (ldp::wire::distribution_item(p, g, v) != j) {
            CAPTURE(b);
            CAPTURE(d);
            CAPTURE(g);
            CAPTURE(v);
            CHECK(ldp::wire::distribution_item(p, g, v) == j);
          }
        }
      }
      CHECK(nodes == d);  // the last level is the buckets themselves
      for (uint32_t v = 0; v < d; ++v) {
        if (ldp::wire::distribution_item(p, h - 1, v) != v) CHECK(ldp::wire::distribution_item(p, h - 1, v) == v);
      }
    }
  }
  // haar: group g reports the node a of level g (2^g nodes of D / 2^g buckets) that holds v, and
  // the half s of it (0 left, 1 right): the item 2 a + s, in [0, 2^(g+1)).
  for (uint32_t d = 2; d <= 4096; d *= 2) {
    const auto derived = ldp::wire::make_haar(1.0, d, 0, 1, 16);
    REQUIRE(derived.code == status::ok);
    const ldp::wire::params& p = derived.block;
    const uint32_t h = ldp::wire::distribution_levels(p);
    CHECK((uint32_t{1} << h) == d);
    for (uint32_t g = 0; g < h; ++g) {
      const uint32_t span = d >> g;
      for (uint32_t v = 0; v < d; ++v) {
        uint32_t a = 0;
        while (!(a * span <= v && v < (a + 1) * span)) ++a;
        const uint32_t s = v < a * span + span / 2 ? 0 : 1;
        if (ldp::wire::distribution_item(p, g, v) != 2 * a + s) {
          CAPTURE(d);
          CAPTURE(g);
          CAPTURE(v);
          CHECK(ldp::wire::distribution_item(p, g, v) == 2 * a + s);
        }
      }
    }
  }
}

TEST_CASE("validate refuses square-wave blocks outside G.1's rules, at the boundaries") {
  const ldp::wire::params ok = valid_block(mechanism::square_wave);  // D = 16, b = 3, [-1, 1] at f = 16
  const auto check = [](ldp::wire::params p, status expected) { CHECK(ldp::wire::validate(p) == expected); };
  // A keep of 1 - 2^-22 holds every window of these checks more likely than any other output.
  const ldp::wire::params wide = ldp::wire::params(ok).set(field::threshold_keep, (uint64_t{1} << 32) - 1024);
  auto p = wide;
  check(p.set(field::domain, 2), status::invalid_parameters);  // b = 3 > D
  check(p.set(field::window_half_width, 0).set(field::domain, 1), status::invalid_parameters);
  check(p.set(field::domain, 2), status::ok);
  check(p.set(field::domain, 65536), status::ok);
  check(p.set(field::domain, 65537), status::invalid_parameters);
  p = wide;
  check(p.set(field::window_half_width, 16), status::ok);  // b = D
  check(p.set(field::window_half_width, 17), status::invalid_parameters);
  // epsilon_impl > 0: T (D - 1) > (2^32 - T)(2b + 1). D = 8 and b = 0 put the boundary at T = 2^29.
  p = ok;
  p.set(field::domain, 8).set(field::window_half_width, 0);
  check(p.set(field::threshold_keep, uint64_t{1} << 29), status::invalid_parameters);
  check(p.set(field::threshold_keep, (uint64_t{1} << 29) + 1), status::ok);
  // The range holds at least one grid point per bucket: clip_hi - clip_lo >= D.
  p = ok;
  p.set_signed(field::clip_lo, 0);
  check(p.set_signed(field::clip_hi, 15), status::invalid_parameters);
  check(p.set_signed(field::clip_hi, 16), status::ok);
  // Every field is required.
  for (field f : {field::domain, field::threshold_bits, field::threshold_keep, field::window_half_width,
                  field::frac_bits, field::clip_lo, field::clip_hi}) {
    p = ok;
    p.present &= ~ldp::wire::field_bit(f);
    CAPTURE(static_cast<int>(f));
    check(p, status::invalid_parameters);
  }
}

TEST_CASE("validate refuses tree-form blocks outside G.2 and G.3's rules") {
  const auto check = [](const ldp::wire::params& p, status expected) { CHECK(ldp::wire::validate(p) == expected); };
  const ldp::wire::params tree = valid_block(mechanism::hierarchical);  // D = 16, B = 4
  auto p = tree;
  check(p.set(field::branching, 2), status::ok);
  check(p.set(field::branching, 16), status::ok);                 // one level
  check(p.set(field::branching, 3), status::invalid_parameters);  // 16 is no power of 3
  check(p.set(field::branching, 1), status::invalid_parameters);
  check(p.set(field::branching, 0), status::invalid_parameters);
  p.set(field::domain, 256);
  check(p.set(field::branching, 256), status::ok);
  p.set(field::domain, 257);
  check(p.set(field::branching, 257), status::invalid_parameters);  // B <= 256
  p = tree;
  check(p.set(field::domain, 12), status::invalid_parameters);
  check(p.set(field::domain, 65536), status::ok);
  check(p.set(field::domain, 262144), status::invalid_parameters);  // 4^9 > 2^16
  // The inner OLH block's own rules: g >= 2, the kept bucket more likely than any other.
  p = tree;
  check(p.set(field::hash_range, 1), status::invalid_parameters);
  p = tree;
  const uint64_t g = p.get(field::hash_range);
  const uint64_t boundary = (uint64_t{1} << 32) / g;  // T (g - 1) > 2^32 - T  <=>  T > 2^32 / g
  if ((uint64_t{1} << 32) % g == 0) {
    check(p.set(field::threshold_keep, boundary), status::invalid_parameters);
  }
  check(p.set(field::threshold_keep, boundary + 1), status::ok);
  p = tree;
  p.present &= ~ldp::wire::field_bit(field::branching);
  check(p, status::invalid_parameters);

  const ldp::wire::params haar = valid_block(mechanism::haar);  // D = 16
  p = haar;
  check(p.set(field::domain, 2), status::ok);
  check(p.set(field::domain, 65536), status::ok);
  check(p.set(field::domain, 12), status::invalid_parameters);
  check(p.set(field::domain, 131072), status::invalid_parameters);
  p = haar;
  check(p.set(field::branching, 2), status::invalid_parameters);  // haar has no fan-out field
  p = haar;
  p.set_signed(field::clip_lo, 0);
  check(p.set_signed(field::clip_hi, 15), status::invalid_parameters);
  check(p.set_signed(field::clip_hi, 16), status::ok);
}

TEST_CASE("the builders refuse arguments out of range") {
  for (const double eps : {0.0, -1.0, 40.5, std::nan("")}) {
    CHECK(ldp::wire::make_square_wave(eps, 16, 0, 1, 16).code == status::invalid_argument);
    CHECK(ldp::wire::make_hierarchical(eps, 16, 4, 0, 1, 16).code == status::invalid_argument);
    CHECK(ldp::wire::make_haar(eps, 16, 0, 1, 16).code == status::invalid_argument);
  }
  CHECK(ldp::wire::make_square_wave(1.0, 1, 0, 1, 16).code == status::invalid_argument);
  CHECK(ldp::wire::make_square_wave(1.0, 65537, 0, 1, 16).code == status::invalid_argument);
  CHECK(ldp::wire::make_square_wave(1.0, 16, 0, 1, 16, 17).code == status::invalid_argument);
  CHECK(ldp::wire::make_square_wave(1.0, 16, 0, 1, 16, 16).code == status::ok);
  CHECK(ldp::wire::make_square_wave(1.0, 16, 1, 1, 16).code == status::invalid_argument);  // lo = hi
  CHECK(ldp::wire::make_square_wave(1.0, 16, 0, 1, 3).code == status::invalid_argument);   // 8 grid steps
  CHECK(ldp::wire::make_square_wave(1.0, 16, 0, 1, 4).code == status::ok);                 // 16
  CHECK(ldp::wire::make_hierarchical(1.0, 16, 3, 0, 1, 16).code == status::invalid_argument);
  CHECK(ldp::wire::make_hierarchical(1.0, 1, 2, 0, 1, 16).code == status::invalid_argument);
  CHECK(ldp::wire::make_hierarchical(1.0, 16, 4, 0, 1, 3).code == status::invalid_argument);
  CHECK(ldp::wire::make_haar(1.0, 12, 0, 1, 16).code == status::invalid_argument);
  CHECK(ldp::wire::make_haar(1.0, 131072, 0, 1, 20).code == status::invalid_argument);
  CHECK(ldp::wire::make_haar(1.0, 65536, 0, 1, 16).code == status::ok);
}
