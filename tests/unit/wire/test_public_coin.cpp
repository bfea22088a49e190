// The public-coin learners' blocks, thresholds and levels (docs/mechanisms.md H.2, H.3): the corrected
// level of Alg 3 by enumeration (so a block that advertises its inner level fails), the exact law of
// the bit, the public randomness, and GenProt's bound against exact worst cases.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "enumerator.h"
#include "ldp/device/public_coin.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/random/public_coin.h"
#include "ldp/wire/epsilon.h"
#include "ldp/wire/public_coin_params.h"
#include "public_coin.h"

namespace {

using namespace ldp;
using wire::field;

wire::public_coin_shape small_shape(unsigned frac_bits, uint32_t strings = 0) {
  wire::public_coin_shape s;
  s.dim = 1;
  s.grid = 3;
  s.users = 100;
  s.frac_bits = frac_bits;
  s.strings = strings;
  for (std::size_t i = 0; i < wire::seed_size; ++i) s.seed[i] = static_cast<unsigned char>(3 * i + 1);
  return s;
}

// A 1bit block whose scale is V / inner: the thresholds 1/2 e^{inner a / V}.
wire::params block_with_inner(double inner, unsigned frac_bits) {
  wire::params p = wire::make_bernstein_1bit(1.0, small_shape(frac_bits)).block;
  const double t = std::ldexp(1.0, static_cast<int>(frac_bits)) / inner;
  p.set(field::scale_num, static_cast<uint64_t>(std::llround(t * 65536))).set(field::scale_den, 65536);
  return p;
}

// P(b = 1 | v, y) from the thresholds.
double keep(const wire::params& p, int64_t v, int64_t y) {
  return std::ldexp(static_cast<double>(wire::coin_threshold(p, wire::coin_margin(y, v, wire::coin_grid(p)))), -32);
}

// The level by brute force over every pair v, v' and every sample y in [-2, V + 2], both bits:
// independent of enumerate_levels' interval argument.
double brute_force_level(const wire::params& p) {
  const int64_t grid = wire::coin_grid(p);
  double worst = 0;
  for (int64_t y = -2; y <= grid + 2; ++y) {
    for (int64_t v = 0; v <= grid; ++v) {
      for (int64_t w = 0; w <= grid; ++w) {
        const double a = keep(p, v, y), b = keep(p, w, y);
        worst = std::max({worst, std::log(a / b), std::log((1 - a) / (1 - b))});
      }
    }
  }
  return worst;
}

// The exact discrete Laplace pmf of the block's public samples, P(Y = y).
double dlap_pmf(const wire::params& p, int64_t y) {
  const double t = static_cast<double>(p.get(field::scale_num)) / static_cast<double>(p.get(field::scale_den));
  const double alpha = std::exp(-1 / t);
  return (1 - alpha) / (1 + alpha) * std::pow(alpha, static_cast<double>(std::llabs(y)));
}

}  // namespace

TEST_CASE("the inner level of one bit: ln(2 - e^-eps), whose bit-0 ratio is exactly eps (H.2)") {
  CHECK(wire::one_bit_inner_epsilon(1.0) == doctest::Approx(0.4900).epsilon(1e-4));
  CHECK(wire::one_bit_inner_epsilon(0.5) == doctest::Approx(0.3318).epsilon(1e-4));
  CHECK(wire::one_bit_inner_epsilon(0.1) == doctest::Approx(0.0909).epsilon(1e-3));
  for (double eps : {0.1, 0.5, 1.0, 4.0}) {
    const double inner = wire::one_bit_inner_epsilon(eps);
    CHECK(-std::log(2 - std::exp(inner)) == doctest::Approx(eps).epsilon(1e-12));
  }
}

TEST_CASE("a block that advertises its inner level is caught: the enumerated level is -ln(2 - e^eps_in)") {
  // The paper's Theorem 23 claims eps-LDP with thresholds 1/2 e^{eps a}; the bit 0 at y >= V has the
  // ratio (1/2) / (1 - e^eps / 2). At eps_in = 0.5 that is 1.046, not 0.5.
  for (double inner : {0.25, 0.5}) {
    const wire::params p = block_with_inner(inner, 8);
    const double level = wire::implemented_epsilon(p);
    CAPTURE(inner);
    CHECK(level == doctest::Approx(-std::log(2 - std::exp(inner))).epsilon(1e-6));
    CHECK(level > 1.3 * inner);
  }
  CHECK(wire::implemented_epsilon(block_with_inner(0.5, 8)) == doctest::Approx(1.046).epsilon(1e-3));
}

