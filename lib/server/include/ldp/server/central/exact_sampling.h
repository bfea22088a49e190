// Exact samplers the server needs beyond lib/random's (docs/mechanisms.md D.1 "Exact primitives"): uniform
// integers and Bernoulli(exp(-a/b)) on 128-bit integers (lib/random discrete_gaussian.h, the same bits
// on every target), and Bernoulli(65 / (24 e)), the piece that lets PrivateRange's exponential mechanism (C.2)
// weigh bins by powers of e with rational arithmetic alone. Used by the discrete Gaussian (C.3) and
// PrivateRange; server-only.
#ifndef LDP_SERVER_CENTRAL_EXACT_SAMPLING_H
#define LDP_SERVER_CENTRAL_EXACT_SAMPLING_H

#include <cstdint>

#include "ldp/base/int128.h"
#include "ldp/random/discrete_gaussian.h"
#include "ldp/random/samplers.h"

namespace ldp::server::detail {

// The 128-bit uniform and Bernoulli(exp(-a/b)) samplers (shared with the device's l2-ball proposal).
using random::bern_exp_wide;
using random::uniform_below_wide;

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
