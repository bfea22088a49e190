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
//
// FLH (docs/mechanisms.md A.4) needs both: the A.4 variance with its shared-hash term assumes
// 3-wise independent functions, and the server evaluates all k functions at all d items. Its k
// public functions are degree-2 polynomials over GF(2^61 - 1), exactly 3-wise independent for
// uniform coefficients; SipHash derives the coefficients once per function, and consecutive items
// are evaluated by finite differences (two modular additions per item).
#ifndef LDP_WIRE_HASH_H
#define LDP_WIRE_HASH_H

#include <cstdint>

#include "ldp/base/int128.h"
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

// dBitFlip (docs/mechanisms.md E.3): the most buckets a device samples (its report packs one bit
// per sampled bucket into a u32).
inline constexpr uint32_t dbitflip_max_sampled = 32;

// The d distinct buckets of [0, k) a dBitFlip device with 64-bit seed `seed` samples, in increasing
// order in out[0, d) (1 <= d <= min(k, 32)). Floyd's algorithm: for j = k - d .. k - 1, t uniform in
// [0, j], taken unless already chosen, else j; every d-subset has probability 1 / C(k, d), so each
// bucket is sampled with probability d / k exactly. The uniforms are Lemire's reduction with
// rejection of SipHash-2-4 words under the key "ldpkit dbitflip1" of (seed, counter) (8 + 4 bytes
// LE), exact for a PRF. Device and server expand a report's seed alike.
void dbitflip_buckets(uint64_t seed, uint32_t k, uint32_t d, uint32_t* out) noexcept;

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

// FLH: the Mersenne prime 2^61 - 1 and arithmetic modulo it.
inline constexpr uint64_t flh_prime = (uint64_t{1} << 61) - 1;

// a + b mod 2^61 - 1 for a, b < 2^61 - 1.
[[nodiscard]] constexpr uint64_t add_mod61(uint64_t a, uint64_t b) noexcept {
  const uint64_t s = a + b;
  return s >= flh_prime ? s - flh_prime : s;
}

// a * b mod 2^61 - 1 for a < 2^61 - 1 and b < 2^64 (2^61 = 1: fold the high bits onto the low).
[[nodiscard]] constexpr uint64_t mul_mod61(uint64_t a, uint64_t b) noexcept {
  const u128 x = mul_64x64(a, b);  // < 2^125
  const uint64_t low = x.lo & flh_prime, high = (x.lo >> 61) | (x.hi << 3);
  const uint64_t s = low + (high & flh_prime) + (high >> 61);  // < 2^62 + 2^4
  return add_mod61(s & flh_prime, s >> 61);
}

// Function j of a block's family: h_j(v) = (a v^2 + b v + c) mod 2^61 - 1.
struct flh_key {
  uint64_t a;
  uint64_t b;
  uint64_t c;
};

// The coefficients of function j: SipHash-2-4 keyed with the seed's first 16 bytes, over its last
// 16 bytes, j (little-endian u32) and the coefficient's index (one byte: 0, 1, 2), reduced modulo
// 2^61 - 1 (a non-uniformity below 2^-60 per coefficient). The 21-byte messages never equal the
// 24-byte ones of sketch_hash.
[[nodiscard]] flh_key flh_function(const unsigned char hash_seed[seed_size], uint32_t j) noexcept;

// h_j(v) in [0, 2^61 - 1), by Horner's rule.
[[nodiscard]] constexpr uint64_t flh_value(flh_key k, uint32_t v) noexcept {
  return add_mod61(mul_mod61(add_mod61(mul_mod61(k.a, v), k.b), v), k.c);
}

// A value of h_j mapped to its bucket in [0, g), g <= 2^31: its top 32 of 61 bits, reduced by
// multiply-shift (as hash_to_range). Each bucket's probability is within g/2^32 of 1/g.
[[nodiscard]] constexpr uint32_t flh_bucket(uint64_t h, uint32_t g) noexcept {
  return static_cast<uint32_t>(((h >> 29) * g) >> 32);
}

}  // namespace ldp::wire

#endif