TEST_CASE("the enumerated level equals a brute force over every v, v', y and both bits") {
  for (double inner : {0.1, 0.49, 0.69}) {
    const wire::params p = block_with_inner(inner, 3);
    CAPTURE(inner);
    CHECK(wire::implemented_epsilon(p) == doctest::Approx(brute_force_level(p)).epsilon(1e-12));
  }
}

TEST_CASE("make_bernstein_1bit: epsilon_impl <= epsilon, the next finer scale above it, a valid block") {
  for (unsigned f : {1u, 8u, 12u}) {
    for (double eps : {0.1, 1.0, 3.0}) {
      const wire::derived_params d = wire::make_bernstein_1bit(eps, small_shape(f));
      CAPTURE(f);
      CAPTURE(eps);
      REQUIRE(d.code == status::ok);
      CHECK(wire::validate(d.block) == status::ok);
      CHECK(d.epsilon_impl <= eps);
      CHECK(d.epsilon_impl >= eps - 1e-3);
      wire::params finer = d.block;  // tight (D.1): one unit less of scale_num breaks the level
      finer.set(field::scale_num, d.block.get(field::scale_num) - 1);
      CHECK(wire::implemented_epsilon(finer) > eps / wire::epsilon_margin);
      const wire::coin_levels c = wire::enumerate_levels(d.block);
      CHECK(c.bit_zero > c.bit_one);  // the bit 0 decides, as H.2 says
    }
  }
  wire::public_coin_shape bad = small_shape(8);
  bad.users = 3;  // fewer users than the 4 groups
  CHECK(wire::make_bernstein_1bit(1.0, bad).code == status::invalid_argument);
  bad = small_shape(17);
  CHECK(wire::make_bernstein_1bit(1.0, bad).code == status::invalid_argument);
}

TEST_CASE("the device's bit by exact enumeration: P(b = 1 | y) of the shipped code, ratios within epsilon_impl") {
  const wire::params p = wire::make_bernstein_1bit(1.0, small_shape(2)).block;
  const double level = wire::implemented_epsilon(p);
  const int64_t grid = wire::coin_grid(p);
  double worst = 0;
  for (int64_t y = -1; y <= grid + 1; ++y) {
    std::vector<double> one;
    for (int64_t v = 0; v <= grid; ++v) {
      test::enumerating_coins coins;
      const auto pmf = coins.pmf([&](test::enumerating_coins& c) {
        return device::one_bit_report(p, v, y, c) ? std::string("1") : std::string("0");
      });
      one.push_back(static_cast<double>(pmf.at("1")));
      CHECK(one.back() == doctest::Approx(keep(p, v, y)).epsilon(1e-15));
    }
    for (double a : one) {
      for (double b : one) worst = std::max({worst, std::log(a / b), std::log((1 - a) / (1 - b))});
    }
  }
  CHECK(worst <= level * (1 + 1e-12));
  CHECK(worst >= level * (1 - 1e-12));  // attained: b = 0 at y >= V, v = 0 against v = V
}

TEST_CASE("P(b = 1 | v) = 1/2, E[2 b y] = v, Var(2 b y) = v^2 + 2 sigma^2 by exact sums over y (C.4)") {
  const wire::params p = wire::make_bernstein_1bit(1.0, small_shape(4)).block;
  const int64_t grid = wire::coin_grid(p);
  const double t = static_cast<double>(p.get(field::scale_num)) / static_cast<double>(p.get(field::scale_den));
  const double alpha = std::exp(-1 / t), sigma2 = 2 * alpha / ((1 - alpha) * (1 - alpha));
  const int64_t reach = static_cast<int64_t>(60 * t);  // tail mass beyond: e^-60
  for (int64_t v : {int64_t{0}, grid / 2, grid}) {
    double ones = 0, mean = 0, square = 0;
    for (int64_t y = -reach; y <= reach; ++y) {
      const double w = dlap_pmf(p, y) * keep(p, v, y);
      ones += w;
      mean += 2 * w * static_cast<double>(y);
      square += 4 * w * static_cast<double>(y) * static_cast<double>(y);
    }
    CAPTURE(v);
    // Each threshold is within 1/2 of its ideal 2^32 value: P(b = 1) within 2^-33 of 1/2.
    CHECK(std::fabs(ones - 0.5) <= std::ldexp(1.0, -33) + 1e-12);
    CHECK(mean == doctest::Approx(static_cast<double>(v)).epsilon(1e-6).scale(1));
    const double variance = square - mean * mean;
    CHECK(variance == doctest::Approx(static_cast<double>(v * v) + 2 * sigma2).epsilon(1e-6));
  }
  // In loss units at eps_in = 0.49 and v = 1: 1 + 4 / 0.49^2 = 17.66 (C.4), less the grid's 1 / (3 V^2).
  const double inner = wire::one_bit_inner_epsilon(1.0);
  const double g = static_cast<double>(grid);
  CHECK((g * g + 2 * sigma2) / (g * g) == doctest::Approx(1 + 4 / (inner * inner)).epsilon(2e-3));
  CHECK(1 + 4 / (inner * inner) == doctest::Approx(17.66).epsilon(1e-3));
}

