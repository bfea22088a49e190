// Device side of string discovery (ldp/device/string.h, docs/mechanisms.md F.1): refused strings draw
// nothing, the group is the first coin and does not depend on the string, the rest of the report is
// the inner oracle's report of the derived item, a report decodes to its group and the inner fields,
// and the exact enumeration of the whole path is epsilon_impl-LDP, tightly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

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

const unsigned char sketch_seed[32] = {7, 1, 8};

ldp::span<const unsigned char> bytes_of(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

// One block of each member: strings of at most 6 bytes, 2^20 derived items.
std::vector<ldp::wire::params> blocks() {
  std::vector<ldp::wire::params> out;
  for (const auto& d :
       {ldp::wire::make_pem(2.0, 6, 4, 1u << 20), ldp::wire::make_treehist(2.0, 6, 8, 4, 64, sketch_seed, 1u << 20),
        ldp::wire::make_sfp(2.0, 6, 4, 64, sketch_seed, 1u << 20)}) {
    REQUIRE(d.code == status::ok);
    out.push_back(d.block);
  }
  return out;
}

// drbg_coins that records each draw: the kind of the first one, and how many in all.
struct recording_coins {
  ldp::device::drbg_coins inner;
  int draws = 0;
  bool first_is_group = false;
  uint32_t first_bound = 0;
  // scripted >= 0: the first uniform_below returns it instead of a draw (a scripted group).
  int64_t scripted = -1;

  void note(bool group_draw, uint32_t n) {
    if (draws++ == 0) {
      first_is_group = group_draw;
      first_bound = n;
    }
  }
  bool bernoulli(uint64_t t) {
    note(false, 0);
    return inner.bernoulli(t);
  }
  uint32_t uniform_below(uint32_t n) {
    const bool first = draws == 0;
    note(true, n);
    return first && scripted >= 0 ? static_cast<uint32_t>(scripted) : inner.uniform_below(n);
  }
  uint64_t raw_u64() {
    note(false, 0);
    return inner.raw_u64();
  }
  bool raw_bit() {
    note(false, 0);
    return inner.raw_bit();
  }
  ldp::status mask(ldp::span<uint64_t> words, std::size_t nbits, uint64_t threshold) {
    note(false, 0);
    return inner.mask(words, nbits, threshold);
  }
};

std::vector<unsigned char> payload_of(const ldp::wire::params& p, const ldp::wire::report& r) {
  std::vector<unsigned char> out(ldp::wire::max_payload_size(p));
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_payload(p, r, out, &size) == status::ok);
  out.resize(size);
  return out;
}

}  // namespace

TEST_CASE("string_context: only string-discovery blocks, the inner oracle's workspace") {
  for (const auto& p : blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    CHECK(ldp::device::family_of(p.mech) == ldp::device::family::string);
    const ldp::wire::params inner = ldp::wire::string_inner_block(p);
    CHECK(ldp::device::string_context::workspace_size(p) == ldp::device::frequency_context::workspace_size(inner));
    ldp::test::owned_context<ldp::device::string_context> c(p);
    REQUIRE(c.code == status::ok);
    CHECK(c->fingerprint() == ldp::wire::fingerprint(p));
    CHECK(c->parameters().mech == p.mech);
    // The inner block is an oracle, not a discovery block: refused.
    ldp::test::owned_context<ldp::device::string_context> wrong(inner);
    CHECK(wrong.code == status::invalid_argument);
    if (ldp::device::string_context::workspace_size(p) > 0) {
      std::vector<uint64_t> small(ldp::device::string_context::workspace_size(p) / 8 - 1);
      ldp::device::string_context context;
      CHECK(ldp::device::string_context::init({reinterpret_cast<std::byte*>(small.data()), small.size() * 8}, p,
                                              &context) == status::workspace_too_small);
      auto rng = ldp::test::seeded_drbg("string refused context");
      std::vector<unsigned char> out(ldp::wire::max_report_size(p));
      std::size_t written = 1;
      CHECK(context.randomize(bytes_of("abc"), rng, out, ldp::device::framing::report, &written) ==
            status::invalid_argument);
      CHECK(written == 0);
    }
  }
  ldp::test::owned_context<ldp::device::string_context> olh(ldp::wire::make_olh(1.0, 100).block);
  CHECK(olh.code == status::invalid_argument);
}

