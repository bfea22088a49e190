// dBitFlip (docs/mechanisms.md E.3, Ding, Kulkarni, Yekhanin 2017): the sampled buckets, exact privacy
// of the shipped code by enumeration (D.2 (a)) given the revealed seed, for s = 1 and s >= 2, the
// permanence of a device's reports, the same bytes on every kernel table, and the refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "device_context.h"
#include "enumerator.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "privacy_ratio.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;

namespace {

const unsigned char secret[ldp::device::device_secret_size] = {0xdb, 0x17};

std::vector<uint32_t> buckets_of(uint64_t seed, uint32_t k, uint32_t s) {
  std::vector<uint32_t> out(s);
  ldp::wire::dbitflip_buckets(seed, k, s, out.data());
  return out;
}

}  // namespace

TEST_CASE("dbitflip_buckets: s distinct buckets below k, increasing, a pure function of the seed") {
  for (uint32_t k : {1u, 2u, 3u, 10u, 1000u, 1u << 31}) {
    for (uint32_t s : {1u, 2u, 3u, 17u, 32u}) {
      if (s > k) continue;
      for (uint64_t seed = 0; seed < 50; ++seed) {
        const auto b = buckets_of(seed * 0x9e3779b97f4a7c15u, k, s);
        for (uint32_t i = 0; i < s; ++i) {
          CHECK(b[i] < k);
          if (i > 0) CHECK(b[i - 1] < b[i]);
        }
        CHECK(b == buckets_of(seed * 0x9e3779b97f4a7c15u, k, s));
      }
    }
  }
  // s = k samples everything.
  CHECK(buckets_of(7, 5, 5) == std::vector<uint32_t>{0, 1, 2, 3, 4});
}

TEST_CASE("dBitFlip: exact enumeration, epsilon_impl-LDP for every revealed seed, attained") {
  for (double eps : {0.5, 1.0, 3.0}) {
    for (uint32_t k : {3u, 6u}) {
      for (uint32_t s : {1u, 2u, 3u}) {
        CAPTURE(eps);
        CAPTURE(k);
        CAPTURE(s);
        const auto derived = ldp::wire::make_dbitflip(eps, k, s);
        REQUIRE(derived.code == status::ok);
        CHECK(derived.epsilon_impl <= eps);
        CHECK(derived.epsilon_impl > eps * 0.999);
        // The same level for any number of reports of one value: the bits are permanent (E.3).
        CHECK(ldp::wire::longitudinal_epsilon(derived.block) == derived.epsilon_impl);
        ldp::test::owned_context<ldp::device::frequency_context> oracle(derived.block);
        REQUIRE(oracle.code == status::ok);
        long double best = 0;
        for (uint64_t seed = 0; seed < 6; ++seed) {
          const auto r = ldp::test::max_ratio(k, seed, [&](uint32_t x, ldp::test::enumerating_coins& c) {
            ldp::wire::report rep;
            REQUIRE(oracle->fields(x, c, &rep) == status::ok);
            CHECK(rep.seed == seed);  // revealed, and the device's whatever x
            return ldp::test::describe(derived.block, rep);
          });
          CHECK_FALSE(r.infinite);
          CHECK(r.max_ratio <= std::exp(static_cast<long double>(derived.epsilon_impl)) * (1 + 1e-12L));
          best = std::max(best, r.max_ratio);
        }
        CHECK(best >= std::exp(static_cast<long double>(derived.epsilon_impl)) * (1 - 1e-9L));
      }
    }
  }
}

