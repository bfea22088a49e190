// Umbrella header of ldp::server, the server half of ldpkit (ARCHITECTURE.md, lib/server).
#ifndef LDP_SERVER_H
#define LDP_SERVER_H

#include "ldp/server/frequency.h"
#include "ldp/server/vector_mean.h"
#include "ldp/server/mean.h"
#include "ldp/server/l1_projection.h"
#include "ldp/server/sparse_projection.h"
#include "ldp/server/winsorized.h"
#include "ldp/server/user_level.h"

#endif
