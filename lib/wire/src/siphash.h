// The SipHash-2-4 state (Aumasson, Bernstein 2012), shared by wire::siphash24 (checksum.cpp) and
// the OLH key derivation (hash.cpp), which absorbs a report's seed once for both of its keys.
#ifndef LDP_WIRE_SRC_SIPHASH_H
#define LDP_WIRE_SRC_SIPHASH_H

#include <cstdint>

#include "ldp/base/bits.h"

namespace ldp::wire {

constexpr uint64_t rotl64(uint64_t x, unsigned n) { return (x << n) | (x >> (64 - n)); }

struct sip_state {
  uint64_t v0, v1, v2, v3;
  static sip_state keyed(const unsigned char key[16]) noexcept {
    const uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
    return {k0 ^ 0x736f6d6570736575u, k1 ^ 0x646f72616e646f6du, k0 ^ 0x6c7967656e657261u, k1 ^ 0x7465646279746573u};
  }
  void round() noexcept {
    v0 += v1;
    v1 = rotl64(v1, 13);
    v1 ^= v0;
    v0 = rotl64(v0, 32);
    v2 += v3;
    v3 = rotl64(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl64(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl64(v1, 17);
    v1 ^= v2;
    v2 = rotl64(v2, 32);
  }
  // One 8-byte word of the message (the last one carries the length in its top byte).
  void absorb(uint64_t m) noexcept {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  // The output, after the last word.
  uint64_t finish() noexcept {
    v2 ^= 0xff;
    for (int r = 0; r < 4; ++r) round();
    return v0 ^ v1 ^ v2 ^ v3;
  }
};

}  // namespace ldp::wire

#endif