TEST_CASE("the enumeration catches a dBitFlip that spends epsilon on each of two bits") {
  // s = 2 with the one-bit thresholds (e^eps / (e^eps + 1)): two sampled buckets differ by 2 eps.
  auto wrong = ldp::wire::make_dbitflip(1.0, 4, 2).block;
  const auto one_bit = ldp::wire::make_dbitflip(1.0, 4, 1).block;
  wrong.set(field::threshold_keep, one_bit.get(field::threshold_keep));
  wrong.set(field::threshold_other, one_bit.get(field::threshold_other));
  ldp::test::owned_context<ldp::device::frequency_context> oracle(wrong);
  REQUIRE(oracle.code == status::ok);
  long double worst = 0;
  for (uint64_t seed = 0; seed < 6; ++seed) {
    worst = std::max(worst, ldp::test::max_ratio(4, seed, [&](uint32_t x, ldp::test::enumerating_coins& c) {
                              ldp::wire::report rep;
                              REQUIRE(oracle->fields(x, c, &rep) == status::ok);
                              return ldp::test::describe(wrong, rep);
                            }).max_ratio);
  }
  CHECK(worst > std::exp(1.9L));
  CHECK(ldp::wire::implemented_epsilon(wrong) > 1.9);  // and the wire's level says so
}

TEST_CASE("dBitFlip reports are permanent per value, the seed per device, the bytes per table") {
  const auto p = ldp::wire::make_dbitflip(1.0, 64, 4).block;
  std::vector<unsigned char> reference;
  for (const auto* t : ldp::test::runnable_tables()) {
    CAPTURE(t->name);
    auto rng = ldp::test::seeded_drbg("dbitflip bytes", *t);
    ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
    REQUIRE(oracle.code == status::ok);
    std::vector<unsigned char> bytes;
    std::set<uint64_t> seeds;
    for (uint32_t round = 0; round < 3; ++round) {
      for (uint32_t v = 0; v < 64; ++v) {
        std::vector<unsigned char> out(ldp::wire::max_report_size(p));
        std::size_t size = 0;
        REQUIRE(oracle->randomize_memoized(v, {secret, 5}, rng, out, ldp::device::framing::report, &size) ==
                status::ok);
        out.resize(size);
        ldp::wire::report r;
        REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), out, &r) == status::ok);
        seeds.insert(r.seed);
        if (round == 0) {
          bytes.insert(bytes.end(), out.begin(), out.end());
        } else {
          // The same value gives the same report, whatever the generator (no fresh coins).
          CHECK(std::vector<unsigned char>(bytes.begin() + v * size, bytes.begin() + (v + 1) * size) == out);
        }
      }
    }
    CHECK(seeds.size() == 1);
    if (reference.empty()) reference = bytes;
    CHECK(bytes == reference);
  }
}

TEST_CASE("dBitFlip: blocks and calls that do not fit are refused") {
  CHECK(ldp::wire::make_dbitflip(1.0, 4, 5).code == status::invalid_argument);    // s > k
  CHECK(ldp::wire::make_dbitflip(1.0, 64, 33).code == status::invalid_argument);  // s > 32
  CHECK(ldp::wire::make_dbitflip(1.0, 64, 0).code == status::invalid_argument);
  CHECK(ldp::wire::make_dbitflip(1.0, 1, 1).code == status::invalid_argument);
  auto p = ldp::wire::make_dbitflip(1.0, 64, 4).block;
  p.set(field::sampled_buckets, 65);
  CHECK(ldp::wire::validate(p) == status::invalid_parameters);
  p = ldp::wire::make_dbitflip(1.0, 64, 4).block;
  p.set(field::threshold_other, p.get(field::threshold_keep));
  CHECK(ldp::wire::validate(p) == status::invalid_parameters);
  // Its reports need the device secret.
  const auto block = ldp::wire::make_dbitflip(1.0, 64, 4).block;
  ldp::test::owned_context<ldp::device::frequency_context> oracle(block);
  REQUIRE(oracle.code == status::ok);
  auto rng = ldp::test::seeded_drbg("dbitflip refusals");
  std::vector<unsigned char> out(ldp::wire::max_report_size(block));
  std::size_t size = 1;
  CHECK(oracle->randomize(3, rng, out, ldp::device::framing::report, &size) == status::invalid_argument);
  CHECK(size == 0);
  CHECK(oracle->randomize_memoized(3, {}, rng, out, ldp::device::framing::report, &size) == status::invalid_argument);
  CHECK(oracle->randomize_memoized(64, {secret, 0}, rng, out, ldp::device::framing::report, &size) ==
        status::out_of_range);
}
