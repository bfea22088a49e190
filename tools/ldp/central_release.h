// The trusted-aggregator (central DP) mechanisms in the tool (docs/cli.md "Central DP"):
// sparse-projection (docs/mechanisms.md C.3) and winsorized-mean (C.2). Their devices add no noise, so a
// state holds exact sums and the aggregator's own estimates are the exact, NOT private, means. The
// tool prints only the server's release, drawn from a server DRBG seeded by a release seed: `ldp
// estimate` runs it on a sparse-projection or winsorized-sums state (round 2, which carries its window
// list), `ldp simulate --mechanism winsorized-mean` on each query's round 2 in memory; the same
// state and release seed give the same release either way. A winsorized-bins state (round 1) has
// no release: its exact histograms only choose the windows.
#ifndef LDP_TOOLS_CENTRAL_RELEASE_H
#define LDP_TOOLS_CENTRAL_RELEASE_H

#include <cstdint>
#include <string>
#include <vector>

#include "estimates.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/mechanism.h"

namespace ldp::tools {

// Whether m is produced by a central-DP tool mechanism (mechanism_options.h is_central of its input).
bool is_central(wire::mechanism m);

// z with P(|Z| <= z) = confidence for a standard normal Z.
double normal_z(double confidence);

// One estimate per coordinate: the released value, the variance of the noise and the interval
// value +- z sd (the noise's; it does not cover a clipping or projection bias), of the given kind.
std::vector<server::estimate> noise_estimates(const std::vector<double>& values, double variance, double confidence,
                                              server::variance_kind kind);

struct release_request {
  double epsilon = 0;
  double delta = 0;   // 0: pure DP
  uint64_t seed = 0;  // the server DRBG is derive_seed(seed, server_noise, 0)
  // winsorized-sums: the session the state's query belongs to, and n of its round 1 (0: the state's
  // reports; missing users count as their window's midpoint).
  uint32_t queries = 1;
  std::string budget = "tight";
  uint64_t users = 0;
};

// server::release_sparse_mean on a sparse-projection state: the mean projected onto the l1 ball per
// coordinate (the discrete Laplace for delta 0, else the discrete Gaussian), with the unprojected
// noise's variance (projection never increases the l2 error when the true mean is in the ball, as
// it is). Throws cli_error naming the option at fault.
estimate_report sparse_release_report(const server::aggregator& agg, const release_request& q, double confidence,
                                      std::size_t top);

// server::release_winsorized_mean on a winsorized-sums state, one query of a session of q.queries
// (winsorized_session.h): discrete Laplace noise at epsilon'/2 per rotated coordinate, rotated back.
// The reported loss is the whole session's, with the window selection of every query counted at
// PrivateRange's level for epsilon'/2 (the state cannot show it: round 1 must have used the same
// options). Throws cli_error naming the option at fault.
estimate_report winsorized_release_report(const server::aggregator& agg, const release_request& q, double confidence,
                                          std::size_t top);

}  // namespace ldp::tools

#endif
