// The universal hash of local hashing and sketches (docs/mechanisms.md A.4, A.6), shared because device
// and server must hash identically: Dietzfelbinger's multiply-add-shift on 32-bit keys,
// h(v) = ((a v + b) mod 2^64) >> 32, strongly universal for uniform 64-bit (a, b), then mapped to
// [0, g) by (h g) >> 32. Hash the integer index, never a text rendering of it.
//
// (a, b) are derived from a seed with SipHash-2-4 (the wire module's PRF; wire depends on base
// only, so it cannot use the ChaCha20 of lib/random that docs/mechanisms.md A.4 suggests).
//
// Sketch rows (CMS, HCMS) use SipHash-2-4 itself as the hash: the sketch variance of A.6 assumes
// 3-wise independent rows, and multiply-add-shift is only pairwise independent (measured: the
// collision variance of consecutive small items came out 2-2.5x the formula). A server evaluates
// k hashes per candidate, so the slower PRF costs little there.
#ifndef LDP_WIRE_HASH_H
#define LDP_WIRE_HASH_H

#include <cstdint>

#include "ldp/wire/params.h"

namespace ldp::wire {

struct hash_key {
  uint64_t a;
  uint64_t b;
};

// OLH/BLH: the key of a report's 64-bit seed.
[[nodiscard]] hash_key report_hash_key(uint64_t seed) noexcept;
// (a, b) is SipHash-2-4 under a fixed key of the 9 bytes (seed little-endian, 0) and (seed, 1).
// That key's SipHash state, for deriving many keys at once: ldp::sip_pairs (ldp/base/siphash.h), or
// the kernel table's vectorized sip_pairs on a server.
void report_hash_start(uint64_t state[4]) noexcept;

[[nodiscard]] constexpr uint32_t hash32(hash_key k, uint32_t v) noexcept {
  return static_cast<uint32_t>((k.a * v + k.b) >> 32);
}

// In [0, g): Lemire's multiply-shift range reduction of the 32-bit hash.
[[nodiscard]] constexpr uint32_t hash_to_range(hash_key k, uint32_t v, uint32_t g) noexcept {
  return static_cast<uint32_t>((uint64_t{hash32(k, v)} * g) >> 32);
}

// CMS/HCMS row hashes h_j(x) in [0, m) for the family named by a block's public hash_seed:
// SipHash-2-4 keyed with the seed's first 16 bytes, over its last 16 bytes, j and x (little-endian
// u32 each); the top 32 bits of the output are reduced to [0, m) by multiply-shift.
class sketch_hash {
 public:
  explicit sketch_hash(const unsigned char hash_seed[seed_size]) noexcept;
  [[nodiscard]] uint32_t operator()(uint32_t row, uint32_t value, uint32_t m) const noexcept;

 private:
  unsigned char key_[16];
  unsigned char prefix_[16];
};

}  // namespace ldp::wire

#endif
