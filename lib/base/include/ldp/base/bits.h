// Portable integer helpers: explicit little-endian loads and stores (docs/wire_format.md fixes the
// byte order of every field; memory order of the host never leaks into bytes), rotations, checked
// 64-bit arithmetic and an exact integer square root (the 128-bit types are int128.h's).
#ifndef LDP_BASE_BITS_H
#define LDP_BASE_BITS_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ldp/base/int128.h"  // u128 and mul_64x64, which checked_mul uses

namespace ldp {

constexpr uint32_t rotl32(uint32_t x, unsigned n) noexcept { return (x << (n & 31u)) | (x >> ((32u - n) & 31u)); }

// The padded dimension 2^ceil(log2 d) of a vector (docs/mechanisms.md B.4): the next power of two >= d.
// 0 when d is 0 or above 2^31 (no power of two in uint32_t); callers check.
[[nodiscard]] constexpr uint32_t padded_dim(uint32_t d) noexcept {
  if (d == 0 || d > (uint32_t{1} << 31)) return 0;
  uint32_t p = 1;
  while (p < d) p <<= 1;
  return p;
}

// log2 of padded_dim(d) (the log2n the kernels take); 0 for d <= 1 and for d above 2^31.
[[nodiscard]] constexpr unsigned padded_log2(uint32_t d) noexcept {
  unsigned l = 0;
  for (uint32_t p = padded_dim(d); p > 1; p >>= 1) ++l;
  return l;
}

// Set bits of a 32-bit word (SWAR; no CPU-specific instruction needed).
constexpr uint32_t popcount32(uint32_t x) noexcept {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return (((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

inline uint32_t load_le32(const unsigned char* p) noexcept {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

inline uint64_t load_le64(const unsigned char* p) noexcept {
  return uint64_t(load_le32(p)) | uint64_t(load_le32(p + 4)) << 32;
}

inline void store_le32(unsigned char* p, uint32_t v) noexcept {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
  p[2] = static_cast<unsigned char>(v >> 16);
  p[3] = static_cast<unsigned char>(v >> 24);
}

inline void store_le64(unsigned char* p, uint64_t v) noexcept {
  store_le32(p, static_cast<uint32_t>(v));
  store_le32(p + 4, static_cast<uint32_t>(v >> 32));
}

// a * b, or false when the product does not fit in 64 bits.
constexpr bool checked_mul(uint64_t a, uint64_t b, uint64_t* out) noexcept {
  const u128 p = mul_64x64(a, b);
  *out = p.lo;
  return p.hi == 0;
}

// a + b, or false when the sum does not fit in 64 bits.
constexpr bool checked_add(uint64_t a, uint64_t b, uint64_t* out) noexcept {
  *out = a + b;
  return *out >= a;
}

// a + b, or false (and *out untouched) when the sum leaves the int64 range.
constexpr bool checked_add(int64_t a, int64_t b, int64_t* out) noexcept {
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return false;
  *out = a + b;
  return true;
}

// floor(sqrt(v)), exact for every 64-bit v (integer only: identical on every target).
[[nodiscard]] constexpr uint64_t isqrt64(uint64_t v) noexcept {
  // Two bits of v per step, from the top.
  uint64_t root = 0;
  uint64_t bit = uint64_t{1} << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

// Overwrite memory in a way the optimizer may not drop (key erasure): memset, then an empty asm that
// claims to read the memory, as explicit_bzero implementations do; a volatile loop elsewhere.
inline void secure_zero(void* p, std::size_t n) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  std::memset(p, 0, n);
  __asm__ __volatile__("" : : "r"(p) : "memory");
#else
  volatile unsigned char* v = static_cast<volatile unsigned char*>(p);
  while (n-- != 0) *v++ = 0;
#endif
}

}  // namespace ldp

#endif
