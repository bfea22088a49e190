// ChaCha20 against RFC 8439 (sections 2.3.2, 2.4.2 and appendix A.1), and every compiled kernel
// table against the scalar reference.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ldp/random.h"
#include "tables.h"

namespace {

std::vector<unsigned char> from_hex(const char* hex) {
  std::vector<unsigned char> out;
  for (std::size_t i = 0; hex[i] != 0 && hex[i + 1] != 0; i += 2) {
    out.push_back(static_cast<unsigned char>(std::stoi(std::string(hex + i, 2), nullptr, 16)));
  }
  return out;
}

const unsigned char rfc_key[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                   16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

}  // namespace

TEST_CASE("RFC 8439 2.3.2: block function, every kernel table") {
  const unsigned char nonce[12] = {0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  const auto expected = from_hex(
      "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
      "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    unsigned char out[64];
    REQUIRE(ldp::random::chacha20_keystream(*t, rfc_key, nonce, 1, out) == ldp::status::ok);
    CHECK(std::memcmp(out, expected.data(), 64) == 0);
  }
}

TEST_CASE("RFC 8439 2.4.2: keystream XOR plaintext gives the ciphertext") {
  const unsigned char nonce[12] = {0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  const std::string plain =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, "
      "sunscreen would be it.";
  const auto expected = from_hex(
      "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
      "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
      "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
      "5af90bbf74a35be6b40b8eedf2785e42874d");
  REQUIRE(expected.size() == plain.size());
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    std::vector<unsigned char> stream(plain.size());
    REQUIRE(ldp::random::chacha20_keystream(*t, rfc_key, nonce, 1, stream) == ldp::status::ok);
    for (std::size_t i = 0; i < plain.size(); ++i) {
      CHECK((stream[i] ^ static_cast<unsigned char>(plain[i])) == expected[i]);
    }
  }
}

TEST_CASE("RFC 8439 A.1 vector 1: all-zero key, nonce and counter") {
  const unsigned char key[32] = {};
  const unsigned char nonce[12] = {};
  const auto expected = from_hex(
      "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
      "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    unsigned char out[64];
    REQUIRE(ldp::random::chacha20_keystream(*t, key, nonce, 0, out) == ldp::status::ok);
    CHECK(std::memcmp(out, expected.data(), 64) == 0);
  }
}

TEST_CASE("every table equals the scalar reference for any block count and counter") {
  unsigned char seed[32];
  ldp::test::seed_from_name("chacha20 tables", seed);
  ldp::random::drbg rng(seed, ldp::kernels::scalar());
  const uint32_t counters[] = {0, 1, 7, 0xfffffff0u};
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    for (std::size_t blocks = 0; blocks <= 40; ++blocks) {
      for (uint32_t counter : counters) {
        uint32_t key[8], nonce[3];
        for (auto& w : key) w = rng.next_u32();
        for (auto& w : nonce) w = rng.next_u32();
        if (uint64_t{counter} + blocks > (uint64_t{1} << 32)) continue;
        std::vector<unsigned char> want(64 * blocks + 1, 0xa5), got(64 * blocks + 1, 0xa5);
        ldp::kernels::scalar().chacha20_blocks(key, nonce, counter, want.data(), blocks);
        t->chacha20_blocks(key, nonce, counter, got.data(), blocks);
        CAPTURE(blocks);
        CAPTURE(counter);
        CHECK(want == got);  // includes the guard byte: nothing written past the end
      }
    }
  }
}

TEST_CASE("keystream: random access, partial blocks and the counter limit") {
  const unsigned char nonce[12] = {1, 2, 3};
  const auto& k = ldp::kernels::scalar();
  std::vector<unsigned char> whole(64 * 5);
  REQUIRE(ldp::random::chacha20_keystream(k, rfc_key, nonce, 3, whole) == ldp::status::ok);
  std::vector<unsigned char> part(64 * 2 + 17);
  REQUIRE(ldp::random::chacha20_keystream(k, rfc_key, nonce, 5, part) == ldp::status::ok);
  CHECK(std::equal(part.begin(), part.end(), whole.begin() + 128));

  unsigned char last[64];
  CHECK(ldp::random::chacha20_keystream(k, rfc_key, nonce, 0xffffffffu, last) == ldp::status::ok);
  unsigned char two[65];
  CHECK(ldp::random::chacha20_keystream(k, rfc_key, nonce, 0xffffffffu, two) == ldp::status::invalid_argument);
}
