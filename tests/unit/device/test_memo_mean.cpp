// Memoized duchi (docs/mechanisms.md E.2, Ding, Kulkarni, Yekhanin 2017): exact privacy of one report
// (epsilon_1) and of many reports of one device (epsilon_inf) by enumeration of the shipped code's
// coins (D.2 (a)), alpha-point rounding exactly unbiased, the permanent bit permanent, the same
// bytes on every kernel table, and the block and argument errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "device_context.h"
#include "enumerator.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "memo_enumeration.h"
#include "privacy_ratio.h"
#include "tables.h"

using ldp::status;
using ldp::wire::field;

namespace {

const unsigned char secret[ldp::device::device_secret_size] = {0x17, 0x2a, 0x33};

// [0, 1] with 3 fraction bits: Q = 8, 9 inputs.
ldp::wire::params small_block(double eps, uint32_t grid, double flip) {
  const auto d = ldp::wire::make_memoized_duchi(0, 1, 3, eps, grid, flip);
  REQUIRE(d.code == status::ok);
  return d.block;
}

// ln(T_hi / T_lo) from the block's integers: the level the permanent bits allow (E.2).
long double permanent_ratio(const ldp::wire::params& p) {
  return static_cast<long double>(p.get(field::threshold_keep)) /
         static_cast<long double>(p.get(field::threshold_other));
}

// max over inputs x, x' of the grid [lo, hi] and outputs z of P(z | x) / P(z | x') for `reports`
// reports of one device: the permanent draws are shared, the flips fresh.
long double max_ratio(const ldp::wire::params& p, int reports) {
  const ldp::wire::value_range range = ldp::wire::range_of(p);
  const auto inputs = static_cast<uint32_t>(ldp::wire::range_width(p) + 1);
  const auto r = ldp::test::max_ratio(inputs, 0, [&](uint32_t x, ldp::test::enumerating_coins& c) {
    ldp::test::enumerating_permanent permanent(c);
    std::string key;
    for (int i = 0; i < reports; ++i) {
      key += std::to_string(ldp::device::memoized_duchi_bit(p, range.lo + x, permanent, c));
    }
    return key;
  });
  CHECK_FALSE(r.infinite);
  return r.max_ratio;
}

}  // namespace

TEST_CASE("memoized duchi: one report is epsilon_1-LDP, tightly, and epsilon_1 < epsilon_inf") {
  for (double eps : {0.5, 1.0, 3.0}) {
    for (uint32_t grid : {1u, 2u, 4u, 8u}) {
      for (double flip : {0.0, 0.05, 0.25}) {
        CAPTURE(eps);
        CAPTURE(grid);
        CAPTURE(flip);
        const auto p = small_block(eps, grid, flip);
        const double eps1 = ldp::wire::implemented_epsilon(p);
        const long double worst = max_ratio(p, 1);
        // Privacy and tightness: the enumerated ratio is e^epsilon_1 up to the double rounding of
        // the level's two logarithms.
        CHECK(worst <= std::exp(static_cast<long double>(eps1)) * (1 + 1e-12L));
        CHECK(worst >= std::exp(static_cast<long double>(eps1)) * (1 - 1e-12L));
        CHECK(eps1 <= eps);
        if (flip == 0) {
          CHECK(worst == doctest::Approx(static_cast<double>(permanent_ratio(p))).epsilon(1e-15));
        } else {
          CHECK(static_cast<long double>(eps1) < std::log(permanent_ratio(p)) - 1e-3L);
        }
      }
    }
  }
}