TEST_CASE("public samples and groups are functions of (seed, i): reproducible, equal group sizes") {
  const wire::params p = wire::make_bernstein_1bit(1.0, small_shape(8)).block;
  const kernels::table& k = kernels::native();
  const uint64_t num = p.get(field::scale_num), den = p.get(field::scale_den);
  std::set<int64_t> distinct;
  for (uint32_t i = 0; i < 200; ++i) {
    const int64_t y = random::public_sample(k, p.hash_seed, num, den, i, 0);
    CHECK(y == random::public_sample(k, p.hash_seed, num, den, i, 0));
    distinct.insert(y);
  }
  CHECK(distinct.size() > 150);  // t = V / 0.49 = 522 grid units: repeats are rare
  CHECK(random::public_sample(k, p.hash_seed, num, den, 7, 0) != random::public_sample(k, p.hash_seed, num, den, 7, 1));
  for (uint32_t n : {1u, 2u, 5u, 1000u, 4097u}) {
    const random::public_partition pi(k, p.hash_seed, n);
    std::vector<uint32_t> hits(n, 0), groups(7, 0);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t at = pi.position(i);
      REQUIRE(at < n);
      ++hits[at];
      ++groups[pi.group(i, 7)];
      CHECK(at == random::public_partition(k, p.hash_seed, n).position(i));
    }
    CHECK(std::count(hits.begin(), hits.end(), 1u) == static_cast<std::ptrdiff_t>(n));  // a bijection
    for (uint32_t c : groups) CHECK((c == n / 7 || c == n / 7 + 1));
  }
  // Another seed, another permutation.
  unsigned char other[wire::seed_size] = {9};
  const random::public_partition a(k, p.hash_seed, 1000), b(k, other, 1000);
  int same = 0;
  for (uint32_t i = 0; i < 1000; ++i) same += a.position(i) == b.position(i) ? 1 : 0;
  CHECK(same < 20);
}

TEST_CASE("GenProt: the shipped choice's exact pmf matches the formula; the bound covers worst cases (H.3)") {
  const wire::params p = wire::make_bernstein_genprot(2.0, small_shape(2, 3)).block;
  REQUIRE(wire::validate(p) == status::ok);
  const int64_t grid = wire::coin_grid(p);
  const std::vector<int64_t> samples{grid, -1, grid / 2};
  for (int64_t v : {int64_t{0}, grid}) {
    test::enumerating_coins coins;
    const auto pmf = coins.pmf([&](test::enumerating_coins& c) {
      return std::to_string(device::genprot_report(
          p, v, [&](uint32_t t) { return samples[t]; }, c));
    });
    std::vector<double> q;
    for (int64_t y : samples) q.push_back(keep(p, v, y));
    for (std::size_t s = 0; s < samples.size(); ++s) {
      CHECK(static_cast<double>(pmf.at(std::to_string(s))) == doctest::Approx(test::genprot_choice_probability(q, s)));
    }
  }
  // The worst configuration of H.3 (sample s at y >= V, the others at y <= 0, v = V against v = 0),
  // for several T: its exact ratio stays below the bound, and near it for large T.
  for (uint32_t strings : {2u, 4u, 16u, 64u}) {
    const wire::derived_params d = wire::make_bernstein_genprot(2.0, small_shape(8, strings));
    REQUIRE(d.code == status::ok);
    const wire::params& b = d.block;
    const int64_t v = wire::coin_grid(b);
    std::vector<double> high(strings), flat(strings);
    for (uint32_t t = 0; t < strings; ++t) {
      high[t] = keep(b, v, t == 0 ? v : -1);
      flat[t] = keep(b, 0, t == 0 ? v : -1);
    }
    const double ratio =
        std::log(test::genprot_choice_probability(high, 0) / test::genprot_choice_probability(flat, 0));
    CAPTURE(strings);
    CHECK(ratio <= d.epsilon_impl);
    CHECK(d.epsilon_impl <= 2.0);
    if (strings == 64) CHECK(ratio >= d.epsilon_impl - 0.1);
  }
  // The bound's floor: T = 2 cannot reach epsilon 1 (ln 3 > 1).
  CHECK(wire::make_bernstein_genprot(1.0, small_shape(8, 2)).code == status::invalid_argument);
}
