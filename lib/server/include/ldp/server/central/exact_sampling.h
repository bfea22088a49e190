// Exact samplers the server needs beyond lib/random's (MECHANISMS.md D.1 "Exact primitives"): 128-bit
// integer arithmetic that runs on every target (32-bit ARM has no __int128), uniform integers and
// Bernoulli(exp(-a/b)) on it, and Bernoulli(65 / (24 e)), the piece that lets PrivateRange's
// exponential mechanism (C.2) weigh bins by powers of e with rational arithmetic alone. Used by the
// discrete Gaussian (C.3) and PrivateRange; server-only.
#ifndef LDP_SERVER_CENTRAL_EXACT_SAMPLING_H
#define LDP_SERVER_CENTRAL_EXACT_SAMPLING_H

#include <cstdint>

#include "ldp/base/bits.h"
#include "ldp/random/samplers.h"

namespace ldp::server::detail {

struct wide {
  uint64_t hi = 0;
  uint64_t lo = 0;
};

constexpr wide to_wide(u128 v) noexcept { return {v.hi, v.lo}; }
constexpr bool less(wide a, wide b) noexcept { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
constexpr bool is_zero(wide a) noexcept { return a.hi == 0 && a.lo == 0; }
constexpr wide minus(wide a, wide b) noexcept {  // a - b for b <= a
  return {a.hi - b.hi - (a.lo < b.lo ? 1 : 0), a.lo - b.lo};
}
constexpr wide plus(wide a, wide b) noexcept {  // a + b; callers keep it below 2^128
  return {a.hi + b.hi + (a.lo + b.lo < a.lo ? 1 : 0), a.lo + b.lo};
}
// a * k, or false when it needs more than 128 bits.
constexpr bool times(wide a, uint64_t k, wide* out) noexcept {
  const u128 low = mul_64x64(a.lo, k), high = mul_64x64(a.hi, k);
  uint64_t hi = 0;
  if (high.hi != 0 || !checked_add(high.lo, low.hi, &hi)) return false;
  *out = {hi, low.lo};
  return true;
}
// ceil(a / d) for 1 <= d < 2^32: long division in 32-bit digits, so every partial dividend fits 64 bits.
constexpr wide div_ceil(wide a, uint32_t d) noexcept {
  uint64_t r = a.hi % d;
  const uint64_t upper = (r << 32) | (a.lo >> 32);
  r = upper % d;
  const uint64_t lower = (r << 32) | (a.lo & 0xffffffffu);
  const wide q{a.hi / d, ((upper / d) << 32) | (lower / d)};
  return lower % d == 0 ? q : plus(q, {0, 1});
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

// N ~ Poisson(1) by rejection: propose k with probability 2^-(k+1) (fair coins until tails), accept
// with 2^(k-1) / k! = prod_{j=3..k} (2 / j) (1/2 at k = 0, 1 at k = 1, 2). The accepted k has
// probability proportional to 1 / k!, so no transcendental constant is ever evaluated.
template <class Rng>
uint64_t poisson_one(Rng& rng) noexcept {
  for (;;) {
    uint64_t k = 0;
    while (random::uniform_below(rng, 2) == 1) ++k;
    bool accept = k != 0 || random::uniform_below(rng, 2) == 1;
    for (uint64_t j = 3; accept && j <= k; ++j) accept = random::uniform_below64(rng, j) < 2;
    if (accept) return k;
  }
}

// Bernoulli(65 / (24 e)) = P(Poisson(1) <= 4), since 1 + 1 + 1/2 + 1/6 + 1/24 = 65/24. So
// exp(-1) = (24/65) * P(Poisson(1) <= 4): a rational factor and an exact event.
template <class Rng>
bool bern_65_over_24e(Rng& rng) noexcept {
  return poisson_one(rng) <= 4;
}

}  // namespace ldp::server::detail

#endif
