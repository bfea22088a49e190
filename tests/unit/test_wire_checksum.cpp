// CRC32C and SipHash-2-4 against their published test vectors.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ldp/wire/checksum.h"

namespace {

ldp::span<const unsigned char> bytes_of(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

}  // namespace

TEST_CASE("CRC32C: check value and the RFC 3720 B.4 vectors") {
  CHECK(ldp::wire::crc32c(bytes_of("123456789")) == 0xE3069283u);
  const std::vector<unsigned char> zeros(32, 0), ones(32, 0xff);
  std::vector<unsigned char> up(32), down(32);
  for (int i = 0; i < 32; ++i) {
    up[i] = static_cast<unsigned char>(i);
    down[i] = static_cast<unsigned char>(31 - i);
  }
  CHECK(ldp::wire::crc32c(zeros) == 0x8A9136AAu);
  CHECK(ldp::wire::crc32c(ones) == 0x62A8AB43u);
  CHECK(ldp::wire::crc32c(up) == 0x46DD794Eu);
  CHECK(ldp::wire::crc32c(down) == 0x113FDB5Cu);
  CHECK(ldp::wire::crc32c({}) == 0u);
}

TEST_CASE("CRC32C continues a running checksum") {
  const std::string text = "the valid reports beside it still count";
  const uint32_t whole = ldp::wire::crc32c(bytes_of(text));
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    const uint32_t first = ldp::wire::crc32c(bytes_of(text.substr(0, cut)));
    CHECK(ldp::wire::crc32c(bytes_of(text.substr(cut)), first) == whole);
  }
}

TEST_CASE("SipHash-2-4 reference vectors (key 00..0f, message 00..n-1)") {
  unsigned char key[16], message[64];
  for (int i = 0; i < 16; ++i) key[i] = static_cast<unsigned char>(i);
  for (int i = 0; i < 64; ++i) message[i] = static_cast<unsigned char>(i);
  const struct {
    std::size_t length;
    uint64_t expected;
  } vectors[] = {{0, 0x726fdb47dd0e0e31u},  {1, 0x74f839c593dc67fdu},  {7, 0xab0200f58b01d137u},
                 {8, 0x93f5f5799a932462u},  {15, 0xa129ca6149be45e5u}, {16, 0x3f2acc7f57c29bdbu},
                 {63, 0x958a324ceb064572u}};
  for (auto v : vectors) {
    CAPTURE(v.length);
    CHECK(ldp::wire::siphash24(key, ldp::span<const unsigned char>(message, v.length)) == v.expected);
  }
}
