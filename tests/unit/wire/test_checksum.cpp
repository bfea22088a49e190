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
  } vectors[] = {{0, 0x726fdb47dd0e0e31u}, {1, 0x74f839c593dc67fdu},  {7, 0xab0200f58b01d137u},
                 {8, 0x93f5f5799a932462u}, {15, 0xa129ca6149be45e5u}, {16, 0x3f2acc7f57c29bdbu},
                 {63, 0x958a324ceb064572u}};
  for (auto v : vectors) {
    CAPTURE(v.length);
    CHECK(ldp::wire::siphash24(key, ldp::span<const unsigned char>(message, v.length)) == v.expected);
  }
}

namespace {

// CRC32C one bit at a time, straight from the definition (reflected 0x82F63B78).
uint32_t crc32c_bitwise(const std::vector<unsigned char>& bytes) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
  }
  return ~c;
}

}  // namespace

TEST_CASE("CRC32C eight bytes at a time equals the bitwise definition at every length and offset") {
  std::vector<unsigned char> data(300);
  uint32_t x = 12345;
  for (unsigned char& b : data) b = static_cast<unsigned char>((x = x * 1103515245u + 12345u) >> 24);
  for (std::size_t offset : {0u, 1u, 3u, 7u}) {
    for (std::size_t size = 0; size + offset <= data.size(); size += 1 + size / 16) {
      const std::vector<unsigned char> part(data.begin() + static_cast<std::ptrdiff_t>(offset),
                                            data.begin() + static_cast<std::ptrdiff_t>(offset + size));
      // From inside the original buffer: unaligned starts.
      CHECK(ldp::wire::crc32c(ldp::span<const unsigned char>(data.data() + offset, size)) == crc32c_bitwise(part));
    }
  }
}
