// The server's half of ProjUnit and FastProjUnit (docs/mechanisms.md B.8): a report's k coordinates q
// lifted back to d dimensions, G^T q for the W = G / sqrt(k) its seed names (random/projection.h),
// exactly in integers, and the constants of the estimate. unit_vector.cpp's aggregator sums the
// lifted vectors as it sums l2-ball's and PrivUnitG's reports.
//
// Cost per report: ProjUnit regenerates G, k d sign bits (k d / 512 ChaCha20 blocks) and k d
// additions, O(k d); FastProjUnit draws d~ selection coins, one int32 FWHT and d~ signs, O(d~ log d~).
#ifndef LDP_SERVER_SRC_PROJECTED_UNIT_H
#define LDP_SERVER_SRC_PROJECTED_UNIT_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/params.h"

namespace ldp::server::detail {

class projection_lift {
 public:
  // Inactive (lift() is never called) for a block that is not projunit or fastprojunit.
  explicit projection_lift(const wire::params& p);

  bool active() const noexcept { return k_ != 0; }

  // out = G^T q (out: the block's d values; q: its k). |out_i| <= k (2^15 - 1) < 2^31.
  status lift(uint64_t seed, span<const int64_t> q, span<int64_t> out) noexcept;

 private:
  bool fast_ = false;
  uint32_t k_ = 0;
  std::vector<uint32_t> signs_;  // a row of G, or D
  std::vector<int32_t> padded_;  // FastProjUnit's d~ values
};

// The bound on |S_i| after n reports: n (2^15 - 1) times k for a projected block, else times 1.
[[nodiscard]] uint64_t lifted_coordinate_max(const wire::params& p) noexcept;

// 1 / sqrt(k) for a projected block (W = G / sqrt(k)), else 1: the estimate's factor on top of B.
[[nodiscard]] double lift_scale(const wire::params& p) noexcept;

// B.8's trace T = (d/k)(k - 1 + along) + (along - 1)(1 - rho) of a projected block (rho = d / d~ for
// FastProjUnit, 0 for ProjUnit), along PrivUnitG's second moment along v (B.7): n E||x^||^2 for a user
// is (B / 8)^2 T, B the block's scale (its output_scale holds the 1 / (c mean) of B.8 "Estimator").
[[nodiscard]] double projected_trace(const wire::params& p, double along) noexcept;

}  // namespace ldp::server::detail

#endif
