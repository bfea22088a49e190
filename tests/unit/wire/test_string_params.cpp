// String items and the string-discovery blocks (ldp/wire/string_params.h, docs/mechanisms.md F.1,
// docs/wire_format.md 3.2 and 5): derivation from the inner oracles, the block rules, the groups,
// padding and its refusals, the derived items (prefix bits past the length ignored, the pieces a
// server evaluates equal to what a device derives, pinned values), and the group_round payload.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ldp/wire.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

constexpr unsigned char seed[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

ldp::span<const unsigned char> bytes_of(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

ldp::wire::padded_string padded(const ldp::wire::params& p, const std::string& s) {
  ldp::wire::padded_string out;
  REQUIRE(ldp::wire::pad_string(p, bytes_of(s), &out) == status::ok);
  return out;
}

}  // namespace

TEST_CASE("make_pem / make_treehist / make_sfp: the inner oracle's block and epsilon, the string fields") {
  for (const double eps : {0.5, 1.0, 4.0}) {
    CAPTURE(eps);
    const auto pem = ldp::wire::make_pem(eps, 16, 8);
    const auto olh = ldp::wire::make_olh(eps, ldp::wire::string_default_domain);
    REQUIRE(pem.code == status::ok);
    CHECK(pem.block.mech == mechanism::pem);
    CHECK(pem.block.get(field::domain) == ldp::wire::string_default_domain);
    CHECK(pem.block.get(field::threshold_keep) == olh.block.get(field::threshold_keep));
    CHECK(pem.block.get(field::hash_range) == olh.block.get(field::hash_range));
    CHECK(pem.epsilon_impl == olh.epsilon_impl);
    CHECK(ldp::wire::implemented_epsilon(pem.block) == olh.epsilon_impl);
    CHECK(pem.epsilon_impl <= eps);
    CHECK(ldp::wire::string_inner_block(pem.block).mech == mechanism::olh);
    CHECK(ldp::wire::string_groups(pem.block) == 16);

    const auto tree = ldp::wire::make_treehist(eps, 10, 2, 8, 1024, seed, 1u << 20);
    const auto hcms = ldp::wire::make_hcms(eps, 1u << 20, 8, 1024, seed);
    REQUIRE(tree.code == status::ok);
    CHECK(tree.epsilon_impl == hcms.epsilon_impl);
    CHECK(tree.block.get(field::threshold_other) == hcms.block.get(field::threshold_other));
    CHECK(ldp::wire::string_groups(tree.block) == 40);  // 80 bits in steps of 2
    CHECK(ldp::wire::string_prefix_length(tree.block, 39) == 80);

    const auto sfp = ldp::wire::make_sfp(eps, 10, 16, 1024, seed);
    const auto cms = ldp::wire::make_cms(eps, ldp::wire::string_default_domain, 16, 1024, seed);
    REQUIRE(sfp.code == status::ok);
    CHECK(sfp.epsilon_impl == cms.epsilon_impl);
    CHECK(!sfp.block.has(field::prefix_bits));
    CHECK(ldp::wire::string_groups(sfp.block) == 6);  // offsets 0, 2, 4, 6, 8 and the word
    CHECK(ldp::wire::sfp_word_group(sfp.block, 5));
    CHECK(!ldp::wire::sfp_word_group(sfp.block, 4));
  }
  // make_olh names g = 2 blh; pem keeps its inner oracle olh.
  const auto low = ldp::wire::make_pem(0.1, 8, 8);
  REQUIRE(low.code == status::ok);
  CHECK(low.block.get(field::hash_range) == 2);
  CHECK(ldp::wire::string_inner_block(low.block).mech == mechanism::olh);
}

TEST_CASE("string blocks: the length, the step and the inner block are checked") {
  CHECK(ldp::wire::make_pem(1, 0, 8).code == status::invalid_argument);
  CHECK(ldp::wire::make_pem(1, 65, 8).code == status::invalid_argument);
  CHECK(ldp::wire::make_pem(1, 64, 8).code == status::ok);
  for (const uint32_t eta : {0u, 3u, 5u, 16u}) CHECK(ldp::wire::make_pem(1, 8, eta).code == status::invalid_argument);
  CHECK(ldp::wire::make_sfp(1, 9, 16, 1024, seed).code == status::invalid_argument);  // odd: no whole fragments
  CHECK(ldp::wire::make_sfp(1, 2, 16, 1024, seed).code == status::ok);
  CHECK(ldp::wire::make_treehist(1, 8, 8, 8, 1000, seed).code == status::invalid_argument);  // HCMS: m = 2^j
  CHECK(ldp::wire::make_treehist(1, 8, 8, 8, 1024, nullptr).code == status::invalid_argument);

  ldp::wire::params p = ldp::wire::make_pem(1, 8, 8).block;
  REQUIRE(ldp::wire::validate(p) == status::ok);
  ldp::wire::params extra = p;
  extra.set(field::sketch_rows, 4);  // a field the inner oracle does not have
  CHECK(ldp::wire::validate(extra) == status::invalid_parameters);
  ldp::wire::params sfp_with_step = ldp::wire::make_sfp(1, 8, 16, 1024, seed).block;
  sfp_with_step.set(field::prefix_bits, 8);
  CHECK(ldp::wire::validate(sfp_with_step) == status::invalid_parameters);
  ldp::wire::params weak = p;
  weak.set(field::threshold_keep, 1);  // the inner OLH no longer favours the true bucket
  CHECK(ldp::wire::validate(weak) == status::invalid_parameters);
}

TEST_CASE("pad_string: 1..L bytes without a zero byte") {
  const ldp::wire::params p = ldp::wire::make_pem(1, 6, 8).block;
  ldp::wire::padded_string out;
  CHECK(ldp::wire::pad_string(p, bytes_of("abcdef"), &out) == status::ok);
  CHECK(std::memcmp(out.bytes, "abcdef", 6) == 0);
  CHECK(ldp::wire::pad_string(p, bytes_of("ab"), &out) == status::ok);
  CHECK((out.bytes[2] == 0 && out.bytes[5] == 0 && out.bytes[63] == 0));
  CHECK(ldp::wire::pad_string(p, bytes_of("abcdefg"), &out) == status::out_of_range);
  CHECK(ldp::wire::pad_string(p, bytes_of(""), &out) == status::out_of_range);
  CHECK(ldp::wire::pad_string(p, bytes_of(std::string("a\0b", 3)), &out) == status::out_of_range);
  CHECK(out.bytes[0] == 0);  // nothing left over from a refused string
}

TEST_CASE("prefix items: the first l bits name the item, the bits past them do not") {
  const ldp::wire::params p = ldp::wire::make_treehist(1, 8, 1, 4, 256, seed).block;
  REQUIRE(ldp::wire::string_groups(p) == 64);
  // 'a' = 0x61 = 0110 0001 and 'b' = 0x62 = 0110 0010 share their first 6 bits.
  const auto a = padded(p, "a"), b = padded(p, "b");
  for (uint32_t g = 0; g < 6; ++g) CHECK(ldp::wire::string_item(p, g, a) == ldp::wire::string_item(p, g, b));
  CHECK(ldp::wire::string_item(p, 6, a) != ldp::wire::string_item(p, 6, b));
  // A group's item is the prefix item of its length, whatever follows in the buffer.
  const auto word = padded(p, "heavy");
  const unsigned char noisy[2] = {'h', 'e' | 0x0f};
  CHECK(ldp::wire::string_item(p, 11, word) == ldp::wire::prefix_item(p, 12, noisy));
  // Lengths are part of the item: "a" at 8 bits and "a\0" at 16 bits differ.
  CHECK(ldp::wire::string_item(p, 7, a) != ldp::wire::string_item(p, 15, a));
  for (uint32_t g = 0; g < 64; ++g) CHECK(ldp::wire::string_item(p, g, word) < p.get(field::domain));
}

TEST_CASE("sfp items: a fragment group's item is the fragment item of the word's puzzle and bytes") {
  const ldp::wire::params p = ldp::wire::make_sfp(1, 8, 16, 1024, seed).block;
  const auto w = padded(p, "privacy"), other = padded(p, "privatE");
  const uint32_t puzzle = ldp::wire::sfp_puzzle(p, w);
  CHECK(puzzle < ldp::wire::sfp_puzzle_values);
  for (uint32_t g = 0; g < 4; ++g) {
    CHECK(ldp::wire::string_item(p, g, w) == ldp::wire::sfp_fragment_item(p, g, puzzle, w.bytes + 2 * g));
  }
  CHECK(ldp::wire::string_item(p, 4, w) == ldp::wire::sfp_word_item(p, w));
  CHECK(ldp::wire::string_item(p, 4, w) != ldp::wire::string_item(p, 4, other));
  // The same fragment at the same offset under two puzzles: two items (the puzzle ties fragments to a word).
  const unsigned char pr[2] = {'p', 'r'};
  CHECK(ldp::wire::sfp_fragment_item(p, 0, 1, pr) != ldp::wire::sfp_fragment_item(p, 0, 2, pr));
  CHECK(ldp::wire::sfp_fragment_item(p, 0, 1, pr) != ldp::wire::sfp_fragment_item(p, 1, 1, pr));
}

TEST_CASE("derived items are pinned (device and server on every target derive these numbers)") {
  const ldp::wire::params pem = ldp::wire::make_pem(1, 8, 8).block;
  const ldp::wire::params sfp = ldp::wire::make_sfp(1, 8, 16, 1024, seed).block;
  const auto w = padded(pem, "fortune");
  CHECK(ldp::wire::string_item(pem, 0, w) == 1638104603u);
  CHECK(ldp::wire::string_item(pem, 6, w) == 2047184482u);
  CHECK(ldp::wire::string_item(pem, 7, w) == 1037288693u);
  CHECK(ldp::wire::sfp_puzzle(sfp, w) == 23u);
  CHECK(ldp::wire::string_item(sfp, 1, w) == 1322809370u);
  CHECK(ldp::wire::string_item(sfp, 4, w) == 906747651u);
}

TEST_CASE("group_round payload: the group, then the inner oracle's payload") {
  const ldp::wire::params p = ldp::wire::make_pem(2, 8, 8, 1000, 8).block;
  REQUIRE(ldp::wire::validate(p) == status::ok);
  CHECK(ldp::wire::max_payload_size(p) == 1 + 8 + 1);
  ldp::wire::report r;
  r.mech = p.mech;
  r.group = 7;
  r.seed = 0x1122334455667788u;
  r.index = 5;
  unsigned char out[64];
  std::size_t written = 0;
  REQUIRE(ldp::wire::encode_payload(p, r, out, &written) == status::ok);
  REQUIRE(written == 10);
  CHECK(out[0] == 7);
  CHECK(out[1] == 0x88);
  CHECK(out[9] == 5);
  ldp::wire::report back;
  REQUIRE(ldp::wire::decode_payload(p, ldp::span<const unsigned char>(out, written), &back) == status::ok);
  CHECK(back.mech == mechanism::pem);
  CHECK(back.group == 7);
  CHECK(back.seed == r.seed);
  CHECK(back.index == 5);
  r.group = 8;  // G = 8
  CHECK(ldp::wire::encode_payload(p, r, out, &written) == status::out_of_range);
  out[0] = 8;
  CHECK(ldp::wire::decode_payload(p, ldp::span<const unsigned char>(out, 10), &back) == status::out_of_range);
  out[0] = 7;
  out[9] = 8;  // bucket 8 of g = 8
  CHECK(ldp::wire::decode_payload(p, ldp::span<const unsigned char>(out, 10), &back) == status::out_of_range);
  CHECK(ldp::wire::decode_payload(p, ldp::span<const unsigned char>(out, 9), &back) == status::wrong_length);
}
