// The SipHash-2-4 state (Aumasson, Bernstein 2012), shared by wire::siphash24, wire's OLH report
// keys and the kernel tables' sip_pairs, which derive those keys in bulk (docs/performance.md 5).
//
// Templates on a Tag so that each SIMD kernel unit instantiates its own copy (kernels::table::
// sip_pairs: compiled with the unit's flags, it vectorizes across seeds); one shared inline copy
// could be linked from a unit built for instructions the CPU lacks. Code built with the baseline
// flags (wire, the scalar table) shares Tag = void.
#ifndef LDP_BASE_SIPHASH_H
#define LDP_BASE_SIPHASH_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/bits.h"

namespace ldp {

template <class Tag>
struct basic_sip_state {
  uint64_t v0, v1, v2, v3;

  static constexpr uint64_t rotl(uint64_t x, unsigned n) noexcept { return (x << n) | (x >> (64 - n)); }
  static basic_sip_state keyed(const unsigned char key[16]) noexcept {
    const uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
    return {k0 ^ 0x736f6d6570736575u, k1 ^ 0x646f72616e646f6du, k0 ^ 0x6c7967656e657261u, k1 ^ 0x7465646279746573u};
  }
  void round() noexcept {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
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

using sip_state = basic_sip_state<void>;

// From the keyed state `start` (v0..v3), for every i < n: a[i] = SipHash-2-4 of the 9 bytes
// (seeds[i] little-endian, 0) and b[i] of (seeds[i], 1). Both messages start with the same word,
// absorbed once: 14 rounds for the pair instead of 16. The arrays must not overlap.
template <class Tag>
void sip_pairs(const uint64_t start[4], const uint64_t* seeds, std::size_t n, uint64_t* a, uint64_t* b) noexcept {
  const basic_sip_state<Tag> keyed{start[0], start[1], start[2], start[3]};
  constexpr uint64_t length = uint64_t{9} << 56;  // the last word: the 9th byte, the length on top
  for (std::size_t i = 0; i < n; ++i) {
    basic_sip_state<Tag> s = keyed;
    s.absorb(seeds[i]);
    basic_sip_state<Tag> t = s;
    s.absorb(length | 0);
    t.absorb(length | 1);
    a[i] = s.finish();
    b[i] = t.finish();
  }
}

}  // namespace ldp

#endif