TEST_CASE("a string pad_string refuses is out_of_range, and nothing is drawn") {
  for (const auto& p : blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    ldp::test::owned_context<ldp::device::string_context> c(p);
    REQUIRE(c.code == status::ok);
    for (const std::string& bad : {std::string(), std::string("abcdefg"), std::string("a\0b", 3)}) {
      CAPTURE(bad.size());
      auto rng = ldp::test::seeded_drbg("string refusal"), twin = ldp::test::seeded_drbg("string refusal");
      recording_coins coins{ldp::device::drbg_coins(rng)};
      ldp::wire::report r;
      CHECK(c->fields(bytes_of(bad), coins, &r) == status::out_of_range);
      CHECK(coins.draws == 0);
      std::vector<unsigned char> out(ldp::wire::max_report_size(p));
      std::size_t written = 1;
      CHECK(c->randomize(bytes_of(bad), rng, out, ldp::device::framing::report, &written) == status::out_of_range);
      CHECK(written == 0);
      CHECK(rng.next_u64() == twin.next_u64());  // the generator did not move
    }
    // The longest string is accepted.
    auto rng = ldp::test::seeded_drbg("string longest");
    recording_coins coins{ldp::device::drbg_coins(rng)};
    ldp::wire::report r;
    CHECK(c->fields(bytes_of("abcdef"), coins, &r) == status::ok);
  }
}

TEST_CASE("the group is the first coin, scripted to every value; the rest is the inner oracle's report") {
  const std::vector<std::string> strings = {"a", "heavy", "zz", "abcdef"};
  for (const auto& p : blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    const uint32_t groups = ldp::wire::string_groups(p);
    REQUIRE(groups > 1);
    const ldp::wire::params inner_block = ldp::wire::string_inner_block(p);
    ldp::test::owned_context<ldp::device::string_context> c(p);
    ldp::test::owned_context<ldp::device::frequency_context> inner(inner_block);
    REQUIRE(c.code == status::ok);
    REQUIRE(inner.code == status::ok);
    for (const std::string& s : strings) {
      ldp::wire::padded_string padded;
      REQUIRE(ldp::wire::pad_string(p, bytes_of(s), &padded) == status::ok);
      for (uint32_t g = 0; g < groups; ++g) {
        CAPTURE(s);
        CAPTURE(g);
        auto rng = ldp::test::seeded_drbg("string scripted group"),
             twin = ldp::test::seeded_drbg("string scripted group");
        recording_coins coins{ldp::device::drbg_coins(rng), 0, false, 0, g};
        ldp::wire::report r;
        REQUIRE(c->fields(bytes_of(s), coins, &r) == status::ok);
        CHECK(coins.first_is_group);
        CHECK(coins.first_bound == groups);
        CHECK(r.mech == p.mech);
        CHECK(r.group == g);
        const std::vector<unsigned char> outer = payload_of(p, r);
        // The inner oracle, on the same coins after the group's, given the item of group g.
        ldp::device::drbg_coins twin_coins(twin);
        ldp::wire::report expected;
        REQUIRE(inner->fields(ldp::wire::string_item(p, g, padded), twin_coins, &expected) == status::ok);
        const std::vector<unsigned char> inner_payload = payload_of(inner_block, expected);
        REQUIRE(outer.size() > inner_payload.size());
        CHECK(std::vector<unsigned char>(outer.end() - static_cast<std::ptrdiff_t>(inner_payload.size()),
                                         outer.end()) == inner_payload);
        CHECK(rng.next_u64() == twin.next_u64());  // the same number of draws
      }
    }
  }
}

