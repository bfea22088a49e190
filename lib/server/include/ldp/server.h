// Umbrella header of ldp::server, the server half of ldpkit (docs/architecture.md, lib/server).
#ifndef LDP_SERVER_H
#define LDP_SERVER_H

#include "ldp/server/bernstein.h"
#include "ldp/server/central.h"
#include "ldp/server/distribution.h"
#include "ldp/server/frequency.h"
#include "ldp/server/glm.h"
#include "ldp/server/kent_sparse.h"
#include "ldp/server/kent_support.h"
#include "ldp/server/marginals.h"
#include "ldp/server/mean.h"
#include "ldp/server/public_coin.h"
#include "ldp/server/string_discovery.h"
#include "ldp/server/threads.h"
#include "ldp/server/unit_vector.h"
#include "ldp/server/user_level.h"
#include "ldp/server/vector_mean.h"

#endif
