// Umbrella header of the central-DP half of ldp::server (docs/mechanisms.md C): the server alone holds
// the data and adds the noise. The projection mechanism (C.3) with its l1 projection and discrete
// Gaussian, Levy et al.'s winsorized means with PrivateRange and their budget (C.2), and the exact
// samplers both use (D.1). A folder inside ldp::server, not a module of its own: its aggregators
// derive from server::aggregator and are created through the server's family registry.
#ifndef LDP_SERVER_CENTRAL_H
#define LDP_SERVER_CENTRAL_H

#include "ldp/server/central/discrete_gaussian.h"
#include "ldp/server/central/exact_sampling.h"
#include "ldp/server/central/l1_projection.h"
#include "ldp/server/central/sparse_projection.h"
#include "ldp/server/central/winsorized.h"
#include "ldp/server/central/winsorized_queries.h"

#endif
