// Exact privacy of the device randomizers (docs/mechanisms.md D.2 (a), A.10 items 1-2): the output pmf
// of the shipped code, enumerated with exact weights, has max_z P(z|x)/P(z|x') <= e^{epsilon_impl}
// for every pair of inputs, with equality attained (no wasted noise), and epsilon_impl <= epsilon.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "device_context.h"
#include "enumerator.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "privacy_ratio.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

const unsigned char sketch_seed[32] = {1, 2, 3};

ldp::wire::derived_params small_block(mechanism m, double eps, uint32_t d) {
  return ldp::wire::make_frequency_oracle(m, eps, d, 2, 8, sketch_seed);
}

using ldp::test::max_ratio;

const std::vector<mechanism> oracles = ldp::test::mechanisms_of(ldp::wire::mechanism_family::frequency_oracle);

}  // namespace

TEST_CASE("exact enumeration: every oracle is epsilon_impl-LDP, tightly") {
  for (mechanism m : oracles) {
    for (double eps : {0.5, 1.0, 3.0}) {
      for (uint32_t d : {2u, 5u, 9u}) {
        const std::string oracle_name = ldp::wire::mechanism_name(m);
        CAPTURE(oracle_name);
        CAPTURE(eps);
        CAPTURE(d);
        const auto derived = small_block(m, eps, d);
        REQUIRE(derived.code == ldp::status::ok);
        const ldp::wire::params p = derived.block;
        CHECK(derived.epsilon_impl <= eps);
        ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
        REQUIRE(oracle.code == ldp::status::ok);
        // Local hashing is audited given its revealed seed, for a few seeds.
        const bool hashed = m == mechanism::blh || m == mechanism::olh;
        long double best = 0;
        for (uint64_t seed : {uint64_t{1}, uint64_t{0x9e3779b97f4a7c15u}, uint64_t{42}}) {
          const auto r = max_ratio(d, seed, [&](uint32_t x, ldp::test::enumerating_coins& c) {
            ldp::wire::report rep;
            REQUIRE(oracle->fields(x, c, &rep) == ldp::status::ok);
            return ldp::test::describe(p, rep);
          });
          CHECK_FALSE(r.infinite);
          // Privacy: an exact bound up to long double rounding of the path weights.
          CHECK(r.max_ratio <= std::exp(static_cast<long double>(derived.epsilon_impl)) * (1 + 1e-12L));
          if (r.max_ratio > best) best = r.max_ratio;
          if (!hashed) break;  // no seed involved
        }
        // Tightness: the bound is attained (for hashing: for some seed where two items differ).
        // Sketches with d <= m can hash all items to one column for a seed; m = 8 and 2 rows make
        // that rare, and the loop over rows covers it.
        CHECK(best >= std::exp(static_cast<long double>(derived.epsilon_impl)) * (1 - 1e-9L));
      }
    }
  }
}

