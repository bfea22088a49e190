// The exact discrete Gaussian sampler of Canonne, Kamath, Steinke 2020 (Algorithm 3), the server
// noise of the approximate-DP projection mechanism (MECHANISMS.md C.3 step 2). P(Y = y) is
// proportional to exp(-y^2 / (2 sigma^2)) on the integers, for an integer variance parameter
// sigma^2 = sigma2. Every step is integer arithmetic on uniform words (lib/random samplers for the
// discrete Laplace proposal; 128-bit integers for the acceptance test), so the law is exact.
// Server-only: it needs 128-bit products, which Cortex-M devices never run here.
#ifndef LDP_SERVER_DISCRETE_GAUSSIAN_H
#define LDP_SERVER_DISCRETE_GAUSSIAN_H

#include <cstdint>

#include "ldp/base/bits.h"
#include "ldp/random/samplers.h"
#include "ldp/wire/central_params.h"

namespace ldp::server {

// The largest sigma2: sigma <= 2^26 keeps t = floor(sigma) + 1 below 2^27 and every product in
// the acceptance test below 2^128.
inline constexpr uint64_t discrete_gaussian_max_sigma2 = uint64_t{1} << 52;

namespace detail {

// Just enough unsigned 128-bit arithmetic for the acceptance test, on every target (32-bit ARM has
// no __int128).
struct wide {
  uint64_t hi = 0;
  uint64_t lo = 0;
};

constexpr wide to_wide(u128 v) noexcept { return {v.hi, v.lo}; }
constexpr bool less(wide a, wide b) noexcept { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
constexpr wide minus(wide a, wide b) noexcept {  // a - b for b <= a
  return {a.hi - b.hi - (a.lo < b.lo ? 1 : 0), a.lo - b.lo};
}
// a * k, or false when it needs more than 128 bits.
constexpr bool times(wide a, uint64_t k, wide* out) noexcept {
  const u128 low = mul_64x64(a.lo, k), high = mul_64x64(a.hi, k);
  uint64_t hi = 0;
  if (high.hi != 0 || !checked_add(high.lo, low.hi, &hi)) return false;
  *out = {hi, low.lo};
  return true;
}

// Uniform in [0, n) for n >= 1: draws bit_length(n - 1) bits and rejects values >= n (fewer than two
// draws on average).
template <class Rng>
wide uniform_below_wide(Rng& rng, wide n) noexcept {
  const wide top = minus(n, {0, 1});
  unsigned bits = 0;
  for (uint64_t w = top.hi != 0 ? top.hi : top.lo; w != 0; w >>= 1) ++bits;
  if (top.hi != 0) bits += 64;
  for (;;) {
    wide u;
    if (bits > 64) {
      u.lo = rng.next_u64();
      u.hi = bits == 128 ? rng.next_u64() : rng.next_u64() >> (128 - bits);
    } else if (bits > 0) {
      u.lo = rng.next_u64() >> (64 - bits);
    }
    if (less(u, n)) return u;
  }
}

// Bernoulli(exp(-a / b)) for b >= 1: random::bern_exp's algorithm (CKS 2020, Algorithm 1) on 128-bit
// integers.
template <class Rng>
bool bern_exp_wide(Rng& rng, wide a, wide b) noexcept {
  while (less(b, a)) {
    if (!random::bern_exp(rng, 1, 1)) return false;
    a = minus(a, b);
  }
  uint64_t k = 1;
  for (;;) {
    wide bk;
    // b * K beyond 2^128 needs K > 2^23 successes of Bernoulli(gamma / K) in a row: stopping there
    // changes the law by less than 1 / (2^23)!, far below anything observable.
    if (!times(b, k, &bk)) break;
    if (!less(uniform_below_wide(rng, bk), a)) break;
    ++k;
  }
  return (k & 1) != 0;
}

}  // namespace detail

// One draw from the discrete Gaussian N_Z(0, sigma2), 1 <= sigma2 <= discrete_gaussian_max_sigma2
// (callers check; other values return 0). CKS 2020 Algorithm 3: t = floor(sigma) + 1, propose
// Y ~ DLap(t), accept with probability exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2))
// = exp(-(|Y| t - sigma2)^2 / (2 sigma2 t^2)).
template <class Rng>
int64_t discrete_gaussian(Rng& rng, uint64_t sigma2) noexcept {
  if (sigma2 < 1 || sigma2 > discrete_gaussian_max_sigma2) return 0;
  const uint64_t t = wire::isqrt64(sigma2) + 1;  // floor(sigma) + 1 <= 2^26 + 1
  const detail::wide denominator = [&] {
    const u128 p = mul_64x64(sigma2, t * t);  // < 2^52 * 2^54
    return detail::wide{(p.hi << 1) | (p.lo >> 63), p.lo << 1};
  }();
  for (;;) {
    const int64_t y = random::discrete_laplace(rng, t, 1);
    const uint64_t magnitude = y < 0 ? 0 - static_cast<uint64_t>(y) : static_cast<uint64_t>(y);
    const u128 yt = mul_64x64(magnitude, t);
    // |Y| t - sigma2 in absolute value; at or beyond 2^64 the exponent exceeds 2^128 / 2^107 = 2^21
    // and the acceptance probability exp(-2^21) is indistinguishable from 0.
    detail::wide difference;
    if (yt.hi == 0 && yt.lo < sigma2) {
      difference = {0, sigma2 - yt.lo};
    } else {
      difference = detail::minus(detail::to_wide(yt), {0, sigma2});
    }
    if (difference.hi != 0) continue;
    const detail::wide numerator = detail::to_wide(mul_64x64(difference.lo, difference.lo));
    if (detail::bern_exp_wide(rng, numerator, denominator)) return y;
  }
}

}  // namespace ldp::server

#endif
