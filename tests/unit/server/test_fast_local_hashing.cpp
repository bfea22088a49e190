// FLH (docs/mechanisms.md A.4): the public hash functions (exact arithmetic modulo 2^61 - 1 and
// 3-wise independence), the block rules, the k x g state (the generic state tests of
// test_frequency_state.cpp cover FLH too), and the two decodes (finite differences
// over all items, Horner's rule per candidate) against the naive reference with the shared-hash term.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "device_context.h"
#include "frequency_fixture.h"
#include "ldp/device.h"
#include "stats.h"

using namespace ldp::test::frequency;

namespace {

// h mod 2^61 - 1 by schoolbook long division of the 128-bit value (a reference for mul_mod61).
uint64_t mod61(ldp::u128 x) {
  uint64_t r = 0;
  ldp::div_rem(x, ldp::wire::flh_prime, &r);
  return r;
}

uint64_t reference_value(ldp::wire::flh_key k, uint32_t v) {
  const uint64_t v2 = mod61(ldp::mul_64x64(v, v));
  const uint64_t av2 = mod61(ldp::mul_64x64(k.a, v2)), bv = mod61(ldp::mul_64x64(k.b, v));
  return mod61(ldp::u128{0, av2} + ldp::u128{0, bv} + ldp::u128{0, k.c});
}

}  // namespace

TEST_CASE("FLH hash: Horner modulo 2^61 - 1 equals long division, and finite differences walk it") {
  auto rng = ldp::test::seeded_drbg("flh modular arithmetic");
  for (int i = 0; i < 20000; ++i) {
    const ldp::wire::flh_key k{rng.next_u64() % ldp::wire::flh_prime, rng.next_u64() % ldp::wire::flh_prime,
                               i == 0 ? ldp::wire::flh_prime - 1 : rng.next_u64() % ldp::wire::flh_prime};
    const uint32_t v = i < 4 ? 0xffffffffu - static_cast<uint32_t>(i) : rng.next_u32();
    CHECK(ldp::wire::flh_value(k, v) == reference_value(k, v));
    CHECK(ldp::wire::mul_mod61(k.a, ~uint64_t{0}) == mod61(ldp::mul_64x64(k.a, ~uint64_t{0})));
  }
  // The server's walk: h(v + 1) = h(v) + delta, delta(v + 1) = delta(v) + 2a, from h(0) = c, delta(0) = a + b.
  const ldp::wire::flh_key k = ldp::wire::flh_function(sketch_seed, 7);
  uint64_t h = k.c, delta = ldp::wire::add_mod61(k.a, k.b);
  for (uint32_t v = 0; v < 5000; ++v) {
    REQUIRE(h == ldp::wire::flh_value(k, v));
    h = ldp::wire::add_mod61(h, delta);
    delta = ldp::wire::add_mod61(delta, ldp::wire::add_mod61(k.a, k.a));
  }
  // Golden vectors: the function's coefficients and buckets are part of the wire format.
  const ldp::wire::flh_key k0 = ldp::wire::flh_function(sketch_seed, 0);
  CHECK(ldp::wire::flh_bucket(ldp::wire::flh_value(k0, 0), 4) == ldp::wire::flh_bucket(k0.c, 4));
  CHECK(ldp::wire::flh_bucket(ldp::wire::flh_prime - 1, 4) == 3);
  CHECK(ldp::wire::flh_bucket(0, 4) == 0);
}

TEST_CASE("FLH hash: pairs and triples of items collide at 1/g and 1/g^2 over the functions") {
  // Over N functions, for items (1, 2, 3) and g = 4: pair collisions are Binomial(N, 1/4) and triple
  // collisions Binomial(N, 1/16) under 3-wise independence. Two-sided z = 5.3 (1.2e-7 each, 4
  // checks: 5e-7). The same count over a linear family (a = 0, pairwise independent only: h(3) -
  // h(2) = h(2) - h(1)) is far out, which is why A.4's variance needs degree 2.
  constexpr uint32_t g = 4;
  constexpr int n = 200000;
  const auto count = [&](bool linear) {
    int pairs = 0, triples = 0;
    for (int j = 0; j < n; ++j) {
      ldp::wire::flh_key k = ldp::wire::flh_function(sketch_seed, static_cast<uint32_t>(j));
      if (linear) k.a = 0;
      const uint32_t b1 = ldp::wire::flh_bucket(ldp::wire::flh_value(k, 1), g);
      const uint32_t b2 = ldp::wire::flh_bucket(ldp::wire::flh_value(k, 2), g);
      const uint32_t b3 = ldp::wire::flh_bucket(ldp::wire::flh_value(k, 3), g);
      pairs += b1 == b2;
      triples += b1 == b2 && b2 == b3;
    }
    return std::pair<int, int>{pairs, triples};
  };
  const auto z = [&](int hits, double p) { return (hits - n * p) / std::sqrt(n * p * (1 - p)); };
  const auto [pairs, triples] = count(false);
  CHECK(std::fabs(z(pairs, 1.0 / g)) < 5.3);
  CHECK(std::fabs(z(triples, 1.0 / (g * g))) < 5.3);
  const auto [linear_pairs, linear_triples] = count(true);
  CHECK(std::fabs(z(linear_pairs, 1.0 / g)) < 5.3);
  CHECK(std::fabs(z(linear_triples, 1.0 / (g * g))) > 5.3);
}

