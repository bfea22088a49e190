// Exact samplers on 128-bit integers (docs/mechanisms.md D.1 "Exact primitives"): uniform integers,
// Bernoulli(exp(-a/b)) and the discrete Gaussian of Canonne, Kamath, Steinke 2020 (Algorithm 3).
// Integer arithmetic on uniform words only (ldp/base/int128.h is portable C++, no __int128), so the
// law is exact and the bits are the same on every target: the server's projection mechanism
// (C.3) and the device's l2-ball proposal (B.6) draw from this one copy.
#ifndef LDP_RANDOM_DISCRETE_GAUSSIAN_H
#define LDP_RANDOM_DISCRETE_GAUSSIAN_H

#include <cstdint>

#include "ldp/base/bits.h"
#include "ldp/base/int128.h"
#include "ldp/random/samplers.h"

namespace ldp::random {

// Uniform in [0, n) for n >= 1: draws bit_length(n - 1) bits and rejects values >= n (fewer than two
// draws on average).
template <class Rng>
u128 uniform_below_wide(Rng& rng, u128 n) noexcept {
  const u128 top = n - u128{0, 1};
  unsigned bits = 0;
  for (uint64_t w = top.hi != 0 ? top.hi : top.lo; w != 0; w >>= 1) ++bits;
  if (top.hi != 0) bits += 64;
  for (;;) {
    u128 u;
    if (bits > 64) {
      u.lo = rng.next_u64();
      u.hi = bits == 128 ? rng.next_u64() : rng.next_u64() >> (128 - bits);
    } else if (bits > 0) {
      u.lo = rng.next_u64() >> (64 - bits);
    }
    if (u < n) return u;
  }
}

// Bernoulli(exp(-a / b)) for b >= 1: bern_exp's algorithm (CKS 2020, Algorithm 1) on 128-bit
// integers.
template <class Rng>
bool bern_exp_wide(Rng& rng, u128 a, u128 b) noexcept {
  while (b < a) {
    if (!bern_exp(rng, 1, 1)) return false;
    a = a - b;
  }
  uint64_t k = 1;
  for (;;) {
    u128 bk;
    // b * K beyond 2^128 needs K > 2^23 successes of Bernoulli(gamma / K) in a row: stopping there
    // changes the law by less than 1 / (2^23)!, far below anything observable.
    if (!checked_mul(b, k, &bk)) break;
    if (!(uniform_below_wide(rng, bk) < a)) break;
    ++k;
  }
  return (k & 1) != 0;
}

// The largest sigma2: sigma <= 2^26 keeps t = floor(sigma) + 1 below 2^27 and every product in
// the acceptance test below 2^128.
inline constexpr uint64_t discrete_gaussian_max_sigma2 = uint64_t{1} << 52;

// One draw from the discrete Gaussian N_Z(0, sigma2), 1 <= sigma2 <= discrete_gaussian_max_sigma2
// (callers check; other values return 0). CKS 2020 Algorithm 3: t = floor(sigma) + 1, propose
// Y ~ DLap(t), accept with probability exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2))
// = exp(-(|Y| t - sigma2)^2 / (2 sigma2 t^2)).
template <class Rng>
int64_t discrete_gaussian(Rng& rng, uint64_t sigma2) noexcept {
  if (sigma2 < 1 || sigma2 > discrete_gaussian_max_sigma2) return 0;
  const uint64_t t = isqrt64(sigma2) + 1;  // floor(sigma) + 1 <= 2^26 + 1
  const u128 denominator = [&] {
    const u128 p = mul_64x64(sigma2, t * t);  // < 2^52 * 2^54
    return u128{(p.hi << 1) | (p.lo >> 63), p.lo << 1};
  }();
  for (;;) {
    const int64_t y = discrete_laplace(rng, t, 1);
    const uint64_t magnitude = y < 0 ? 0 - static_cast<uint64_t>(y) : static_cast<uint64_t>(y);
    const u128 yt = mul_64x64(magnitude, t);
    // |Y| t - sigma2 in absolute value; at or beyond 2^64 the exponent exceeds 2^128 / 2^107 = 2^21
    // and the acceptance probability exp(-2^21) is indistinguishable from 0.
    u128 difference;
    if (yt.hi == 0 && yt.lo < sigma2) {
      difference = {0, sigma2 - yt.lo};
    } else {
      difference = yt - u128{0, sigma2};
    }
    if (difference.hi != 0) continue;
    const u128 numerator = mul_64x64(difference.lo, difference.lo);
    if (bern_exp_wide(rng, numerator, denominator)) return y;
  }
}

}  // namespace ldp::random

#endif
