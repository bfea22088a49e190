// Umbrella header of ldp::random (docs/architecture.md, lib/random).
#ifndef LDP_RANDOM_H
#define LDP_RANDOM_H

#include "ldp/random/bernoulli_mask.h"
#include "ldp/random/chacha20.h"
#include "ldp/random/drbg.h"
#include "ldp/random/projection.h"
#include "ldp/random/public_coin.h"
#include "ldp/random/samplers.h"

#endif
