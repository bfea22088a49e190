// Umbrella header of ldp::device (docs/architecture.md, lib/device): the randomizers.
#ifndef LDP_DEVICE_H
#define LDP_DEVICE_H

#include "ldp/device/bernstein.h"
#include "ldp/device/coins.h"
#include "ldp/device/context.h"
#include "ldp/device/distribution.h"
#include "ldp/device/frequency.h"
#include "ldp/device/glm.h"
#include "ldp/device/gradient.h"
#include "ldp/device/kent_support.h"
#include "ldp/device/kway_marginals.h"
#include "ldp/device/ledger.h"
#include "ldp/device/ledger_report.h"
#include "ldp/device/mean.h"
#include "ldp/device/memo.h"
#include "ldp/device/memo_key.h"
#include "ldp/device/projected_unit.h"
#include "ldp/device/public_coin.h"
#include "ldp/device/smooth_queries.h"
#include "ldp/device/sparse_projection.h"
#include "ldp/device/string.h"
#include "ldp/device/unit_vector.h"
#include "ldp/device/user_level.h"
#include "ldp/device/vector_mean.h"
#include "ldp/device/winsorized.h"

#endif
