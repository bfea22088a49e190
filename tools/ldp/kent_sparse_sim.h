// ldp simulate --mechanism kent --sparse s (docs/cli.md "kent with --sparse"): Kent M4, the s-sparse
// mean of d coordinates (docs/mechanisms.md C.1 M4), driven by server::kent_sparse_protocol. M4a:
// the first half of the users vote with kent-support (their batch in --round1-out when given), the
// server selects the support and the other half runs M2 on it; M4b: M2 on all coordinates, then
// the hard threshold. The M2 folds' round-2 batches go to --out with ".fold<f>" (f the fold, not the
// coordinate), the d estimates are printed and written to --release-out as ldp estimate's JSON.
#ifndef LDP_TOOLS_KENT_SPARSE_SIM_H
#define LDP_TOOLS_KENT_SPARSE_SIM_H

#include "mechanism_options.h"
#include "user_level_sim.h"

namespace ldp::tools {

void simulate_kent_sparse(const mechanism_options& m, const user_level_run& r, const tool_mechanism& mech, double lo,
                          double hi);

}  // namespace ldp::tools

#endif
