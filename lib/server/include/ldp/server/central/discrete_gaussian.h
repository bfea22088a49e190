// The exact discrete Gaussian sampler of Canonne, Kamath, Steinke 2020 (Algorithm 3), the server
// noise of the approximate-DP projection mechanism (docs/mechanisms.md C.3 step 2). It lives in
// lib/random (ldp/random/discrete_gaussian.h) because the device's l2-ball proposal (B.6) draws from
// it too; the server names it here.
#ifndef LDP_SERVER_CENTRAL_DISCRETE_GAUSSIAN_H
#define LDP_SERVER_CENTRAL_DISCRETE_GAUSSIAN_H

#include "ldp/random/discrete_gaussian.h"

namespace ldp::server {

using random::discrete_gaussian;
using random::discrete_gaussian_max_sigma2;

}  // namespace ldp::server

#endif
