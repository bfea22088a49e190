// The exact discrete Gaussian sampler of Canonne, Kamath, Steinke 2020 (Algorithm 3), the server
// noise of the approximate-DP projection mechanism (docs/mechanisms.md C.3 step 2). P(Y = y) is
// proportional to exp(-y^2 / (2 sigma^2)) on the integers, for an integer variance parameter
// sigma^2 = sigma2. Every step is integer arithmetic on uniform words (lib/random samplers for the
// discrete Laplace proposal; 128-bit integers for the acceptance test), so the law is exact.
// Server-only: it needs 128-bit products, which Cortex-M devices never run here.
#ifndef LDP_SERVER_CENTRAL_DISCRETE_GAUSSIAN_H
#define LDP_SERVER_CENTRAL_DISCRETE_GAUSSIAN_H

#include <cstdint>

#include "ldp/base/int128.h"
#include "ldp/random/samplers.h"
#include "ldp/server/central/exact_sampling.h"
#include "ldp/wire/central_params.h"

namespace ldp::server {

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
  const uint64_t t = wire::isqrt64(sigma2) + 1;  // floor(sigma) + 1 <= 2^26 + 1
  const u128 denominator = [&] {
    const u128 p = mul_64x64(sigma2, t * t);  // < 2^52 * 2^54
    return u128{(p.hi << 1) | (p.lo >> 63), p.lo << 1};
  }();
  for (;;) {
    const int64_t y = random::discrete_laplace(rng, t, 1);
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
    if (detail::bern_exp_wide(rng, numerator, denominator)) return y;
  }
}

}  // namespace ldp::server

#endif
