// Umbrella header of ldp::base (docs/architecture.md, lib/base).
#ifndef LDP_BASE_H
#define LDP_BASE_H

#include "ldp/base/abort.h"
#include "ldp/base/bits.h"
#include "ldp/base/config.h"
#include "ldp/base/cpu_features.h"
#include "ldp/base/fixed_point.h"
#include "ldp/base/int128.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"

#endif