TEST_CASE("FLH block: k g must fit the u32 index; g and k as given") {
  const auto ok = ldp::wire::make_flh(1.0, 100, 1024, sketch_seed);
  REQUIRE(ok.code == status::ok);
  CHECK(ok.block.get(field::hash_range) == ldp::wire::make_olh(1.0, 100).block.get(field::hash_range));
  CHECK(ok.block.get(field::threshold_keep) == ldp::wire::make_olh(1.0, 100).block.get(field::threshold_keep));
  CHECK(ok.epsilon_impl == ldp::wire::make_olh(1.0, 100).epsilon_impl);
  CHECK(ldp::wire::make_flh(1.0, 100, 65536, sketch_seed, 65536).code == status::ok);  // k g = 2^32
  CHECK(ldp::wire::make_flh(1.0, 100, 65536, sketch_seed, 65537).code != status::ok);  // k g > 2^32
  CHECK(ldp::wire::make_flh(1.0, 100, 0, sketch_seed).code != status::ok);             // k = 0
  CHECK(ldp::wire::make_flh(1.0, 100, 65537, sketch_seed).code != status::ok);         // k > 65536
  CHECK(ldp::wire::make_flh(1.0, 100, 16, nullptr).code != status::ok);                // no public seed
  CHECK(ldp::wire::make_frequency_oracle(mechanism::flh, 1.0, 100, 16, 0, nullptr).code != status::ok);
  // The report is the index j g + y in ceil(log256(k g)) bytes: k = 1024, g = 4: 2 bytes.
  const params p = ldp::wire::make_flh(1.0, 100, 1024, sketch_seed, 4).block;
  CHECK(ldp::wire::max_payload_size(p) == 2);
}

TEST_CASE("FLH: both decodes match the naive reference, with the shared-hash term") {
  for (uint32_t d : {10u, 200u}) {
    CAPTURE(d);
    const params p = ldp::wire::make_flh(1.0, d, 6, sketch_seed).block;
    const std::vector<bytes> reports = random_reports(p, "flh reference", 500);
    aggregator a = make(p);
    for (const bytes& b : reports) REQUIRE(a->add_report(b) == status::ok);
    const auto decoded = decode_all(p, reports);
    check_all(a->estimate_all(), reference_flh(p, decoded));
    // A candidate list shorter than d/8 takes Horner's rule; its shared-hash term covers the
    // distinct candidates only.
    if (d == 200) {
      const std::vector<uint32_t> items = {5, 5, 17, 199};
      const std::vector<estimate> some = a->estimate_items(items);
      const std::vector<expected> want = reference_flh(p, decoded, items);
      REQUIRE(some.size() == items.size());
      for (std::size_t i = 0; i < items.size(); ++i) {
        CAPTURE(i);
        CHECK(some[i].item == items[i]);
        check(some[i], want[i].count, want[i].variance);
      }
    }
  }
}

TEST_CASE("FLH: with a single item held, the shared-hash term vanishes for it and not for the others") {
  // Every user holds item 0: Var c-hat_0 has no shared-hash term (no other item has users), while
  // for v != 0 the term is about c_0^2 / (k (g - 1)) (A.4).
  const params p = ldp::wire::make_flh(2.0, 50, 8, sketch_seed).block;
  aggregator a = make(p);
  ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
  REQUIRE(oracle.code == status::ok);
  auto rng = ldp::test::seeded_drbg("flh one item");
  std::vector<unsigned char> payload(ldp::wire::max_payload_size(p));
  for (int u = 0; u < 4000; ++u) {
    std::size_t size = 0;
    REQUIRE(oracle->randomize(0, rng, payload, ldp::device::framing::payload, &size) == status::ok);
    REQUIRE(a->add_payload({payload.data(), size}) == status::ok);
  }
  const std::vector<estimate> e = a->estimate_all();
  const double g = static_cast<double>(p.get(field::hash_range)), k = 8;
  const double pk = prob(p, field::threshold_keep), q = 1 / g, n = 4000;
  const double noise0 = n * q * (1 - q) / ((pk - q) * (pk - q)) + clip(e[0].value, n) * (1 - pk - q) / (pk - q);
  const double shared_0 = e[0].variance - noise0;
  const double noise1 = n * q * (1 - q) / ((pk - q) * (pk - q)) + clip(e[1].value, n) * (1 - pk - q) / (pk - q);
  const double shared_1 = e[1].variance - noise1;
  // Item 1's term carries c_0 (c_0 - 1) = 4000 * 3999 up to the plug-in noise of the others.
  CHECK(shared_1 == doctest::Approx(n * (n - 1) / (k * (g - 1))).epsilon(0.25));
  CHECK(shared_0 < 0.1 * shared_1);
}

TEST_CASE("FLH state: k x g counts, merged by addition, refused with a wrong length or sum") {
  const params p = ldp::wire::make_flh(1.0, 30, 5, sketch_seed).block;
  const std::vector<bytes> reports = random_reports(p, "flh state", 200);
  aggregator whole = make(p), left = make(p), right = make(p);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    REQUIRE(whole->add_report(reports[i]) == status::ok);
    REQUIRE((i % 3 == 0 ? left : right)->add_report(reports[i]) == status::ok);
  }
  REQUIRE(left->merge(*right) == status::ok);
  const bytes state = whole->serialize();
  CHECK(left->serialize() == state);
  // The counts are the last k g u64 of the state; one cell short is refused.
  const uint64_t cells = p.get(field::sketch_rows) * p.get(field::hash_range);
  CHECK(state.size() > 8 * cells);
  std::unique_ptr<frequency_aggregator> back;
  REQUIRE(frequency_aggregator::deserialize(state, &back) == status::ok);
  CHECK(same_estimates(back->estimate_all(), whole->estimate_all()));
  CHECK(frequency_aggregator::deserialize(span<const unsigned char>(state.data(), state.size() - 8), &back) !=
        status::ok);
}
