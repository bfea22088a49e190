// Server side of Kent M4a's support vote (docs/mechanisms.md C.1 P4 and M4): the aggregator of
// kent-support reports and the selection of the support from its scores.
//
// The aggregator (aggregator::create on a kent-support block) holds every report's (seed, Z): the
// public signs R_i of report i are a function of its seed (device/kent_support.h), so the scores
// need them all. Saved state (docs/wire_format.md 7.6): the (seed, Z) pairs sorted, 16 bytes each
// (u64 seed, i64 Z, little endian), which is a function of the set of reports alone, so merging
// in any order and any split gives the same bytes. estimate_all() lists the d coordinates:
// - value S_j = (1/n) sum_i R_ij Z_i: unbiased for the fraction of voters with V_ij = 1, averaged
//   over the public signs (E[R_ij R_ik] = 0 for k != j, E[R_ij N_i] = 0);
// - variance (1/n^2) sum_i (s'_i - V_ij + sigma_N^2), s'_i the voter's marked count and sigma_N^2
//   the implemented discrete Laplace variance: each voter's R_ij Z_i has E[(R_ij Z_i)^2] =
//   E[Z_i^2] = s'_i + sigma_N^2 and mean V_ij (binary, so V_ij^2 = V_ij). The server estimates it by
//   (mean of Z_i^2 - S_j) / n, at least sigma_N^2 / n: kind `average` (over the public signs, which
//   the server knows but does not condition on; conditionally on them the hash collisions
//   sum_{k != j} R_ij R_ik V_ik are a bias, not noise). This is the open point of C.1 measured:
//   the per-voter variance is s' - V + sigma_N^2, about s + 8 s^2 / alpha^2, not s.
// Cost of estimate_all: one ChaCha20 row of d signs per report and n d / 2 additions on average.
#ifndef LDP_SERVER_KENT_SUPPORT_H
#define LDP_SERVER_KENT_SUPPORT_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/server/aggregator.h"

namespace ldp::server {

// The selected support [C.1 M4a step 3, impl]: the coordinates with S_j >= bar (the paper's 1/2),
// at most s of them, those of the largest S_j (ties to the lower index; the paper keeps the first
// s by index), in increasing coordinate order. Scores with a NaN value are never selected.
[[nodiscard]] std::vector<uint32_t> select_support(span<const estimate> scores, uint32_t s, double bar = 0.5);

// Whether m's reports are counted by the kent-support aggregator.
[[nodiscard]] bool is_kent_support_mechanism(wire::mechanism m) noexcept;

}  // namespace ldp::server

#endif
