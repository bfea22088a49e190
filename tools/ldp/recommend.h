// The ranking `ldp mechanisms` prints (docs/cli.md "mechanisms"), for the command and the Python
// package's ldpkit.mechanisms (issue 13): server::recommend with the command's argument checks.
#ifndef LDP_TOOLS_RECOMMEND_H
#define LDP_TOOLS_RECOMMEND_H

#include <cstdint>
#include <string>
#include <vector>

#include "ldp/server/frequency.h"

namespace ldp::tools {

// The frequency oracles for (d, epsilon, n), best first. Throws cli_error naming the argument at
// fault, or when no oracle can be built.
std::vector<server::recommendation> ranked_oracles(uint32_t domain, double epsilon, uint64_t devices);

// The "parameters" column: "g=8" (BLH, OLH), "k=16 m=1024" (CMS, HCMS), "" (the others).
std::string recommendation_parameters(const server::recommendation& r);

}  // namespace ldp::tools

#endif