TEST_CASE("memoized duchi: any number of reports of one value stays within epsilon_inf = ln(T_hi / T_lo)") {
  for (double flip : {0.0, 0.1}) {
    for (uint32_t grid : {1u, 2u, 8u}) {
      CAPTURE(flip);
      CAPTURE(grid);
      const auto p = small_block(1.0, grid, flip);
      const long double bound = permanent_ratio(p);
      // The wire's longitudinal level is this ratio's logarithm, whatever the flip.
      CHECK(std::exp(static_cast<long double>(ldp::wire::longitudinal_epsilon(p))) ==
            doctest::Approx(static_cast<double>(bound)).epsilon(1e-14));
      long double previous = 0;
      for (int reports = 1; reports <= 6; ++reports) {
        CAPTURE(reports);
        const long double worst = max_ratio(p, reports);
        CHECK(worst <= bound * (1 + 1e-12L));
        CHECK(worst >= previous * (1 - 1e-12L));  // more reports reveal more of the permanent bit
        previous = worst;
      }
      // Without the flip the permanent bit is the report: the bound is attained at once. With it,
      // six reports approach it from below.
      if (flip == 0) CHECK(previous == doctest::Approx(static_cast<double>(bound)).epsilon(1e-15));
      if (flip != 0) CHECK(previous > std::pow(bound, 0.5L));
    }
  }
}

TEST_CASE("the enumeration catches a memoized duchi whose bits are redrawn per report") {
  // A device that forgets its permanent bits (fresh coins for every report) composes: six reports
  // pass e^epsilon_inf by far.
  const auto p = small_block(1.0, 8, 0.0);
  const ldp::wire::value_range r = ldp::wire::range_of(p);
  const auto pmf_of = [&](int64_t x) {
    ldp::test::enumerating_coins coins;
    return coins.pmf([&](ldp::test::enumerating_coins& c) {
      std::string key;
      for (int i = 0; i < 6; ++i) {
        ldp::test::enumerating_permanent fresh(c);
        key += std::to_string(ldp::device::memoized_duchi_bit(p, x, fresh, c));
      }
      return key;
    });
  };
  const auto low = pmf_of(r.lo), high = pmf_of(r.hi);
  CHECK(high.at("111111") / low.at("111111") > std::pow(permanent_ratio(p), 5.9L));
}

TEST_CASE("alpha-point rounding is exactly unbiased: the average over all alpha is the value") {
  // [-3, 5] with 2 fraction bits: Q = 32 grid units; every k dividing Q; inputs beyond the range
  // are clamped first.
  for (uint32_t grid : {1u, 2u, 4u, 8u, 16u, 32u}) {
    const auto p = ldp::wire::make_memoized_duchi(-3, 5, 2, 1.0, grid, 0.0).block;
    REQUIRE(ldp::wire::validate(p) == status::ok);
    const uint64_t s = ldp::wire::memo_grid_step(p);
    CHECK(s * grid == 32);
    for (int64_t x = -20; x <= 28; ++x) {
      CAPTURE(grid);
      CAPTURE(x);
      int64_t total = 0, lowest = INT64_MAX, highest = INT64_MIN;
      for (uint64_t alpha = 0; alpha < s; ++alpha) {
        const uint32_t j = ldp::wire::memo_grid_index(p, x, alpha);
        REQUIRE(j <= grid);
        const int64_t point = ldp::wire::memo_grid_point(p, j);
        total += point;
        lowest = std::min(lowest, point);
        highest = std::max(highest, point);
      }
      CHECK(total == static_cast<int64_t>(s) * ldp::wire::clamp_to_range(p, x));
      // Only the two neighbouring grid points are ever used.
      CHECK(highest - lowest <= static_cast<int64_t>(s));
    }
  }
}

