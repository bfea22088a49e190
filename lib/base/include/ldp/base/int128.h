// 128-bit integers in two 64-bit limbs, the one such type of ldpkit: u128 (unsigned) and i128 (two's
// complement). Portable C++17: no __int128, which 32-bit targets (armhf, riscv32, Cortex-M) and MSVC
// lack, so every target computes the same bits. Used by exact products (mul_64x64), the server's
// exact sums of int64 values and its exact samplers (docs/mechanisms.md D.1 "Exact primitives").
#ifndef LDP_BASE_INT128_H
#define LDP_BASE_INT128_H

#include <cmath>
#include <cstdint>
#include <limits>

namespace ldp {

struct u128 {
  uint64_t hi = 0;
  uint64_t lo = 0;
};

constexpr bool operator==(u128 a, u128 b) noexcept { return a.hi == b.hi && a.lo == b.lo; }
constexpr bool operator!=(u128 a, u128 b) noexcept { return !(a == b); }
constexpr bool operator<(u128 a, u128 b) noexcept { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
// Modulo 2^128 (callers that need exact results keep them in range).
constexpr u128 operator+(u128 a, u128 b) noexcept { return {a.hi + b.hi + (a.lo + b.lo < a.lo ? 1 : 0), a.lo + b.lo}; }
constexpr u128 operator-(u128 a, u128 b) noexcept { return {a.hi - b.hi - (a.lo < b.lo ? 1 : 0), a.lo - b.lo}; }

// Full 128-bit product of two 64-bit words.
constexpr u128 mul_64x64(uint64_t a, uint64_t b) noexcept {
#if defined(__SIZEOF_INT128__)
  __extension__ typedef unsigned __int128 wide;  // __extension__: not ISO C++, but exact and fast
  const wide p = static_cast<wide>(a) * b;
  return {static_cast<uint64_t>(p >> 64), static_cast<uint64_t>(p)};
#else
  const uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32, b_lo = b & 0xffffffffu, b_hi = b >> 32;
  const uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
  const uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  return {hh + (lh >> 32) + (hl >> 32) + (mid >> 32), (mid << 32) | (ll & 0xffffffffu)};
#endif
}

// a * k, or false when it needs more than 128 bits.
constexpr bool checked_mul(u128 a, uint64_t k, u128* out) noexcept {
  const u128 low = mul_64x64(a.lo, k), high = mul_64x64(a.hi, k);
  const uint64_t hi = high.lo + low.hi;
  if (high.hi != 0 || hi < high.lo) return false;
  *out = {hi, low.lo};
  return true;
}

// ceil(a / d) for 1 <= d < 2^32: long division in 32-bit digits, so every partial dividend fits 64 bits.
constexpr u128 div_ceil(u128 a, uint32_t d) noexcept {
  uint64_t r = a.hi % d;
  const uint64_t upper = (r << 32) | (a.lo >> 32);
  r = upper % d;
  const uint64_t lower = (r << 32) | (a.lo & 0xffffffffu);
  const u128 q{a.hi / d, ((upper / d) << 32) | (lower / d)};
  return lower % d == 0 ? q : q + u128{0, 1};
}

// floor(n / d) and the remainder, for n.hi < d (the quotient fits in 64 bits): binary long
// division, one quotient bit per step.
constexpr uint64_t div_rem(u128 n, uint64_t d, uint64_t* remainder) noexcept {
  uint64_t q = 0, r = n.hi;
  for (int i = 63; i >= 0; --i) {
    const bool carry = (r >> 63) != 0;  // r << 1 passes 2^64, hence d
    r = (r << 1) | ((n.lo >> i) & 1u);
    q <<= 1;
    if (carry || r >= d) {
      r -= d;
      q |= 1;
    }
  }
  *remainder = r;
  return q;
}

// The number of significant bits of a (0 for 0).
constexpr int bit_length(u128 a) noexcept {
  int n = 0;
  for (uint64_t w = a.hi != 0 ? a.hi : a.lo; w != 0; w >>= 1) ++n;
  return a.hi != 0 ? n + 64 : n;
}

// a shifted by 0 <= k < 128 bits.
constexpr u128 operator>>(u128 a, int k) noexcept {
  if (k == 0) return a;
  if (k >= 64) return {0, a.hi >> (k - 64)};
  return {a.hi >> k, (a.lo >> k) | (a.hi << (64 - k))};
}
constexpr u128 operator<<(u128 a, int k) noexcept {
  if (k == 0) return a;
  if (k >= 64) return {a.lo << (k - 64), 0};
  return {(a.hi << k) | (a.lo >> (64 - k)), a.lo << k};
}

// a rounded once to the nearest Float, ties to even (what a conversion from a native 128-bit
// integer does): the integer is rounded to Float's mantissa width first, so the two conversions
// and the sum below are exact.
template <class Float>
Float to_nearest(u128 a) noexcept {
  const int excess = bit_length(a) - std::numeric_limits<Float>::digits;
  const int k = excess > 0 ? excess : 0;
  u128 top = a >> k;
  if (k > 0) {
    const u128 rest = a - (top << k), half = u128{0, 1} << (k - 1);
    if (half < rest || (rest == half && (top.lo & 1u) != 0)) top = top + u128{0, 1};
  }
  const Float v = std::ldexp(static_cast<Float>(top.hi), 64) + static_cast<Float>(top.lo);
  return std::ldexp(v, k);
}

// Two's complement over the 128 bits: value = hi 2^64 + lo - [hi >= 2^63] 2^128.
struct i128 {
  uint64_t hi = 0;
  uint64_t lo = 0;
};

constexpr i128 to_i128(int64_t v) noexcept { return {v < 0 ? ~uint64_t{0} : 0, static_cast<uint64_t>(v)}; }
// Modulo 2^128, as the unsigned limbs.
constexpr i128 operator+(i128 a, i128 b) noexcept { return {a.hi + b.hi + (a.lo + b.lo < a.lo ? 1 : 0), a.lo + b.lo}; }
constexpr i128 operator-(i128 a, i128 b) noexcept { return {a.hi - b.hi - (a.lo < b.lo ? 1 : 0), a.lo - b.lo}; }
constexpr i128& operator+=(i128& a, i128 b) noexcept { return a = a + b; }
constexpr bool is_negative(i128 a) noexcept { return (a.hi >> 63) != 0; }
// |a| (exact for every value but -2^127, which maps to itself).
constexpr u128 magnitude(i128 a) noexcept {
  const i128 m = is_negative(a) ? i128{} - a : a;
  return {m.hi, m.lo};
}
// The nearest-ish double (one rounding per limb, then one for the sum: relative error < 2^-51).
inline double to_double(i128 a) noexcept {
  const u128 m = magnitude(a);
  const double v = std::ldexp(static_cast<double>(m.hi), 64) + static_cast<double>(m.lo);
  return is_negative(a) ? -v : v;
}

// a rounded once to the nearest long double, ties to even (the host tool's exact means).
inline long double to_long_double(i128 a) noexcept {
  const long double v = to_nearest<long double>(magnitude(a));
  return is_negative(a) ? -v : v;
}

}  // namespace ldp

#endif