TEST_CASE("the group does not depend on the string, and a report decodes to the group and the inner fields") {
  for (const auto& p : blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    const ldp::wire::params inner_block = ldp::wire::string_inner_block(p);
    ldp::test::owned_context<ldp::device::string_context> c(p), other(p), direct(p);
    REQUIRE(c.code == status::ok);
    // Three generators on one seed: "apple" and "zebra" reported, "apple"'s fields() directly.
    auto a = ldp::test::seeded_drbg("string groups"), b = ldp::test::seeded_drbg("string groups");
    auto f = ldp::test::seeded_drbg("string groups");
    ldp::device::drbg_coins coins(f);
    std::vector<unsigned char> out_a(ldp::wire::max_report_size(p)), out_b(out_a.size());
    std::vector<bool> seen(ldp::wire::string_groups(p), false);
    for (int i = 0; i < 50; ++i) {
      std::size_t size_a = 0, size_b = 0;
      REQUIRE(c->randomize(bytes_of("apple"), a, out_a, ldp::device::framing::report, &size_a) == status::ok);
      REQUIRE(other->randomize(bytes_of("zebra"), b, out_b, ldp::device::framing::report, &size_b) == status::ok);
      ldp::wire::report ra, rb, rf;
      REQUIRE(direct->fields(bytes_of("apple"), coins, &rf) == status::ok);
      REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), {out_a.data(), size_a}, &ra) == status::ok);
      REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), {out_b.data(), size_b}, &rb) == status::ok);
      CHECK(ra.mech == p.mech);
      CHECK(ra.group == rb.group);
      CHECK(ra.group == rf.group);
      seen[ra.group] = true;
      CHECK(payload_of(inner_block, ra) == payload_of(inner_block, rf));
    }
    CHECK(std::count(seen.begin(), seen.end(), true) > 1);
  }
}

TEST_CASE("exact enumeration: the string path is epsilon_impl-LDP, tightly, for every member") {
  // Small blocks (d = 8 derived items, two groups) so that every coin path is enumerated; the inputs
  // are strings, x naming one of them. Local hashing is audited given its revealed seed.
  const std::vector<std::string> strings = {"a", "b", "ab", "zq"};
  for (const double eps : {0.5, 2.0}) {
    const ldp::wire::derived_params members[] = {
        ldp::wire::make_pem(eps, 2, 8, 8),
        ldp::wire::make_treehist(eps, 2, 8, 2, 8, sketch_seed, 8),
        ldp::wire::make_sfp(eps, 2, 2, 8, sketch_seed, 8),
    };
    for (const auto& derived : members) {
      REQUIRE(derived.code == status::ok);
      const ldp::wire::params& p = derived.block;
      CAPTURE(ldp::wire::mechanism_name(p.mech));
      CAPTURE(eps);
      CHECK(derived.epsilon_impl <= eps);
      CHECK(ldp::wire::implemented_epsilon(p) == derived.epsilon_impl);
      REQUIRE(ldp::wire::string_groups(p) == 2);
      ldp::test::owned_context<ldp::device::string_context> c(p);
      REQUIRE(c.code == status::ok);
      long double best = 0;
      for (uint64_t seed : {uint64_t{1}, uint64_t{0x9e3779b97f4a7c15u}, uint64_t{42}}) {
        const auto r = ldp::test::max_ratio(static_cast<uint32_t>(strings.size()), seed,
                                            [&](uint32_t x, ldp::test::enumerating_coins& coins) {
                                              ldp::wire::report rep;
                                              REQUIRE(c->fields(bytes_of(strings[x]), coins, &rep) == status::ok);
                                              const std::vector<unsigned char> z = payload_of(p, rep);
                                              return std::string(z.begin(), z.end());
                                            });
        CHECK_FALSE(r.infinite);
        CHECK(r.max_ratio <= std::exp(static_cast<long double>(derived.epsilon_impl)) * (1 + 1e-12L));
        if (r.max_ratio > best) best = r.max_ratio;
      }
      CHECK(best >= std::exp(static_cast<long double>(derived.epsilon_impl)) * (1 - 1e-9L));
    }
  }
}
