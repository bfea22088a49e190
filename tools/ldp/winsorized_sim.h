// ldp simulate --mechanism winsorized-mean (docs/cli.md "winsorized-mean"): Levy et al.'s user-level
// mean with a trusted aggregator (docs/mechanisms.md C.2), WinsorizedMeanHighD in the two rounds that
// need only sums, --queries K times over the same users (Thm 3's session, winsorized_session.h).
// Every user holds m samples of a d-vector. Per query q: a fresh rotation (signs from
// --public-seed, index q); round 1 (winsorized-bins) is aggregated in memory; the server's
// PrivateRange, drawing from derive_seed(--seed, server_noise, q), picks a window per rotated
// coordinate (--window safe +-3 tau or paper +-2 tau); the same users run round 2
// (winsorized-sums) against the broadcast window list; the server releases the mean with discrete
// Laplace noise and the inverse rotation from the release seed release_seed_of(--seed, q)
// (central_release.h, the path ldp estimate takes on a saved round-2 state). Written: round 2's
// batch (--out), and with the options round 1's (--round1-out), the window list (--windows-out),
// each with ".query<q>" for K > 1, and the releases as ldp estimate's JSON (--release-out).
#ifndef LDP_TOOLS_WINSORIZED_SIM_H
#define LDP_TOOLS_WINSORIZED_SIM_H

#include "mechanism_options.h"
#include "user_level_sim.h"

namespace ldp::tools {

void simulate_winsorized(const mechanism_options& m, const user_level_run& r);

}  // namespace ldp::tools

#endif