TEST_CASE("block HR: the exact pmf of every block size is the A.5 one, and epsilon_impl-LDP tightly") {
  // P(y | v) = p-hat / (K/2) on C_v and (1 - p-hat) / ((2B - 1) K/2) on each of the other B K - K/2
  // outputs, enumerated from the device code for K = 2 ... 16 (B = d ... 1 blocks).
  for (double eps : {0.5, 2.0, 5.0}) {
    for (uint32_t d : {5u, 9u}) {
      for (uint32_t k : {2u, 4u, 8u, 16u}) {
        CAPTURE(eps);
        CAPTURE(d);
        CAPTURE(k);
        const auto derived = ldp::wire::make_hr(eps, d, k);
        REQUIRE(derived.code == ldp::status::ok);
        const ldp::wire::params p = derived.block;
        CHECK(derived.epsilon_impl <= eps);
        const uint64_t blocks = ldp::wire::hr_blocks(p), outputs = blocks * k;
        REQUIRE(blocks == (d + k - 2) / (k - 1));
        ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
        REQUIRE(oracle.code == ldp::status::ok);
        const long double keep = static_cast<long double>(p.get(field::threshold_keep)) / 4294967296.0L;
        const auto half = static_cast<long double>(k / 2), others = static_cast<long double>(2 * blocks - 1);
        const long double in = keep / half, out = (1 - keep) / (others * half);
        const auto randomize = [&](uint32_t x, ldp::test::enumerating_coins& c) {
          ldp::wire::report rep;
          REQUIRE(oracle->fields(x, c, &rep) == ldp::status::ok);
          return std::to_string(rep.index);
        };
        for (uint32_t v = 0; v < d; ++v) {
          ldp::test::enumerating_coins coins(0);
          const auto pmf = coins.pmf([&](ldp::test::enumerating_coins& c) { return randomize(v, c); });
          CHECK(pmf.size() == outputs);
          for (const auto& [y, prob] : pmf) {
            const bool supports = ldp::wire::hr_supports(p, std::stoull(y), v);
            CHECK(prob == doctest::Approx(static_cast<double>(supports ? in : out)).epsilon(1e-12));
          }
        }
        const auto r = max_ratio(d, 0, randomize);
        CHECK_FALSE(r.infinite);
        CHECK(r.max_ratio <= std::exp(static_cast<long double>(derived.epsilon_impl)) * (1 + 1e-12L));
        CHECK(r.max_ratio >= std::exp(static_cast<long double>(derived.epsilon_impl)) * (1 - 1e-9L));
      }
    }
  }
}

TEST_CASE("the enumeration catches a randomizer that leaks") {
  // A broken GRR that picks the "other" value among all d values, the true one included: the
  // true value is then more likely than the thresholds claim.
  const auto derived = ldp::wire::make_grr(1.0, 5);
  const uint64_t keep = derived.block.get(field::threshold_keep);
  const auto r = max_ratio(5, 0, [&](uint32_t x, ldp::test::enumerating_coins& c) {
    const uint32_t z = c.bernoulli(keep) ? x : c.uniform_below(5);
    return std::to_string(z);
  });
  CHECK(r.max_ratio > std::exp(static_cast<long double>(derived.epsilon_impl)) * 1.01L);
  // And a SUE whose keep probability is the per-bit e^eps / (1 + e^eps): twice the epsilon.
  auto wrong = ldp::wire::make_sue(1.0, 4).block;
  const auto per_bit = ldp::wire::make_hr(1.0, 4).block.get(field::threshold_keep);  // e/(1+e)
  wrong.set(field::threshold_keep, per_bit).set(field::threshold_other, (uint64_t{1} << 32) - per_bit);
  ldp::test::owned_context<ldp::device::frequency_context> oracle(wrong);
  REQUIRE(oracle.code == ldp::status::ok);
  const auto leak = max_ratio(4, 0, [&](uint32_t x, ldp::test::enumerating_coins& c) {
    ldp::wire::report rep;
    REQUIRE(oracle->fields(x, c, &rep) == ldp::status::ok);
    return ldp::test::describe(wrong, rep);
  });
  CHECK(leak.max_ratio > std::exp(1.9L));
}

TEST_CASE("a block with thresholds out of 2^w for w != 32 is refused, not misread") {
  // The wire format allows 1 <= w <= 63, but the device's coins draw 32-bit words: read as 32-bit,
  // a keep threshold out of 2^40 would make the true value certain (no privacy at all).
  auto rng = ldp::test::seeded_drbg("threshold bits");
  for (mechanism m : {mechanism::grr, mechanism::oue, mechanism::olh, mechanism::cms}) {
    auto p = ldp::wire::make_frequency_oracle(m, 1.0, 64, 4, 64, sketch_seed).block;
    p.set(field::threshold_bits, 40);
    for (field f : {field::threshold_keep, field::threshold_other}) {
      if (p.has(f)) p.set(f, p.get(f) << 8);
    }
    ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
    CHECK(oracle.code == ldp::status::unsupported);
    // The refused context randomizes nothing.
    std::vector<unsigned char> out(ldp::wire::max_report_size(p));
    std::size_t size = 0;
    CHECK(oracle->randomize(3, rng, out, ldp::device::framing::report, &size) == ldp::status::invalid_argument);
    CHECK(size == 0);
  }
}
