#include "ldp/wire/checksum.h"

#include "ldp/base/bits.h"
#include "ldp/base/siphash.h"

namespace ldp::wire {
namespace {

// Slicing-by-8 (Kounavis and Berry, 2005): entry[k][b] is the CRC contribution of byte b followed by
// k zero bytes, so eight table lookups advance the register by eight bytes. 8 KiB of tables in
// read-only memory; devices only checksum short headers, servers whole batches.
struct crc_tables {
  uint32_t entry[8][256];
};

constexpr crc_tables make_crc_tables() {
  crc_tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t.entry[0][i] = c;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t i = 0; i < 256; ++i) {
      const uint32_t prev = t.entry[k - 1][i];
      t.entry[k][i] = t.entry[0][prev & 0xffu] ^ (prev >> 8);
    }
  }
  return t;
}

constexpr crc_tables crc = make_crc_tables();

}  // namespace

uint32_t crc32c(span<const unsigned char> bytes, uint32_t running) noexcept {
  uint32_t c = ~running;
  const unsigned char* at = bytes.data();
  std::size_t left = bytes.size();
  for (; left >= 8; left -= 8, at += 8) {
    const uint32_t lo = load_le32(at) ^ c, hi = load_le32(at + 4);
    c = crc.entry[7][lo & 0xffu] ^ crc.entry[6][(lo >> 8) & 0xffu] ^ crc.entry[5][(lo >> 16) & 0xffu] ^
        crc.entry[4][lo >> 24] ^ crc.entry[3][hi & 0xffu] ^ crc.entry[2][(hi >> 8) & 0xffu] ^
        crc.entry[1][(hi >> 16) & 0xffu] ^ crc.entry[0][hi >> 24];
  }
  for (; left > 0; --left, ++at) c = crc.entry[0][(c ^ *at) & 0xffu] ^ (c >> 8);
  return ~c;
}

uint64_t siphash24(const unsigned char key[16], span<const unsigned char> bytes) noexcept {
  sip_state s = sip_state::keyed(key);
  const std::size_t whole = bytes.size() / 8 * 8;
  for (std::size_t i = 0; i < whole; i += 8) s.absorb(load_le64(bytes.data() + i));
  // Last word: the remaining bytes, then the length's low byte in the top byte.
  uint64_t last = static_cast<uint64_t>(bytes.size() & 0xff) << 56;
  for (std::size_t i = whole; i < bytes.size(); ++i) last |= uint64_t{bytes[i]} << (8 * (i - whole));
  s.absorb(last);
  return s.finish();
}

}  // namespace ldp::wire
