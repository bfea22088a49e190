// The universal hash of local hashing and sketches (MECHANISMS.md A.4, A.6), shared because device
// and server must hash identically: Dietzfelbinger's multiply-add-shift on 32-bit keys,
// h(v) = ((a v + b) mod 2^64) >> 32, strongly universal for uniform 64-bit (a, b), then mapped to
// [0, g) by (h g) >> 32. Hash the integer index, never a text rendering of it.
//
// (a, b) are derived from a seed with SipHash-2-4 (the wire module's PRF; wire depends on base
// only, so it cannot use the ChaCha20 of lib/random that MECHANISMS.md A.4 suggests).
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

// CMS/HCMS: the key of row j of the family named by a block's public hash_seed.
[[nodiscard]] hash_key sketch_hash_key(const unsigned char hash_seed[seed_size], uint32_t row) noexcept;

[[nodiscard]] constexpr uint32_t hash32(hash_key k, uint32_t v) noexcept {
  return static_cast<uint32_t>((k.a * v + k.b) >> 32);
}

// In [0, g): Lemire's multiply-shift range reduction of the 32-bit hash.
[[nodiscard]] constexpr uint32_t hash_to_range(hash_key k, uint32_t v, uint32_t g) noexcept {
  return static_cast<uint32_t>((uint64_t{hash32(k, v)} * g) >> 32);
}

}  // namespace ldp::wire

#endif