TEST_CASE("memoized duchi: the permanent bit is permanent, the flip is fresh, bytes agree on every table") {
  const auto p = ldp::wire::make_memoized_duchi(0, 100, 8, 1.0, 100, 0.0).block;
  const auto flipping = ldp::wire::make_memoized_duchi(0, 100, 8, 1.0, 100, 0.25).block;
  const ldp::device::memo_key key{secret, 7};
  std::vector<unsigned char> reference;
  for (const auto* t : ldp::test::runnable_tables()) {
    CAPTURE(t->name);
    auto rng = ldp::test::seeded_drbg("memoized duchi bytes", *t);
    std::vector<unsigned char> bytes;
    for (const auto& block : {p, flipping}) {
      ldp::test::owned_context<ldp::device::mean_context> c(block);
      REQUIRE(c.code == status::ok);
      for (int i = 0; i < 200; ++i) {
        unsigned char out[ldp::wire::report_header_size + 1];
        std::size_t size = 0;
        REQUIRE(c->randomize_memoized((i % 20) * 1000, key, rng, out, ldp::device::framing::report, &size) ==
                status::ok);
        bytes.insert(bytes.end(), out, out + size);
      }
    }
    if (reference.empty()) reference = bytes;
    CHECK(bytes == reference);
  }
  // Without a flip, a value's reports are one bit repeated, whatever the generator's state.
  ldp::test::owned_context<ldp::device::mean_context> c(p);
  auto rng = ldp::test::seeded_drbg("memoized duchi permanence");
  for (int64_t x : {int64_t{0}, int64_t{1234}, int64_t{25600}}) {
    std::set<unsigned char> seen;
    for (int i = 0; i < 50; ++i) {
      unsigned char out[1];
      std::size_t size = 0;
      REQUIRE(c->randomize_memoized(x, key, rng, out, ldp::device::framing::payload, &size) == status::ok);
      seen.insert(out[0]);
    }
    CHECK(seen.size() == 1);
  }
}

