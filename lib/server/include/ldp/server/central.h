// Umbrella header of the central-DP half of ldp::server (docs/mechanisms.md C and I): the server alone
// holds the data and adds the noise. The projection mechanism (C.3) with its l1 projection and discrete
// Gaussian, Levy et al.'s winsorized means with PrivateRange and their budget (C.2), the exact
// samplers they use (D.1), and the private-training drivers with their accountant (chapter I: DP-SGD,
// Levy et al.'s Algs 3-5, Ghazi et al.'s Algs 2-7). A folder inside ldp::server, not a module of its
// own: its aggregators derive from server::aggregator and are created through the server's family
// registry.
#ifndef LDP_SERVER_CENTRAL_H
#define LDP_SERVER_CENTRAL_H

#include "ldp/server/central/accountant.h"
#include "ldp/server/central/compressed_sensing.h"
#include "ldp/server/central/discrete_gaussian.h"
#include "ldp/server/central/dp_sgd.h"
#include "ldp/server/central/exact_sampling.h"
#include "ldp/server/central/ghazi_sgd.h"
#include "ldp/server/central/l1_projection.h"
#include "ldp/server/central/l2_projection.h"
#include "ldp/server/central/levy_training.h"
#include "ldp/server/central/output_perturbation.h"
#include "ldp/server/central/sparse_net.h"
#include "ldp/server/central/sparse_projection.h"
#include "ldp/server/central/winsorized.h"
#include "ldp/server/central/winsorized_queries.h"

#endif
