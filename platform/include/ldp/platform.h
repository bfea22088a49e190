// Umbrella header of ldp::platform (docs/architecture.md, platform/). Depends on ldp::base only; device
// code never calls it: randomness and CPU features are passed in by the application.
#ifndef LDP_PLATFORM_H
#define LDP_PLATFORM_H

#include "ldp/platform/cpu.h"
#include "ldp/platform/entropy.h"

#endif