TEST_CASE("memoized duchi: blocks, contexts and keys that do not fit are refused") {
  // k must divide Q = 8 and lie in [1, 2^24]; the flip must stay below 1/2; the two fields travel
  // together.
  CHECK(ldp::wire::make_memoized_duchi(0, 1, 3, 1.0, 3, 0.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_memoized_duchi(0, 1, 3, 1.0, 0, 0.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_memoized_duchi(0, 1, 3, 1.0, 16, 0.0).code == status::invalid_argument);
  CHECK(ldp::wire::make_memoized_duchi(0, 1, 3, 1.0, 8, 0.5).code == status::invalid_argument);
  CHECK(ldp::wire::make_memoized_duchi(0, 1, 3, 1.0, 8, -0.1).code == status::invalid_argument);
  auto p = small_block(1.0, 8, 0.1);
  p.set(field::output_flip, (uint64_t{1} << 31) - 1);
  CHECK(ldp::wire::validate(p) == status::ok);
  p.set(field::output_flip, uint64_t{1} << 31);
  CHECK(ldp::wire::validate(p) == status::invalid_parameters);
  auto lone = small_block(1.0, 8, 0.1);
  lone.present &= ~ldp::wire::field_bit(field::output_flip);
  CHECK(ldp::wire::validate(lone) == status::invalid_parameters);
  // Fresh coins per report have no longitudinal bound.
  CHECK(std::isinf(ldp::wire::longitudinal_epsilon(ldp::wire::make_duchi(0, 1, 3, 1.0).block)));
  CHECK(std::isinf(ldp::wire::longitudinal_epsilon(ldp::wire::make_laplace(0, 1, 3, 1.0).block)));
  auto other = ldp::wire::make_laplace(0, 1, 3, 1.0).block;
  other.set(field::memo_grid, 8).set(field::output_flip, 0);
  CHECK(ldp::wire::validate(other) == status::invalid_parameters);

  // A memoized block needs the secret; a plain one has no permanent responses.
  auto rng = ldp::test::seeded_drbg("memoized duchi refusals");
  unsigned char out[ldp::wire::report_header_size + 1];
  std::size_t size = 1;
  ldp::test::owned_context<ldp::device::mean_context> memo(small_block(1.0, 8, 0.1));
  REQUIRE(memo.code == status::ok);
  CHECK(memo->randomize(3, rng, out, ldp::device::framing::report, &size) == status::invalid_argument);
  CHECK(size == 0);
  CHECK(memo->randomize_memoized(3, ldp::device::memo_key{}, rng, out, ldp::device::framing::report, &size) ==
        status::invalid_argument);
  ldp::test::owned_context<ldp::device::mean_context> plain(ldp::wire::make_duchi(0, 1, 3, 1.0).block);
  REQUIRE(plain.code == status::ok);
  CHECK(plain->randomize_memoized(3, ldp::device::memo_key{secret, 1}, rng, out, ldp::device::framing::report, &size) ==
        status::invalid_argument);
}

TEST_CASE("output perturbation hides whether a small change of value changed the bit (E.2's number)") {
  // [0, 1] with 6 fraction bits (Q = 64), k = 8 (s = 8 units): a device moves from x = 3 to 4
  // units, 1/8 of a grid step. Alpha-point rounding moves it to another grid point for exactly one
  // alpha in 8 (DKY: a change crosses a grid point with probability |change| / s). Two reports, one
  // per day; an observer who wants to know whether the value moved compares the two bits.
  const auto pair_pmf = [](const ldp::wire::params& p, int64_t first, int64_t second) {
    ldp::test::enumerating_coins coins;
    return coins.pmf([&](ldp::test::enumerating_coins& c) {
      ldp::test::enumerating_permanent permanent(c);
      return std::to_string(ldp::device::memoized_duchi_bit(p, first, permanent, c)) +
             std::to_string(ldp::device::memoized_duchi_bit(p, second, permanent, c));
    });
  };
  const auto p0 = ldp::wire::make_memoized_duchi(0, 1, 6, 1.0, 8, 0.0).block;
  uint32_t crossing = 0;
  for (uint64_t alpha = 0; alpha < 8; ++alpha) {
    crossing += ldp::wire::memo_grid_index(p0, 3, alpha) != ldp::wire::memo_grid_index(p0, 4, alpha) ? 1u : 0u;
  }
  CHECK(crossing == 1);
  for (double flip : {0.0, 0.1, 0.25}) {
    CAPTURE(flip);
    const auto p = ldp::wire::make_memoized_duchi(0, 1, 6, 1.0, 8, flip).block;
    const auto moved = pair_pmf(p, 3, 4), stayed = pair_pmf(p, 3, 3);
    // The observer's best likelihood ratio for "moved" against "stayed", over the four outcomes.
    long double worst = 0;
    bool certain = false;
    for (const auto& [z, q] : moved) {
      const auto it = stayed.find(z);
      if (it == stayed.end() || it->second == 0) {
        certain = q > 0;
        continue;
      }
      worst = std::max(worst, q / it->second);
    }
    long double differ_moved = 0;
    for (const char* z : {"01", "10"}) differ_moved += moved.count(z) != 0 ? moved.at(z) : 0;
    // The numbers docs/mechanisms.md E.2 quotes.
    CHECK(static_cast<double>(differ_moved) == doctest::Approx(flip == 0     ? 0.0524897
                                                               : flip == 0.1 ? 0.213593
                                                                             : 0.388122)
                                                   .epsilon(1e-5));
    if (flip == 0) {
      CHECK(certain);  // without the flip a changed bit proves the value moved
    } else {
      CHECK_FALSE(certain);
      const long double phi = static_cast<long double>(p.get(field::output_flip)) / 4294967296.0L;
      // "01" has phi (1 - phi) when the device stayed; when it moved, the permanent pair differs
      // with c <= 1/8 (the one alpha in 8 that crosses), and then "01" has at most (1 - phi)^2:
      // the ratio is at most 1 - c + c (1 - phi) / phi <= 1 + (1 - 2 phi) / (8 phi).
      CHECK(worst <= 1 + (1 - 2 * phi) / (8 * phi) + 1e-12L);
      CHECK(static_cast<double>(worst) == doctest::Approx(flip == 0.1 ? 1.218722 : 1.044621).epsilon(1e-5));
    }
  }
}
