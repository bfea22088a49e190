// The trusted-aggregator (central DP) mechanisms in the tool (docs/cli.md "Central DP"):
// sparse-projection (MECHANISMS.md C.3) and winsorized-mean (C.2). Their devices add no noise, so a
// state holds exact sums and the aggregator's own estimates are the exact, NOT private, means. The
// tool prints only the server's release: for a sparse-vector state `ldp estimate` runs it with a
// server DRBG from --release-seed; winsorized-mean releases inside `ldp simulate`, the one place
// that holds round 1, the window list and round 2 together.
#ifndef LDP_TOOLS_CENTRAL_RELEASE_H
#define LDP_TOOLS_CENTRAL_RELEASE_H

#include <cstdint>
#include <vector>

#include "estimates.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/mechanism.h"

namespace ldp::tools {

bool is_central(wire::mechanism m);

// z with P(|Z| <= z) = confidence for a standard normal Z.
double normal_z(double confidence);

// One estimate per coordinate: the released value, the variance of the noise and the interval
// value +- z sd (the noise's; it does not cover a clipping or projection bias).
std::vector<server::estimate> noise_estimates(const std::vector<double>& values, double variance, double confidence);

struct sparse_release_request {
  double epsilon = 0;
  double delta = 0;  // 0: pure DP (discrete Laplace), else the discrete Gaussian
  uint64_t seed = 0;  // the server DRBG is derive_seed(seed, server_noise, 0)
};

// server::release_sparse_mean on a sparse-vector state: the mean projected onto the l1 ball per
// coordinate, with the unprojected noise's variance (projection never increases the l2 error when
// the true mean is in the ball, as it is). Throws cli_error naming the option at fault.
estimate_report sparse_release_report(const server::aggregator& agg, const sparse_release_request& q,
                                      double confidence, std::size_t top);

}  // namespace ldp::tools

#endif
