// ldp simulate --mechanism winsorized-mean (docs/cli.md "winsorized-mean"): Levy et al.'s user-level
// mean with a trusted aggregator (MECHANISMS.md C.2), WinsorizedMeanHighD in the two rounds that
// need only sums. Every user holds m samples of a d-vector; round 1 (winsorized-bins) is aggregated
// in memory, the server's PrivateRange picks a window per rotated coordinate (window_rule::safe,
// +-3 tau), the same users run round 2 (winsorized-sums) against the broadcast window list, and the
// server releases the mean with discrete Laplace noise and the inverse rotation, its DRBG seeded
// from --seed (seeding.h purpose server_noise) and shared by the window selection and the release
// as in the one-shot form. The batch written is round 2's; the release is printed and, with
// --release-out, written as the JSON object of ldp estimate.
#ifndef LDP_TOOLS_WINSORIZED_SIM_H
#define LDP_TOOLS_WINSORIZED_SIM_H

#include "mechanism_options.h"
#include "user_level_sim.h"

namespace ldp::tools {

void simulate_winsorized(const mechanism_options& m, const user_level_run& r);

}  // namespace ldp::tools

#endif
