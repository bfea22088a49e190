// Exact samplers the server needs beyond lib/random's (docs/mechanisms.md D.1 "Exact primitives"): uniform
// integers and Bernoulli(exp(-a/b)) on 128-bit integers (ldp/base/int128.h, the same bits on every
// target), and Bernoulli(65 / (24 e)), the piece that lets PrivateRange's exponential mechanism (C.2)
// weigh bins by powers of e with rational arithmetic alone. Used by the discrete Gaussian (C.3) and
// PrivateRange; server-only.
#ifndef LDP_SERVER_CENTRAL_EXACT_SAMPLING_H
#define LDP_SERVER_CENTRAL_EXACT_SAMPLING_H

#include <cstdint>

#include "ldp/base/int128.h"
#include "ldp/random/samplers.h"

namespace ldp::server::detail {

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

// Bernoulli(exp(-a / b)) for b >= 1: random::bern_exp's algorithm (CKS 2020, Algorithm 1) on 128-bit
// integers.
template <class Rng>
bool bern_exp_wide(Rng& rng, u128 a, u128 b) noexcept {
  while (b < a) {
    if (!random::bern_exp(rng, 1, 1)) return false;
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
