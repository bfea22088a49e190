// Exact samplers on integers (docs/mechanisms.md D.1 "Exact primitives", B.1). Each is exact given
// uniform random words: no floating point, no truncated supports. They take any generator with
// next_u32() and next_u64() (the drbg, or a test double), so the same code is audited and shipped.
#ifndef LDP_RANDOM_SAMPLERS_H
#define LDP_RANDOM_SAMPLERS_H

#include <cstdint>

#include "ldp/base/bits.h"

namespace ldp::random {

// Uniform in [0, n) by Lemire's multiply-and-reject (ACM TOMACS 2019). n == 0 returns 0.
template <class Rng>
uint32_t uniform_below(Rng& rng, uint32_t n) noexcept {
  if (n == 0) return 0;
  uint64_t m = uint64_t{rng.next_u32()} * n;
  if (static_cast<uint32_t>(m) < n) {
    const uint32_t reject_below = static_cast<uint32_t>(-n) % n;  // 2^32 mod n
    while (static_cast<uint32_t>(m) < reject_below) m = uint64_t{rng.next_u32()} * n;
  }
  return static_cast<uint32_t>(m >> 32);
}

// Uniform in [0, n) for 64-bit n, the same method with a 128-bit product. n == 0 returns 0.
template <class Rng>
uint64_t uniform_below64(Rng& rng, uint64_t n) noexcept {
  if (n == 0) return 0;
  if (n <= UINT32_MAX) return uniform_below(rng, static_cast<uint32_t>(n));
  u128 m = mul_64x64(rng.next_u64(), n);
  if (m.lo < n) {
    const uint64_t reject_below = (0 - n) % n;  // 2^64 mod n
    while (m.lo < reject_below) m = mul_64x64(rng.next_u64(), n);
  }
  return m.hi;
}

// Bernoulli(threshold / 2^bits) as [u < threshold] for a fresh uniform bits-bit u; 1 <= bits <= 63
// and threshold <= 2^bits (2^bits is certain). bits == 32 reads one 32-bit word.
template <class Rng>
bool bernoulli(Rng& rng, uint64_t threshold, unsigned bits = 32) noexcept {
  if (bits <= 32) return (uint64_t{rng.next_u32()} >> (32 - bits)) < threshold;
  return (rng.next_u64() >> (64 - bits)) < threshold;
}

// Bernoulli(exp(-a / b)) for integers a >= 0, b >= 1 (Canonne, Kamath, Steinke 2020, Algorithm 1).
template <class Rng>
bool bern_exp(Rng& rng, uint64_t a, uint64_t b) noexcept {
  // exp(-a/b) = exp(-1)^floor(a/b) * exp(-(a mod b)/b): one Bernoulli(exp(-1)) per whole unit.
  while (a > b) {
    if (!bern_exp(rng, 1, 1)) return false;
    a -= b;
  }
  // gamma = a/b in [0, 1]: K is the first index with Bernoulli(gamma/K) = 0; exp(-gamma) = P(K odd).
  uint64_t k = 1;
  for (;;) {
    uint64_t bk = 0;
    // b*K overflowing needs K > 2^32 successes in a row, probability below 1/(2^32)!; stopping there
    // is indistinguishable from exact.
    if (!checked_mul(b, k, &bk)) break;
    if (uniform_below64(rng, bk) >= a) break;
    ++k;
  }
  return (k & 1) != 0;
}

// Geometric: P(Y = y) = (1 - e^{-1/t}) e^{-y/t} for y = 0, 1, ..., with rational scale
// t = t_num / t_den (t_num, t_den >= 1), by CKS 2020 Algorithm 2 without the sign.
template <class Rng>
uint64_t geometric(Rng& rng, uint64_t t_num, uint64_t t_den) noexcept {
  for (;;) {
    const uint64_t u = uniform_below64(rng, t_num);
    if (!bern_exp(rng, u, t_num)) continue;
    uint64_t v = 0;
    while (bern_exp(rng, 1, 1)) ++v;
    // x = u + t_num * v is geometric with parameter e^{-1/t_num}; floor(x / t_den) rescales it.
    // Overflow needs v near 2^64 / t_num, probability below e^{-2^31} for t_num < 2^32: resample.
    uint64_t x = 0;
    if (!checked_mul(t_num, v, &x) || !checked_add(x, u, &x)) continue;
    return x / t_den;
  }
}

// Discrete Laplace: P(Y = y) proportional to e^{-|y|/t}, y in Z, t = t_num / t_den (docs/mechanisms.md
// B.1). Rejecting (negative, 0) keeps zero from being counted twice.
template <class Rng>
int64_t discrete_laplace(Rng& rng, uint64_t t_num, uint64_t t_den) noexcept {
  for (;;) {
    const uint64_t y = geometric(rng, t_num, t_den);
    const bool negative = (rng.next_u32() & 1) != 0;
    if (negative && y == 0) continue;
    // |Y| above 2^63 would need about 2^63 / t units of tail mass; saturate instead of wrapping.
    const int64_t magnitude = y > uint64_t{INT64_MAX} ? INT64_MAX : static_cast<int64_t>(y);
    return negative ? -magnitude : magnitude;
  }
}

}  // namespace ldp::random

#endif
