// The driver of Kent M4, s-sparse mean estimation under user-level LDP (docs/mechanisms.md C.1 M4):
// each of n users holds T observations of d coordinates whose mean has at most s non-zero
// coordinates, and sends one report.
//
// M4a (support selection, three rounds; each user speaks in one):
// 1. Users u < n/2 vote with the kent-support block (P4, device/kent_support.h): V_j = [|local
//    mean_j| >= tau] with tau = (W/2) sqrt(c_tau ln d / T~) [reconstructed; impl c_tau = 4: by
//    Hoeffding a null coordinate passes with probability <= 2 d^(-c_tau/2)], at most s ones, hashed
//    with public Rademacher signs plus discrete Laplace noise of scale 2 s / alpha.
// 2. The server scores S_j = mean over voters of R_ij Z_i (server/kent_support.h) and selects at
//    most s coordinates with S_j >= 1/2, those of the largest S_j [impl; the paper takes the first s].
// 3. Users u >= n/2 run M2 (user_level_protocol, its own vote and refine halves) on the selected
//    coordinates only; every other coordinate is estimated 0.
// M4b (thresholding, two rounds): M2 on all d coordinates with every user and a larger h (the log
//    term L of user_level.h becomes L + ln d: the d folds' intervals must all hold their means),
//    then the hard threshold lambda_j = sd_j sqrt(2 ln d) (sd_j the coordinate's standard error, so
//    lambda is the noise level times sqrt(log d)) and the s largest |theta_j| above it are kept
//    [reconstructed constants; impl].
// The rule [impl; the paper's switch T >= T_0 has lost its constants]: M4a when its vote is
// reliable, d Phi(-(1/2) / sd) <= 10^-3 with sd^2 = (s + sigma_N^2) / (n/2) the largest variance
// of a score (the open point: the per-voter variance is s' - V + sigma_N^2, about s + 8 s^2 /
// alpha^2), and its predicted squared l2 error s (e_a + tau^2) is below M4b's s (e_b + lambda^2),
// where e_a, e_b are the per-coordinate errors user_level_protocol predicts for each stage and
// the threshold^2 terms bound what a coordinate dropped under each method's threshold costs.
//
// Estimates (item = coordinate, d of them, real units): a selected or kept coordinate carries its
// M2 fold's estimate and variance; the others are 0 with the method's threshold b (M4a: tau, M4b:
// lambda_j) as a bound: variance b^2 of kind `bound`, interval [-b, b] (a coordinate whose mean is
// below the threshold may be dropped; one far above it is kept with high probability).
#ifndef LDP_SERVER_KENT_SPARSE_H
#define LDP_SERVER_KENT_SPARSE_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/user_level.h"
#include "ldp/wire/params.h"

namespace ldp::server {

enum class sparse_method : uint8_t { choose, select, threshold };  // choose by the rule, M4a, M4b

struct kent_sparse_config {
  sparse_method method = sparse_method::choose;
  double alpha = 1;           // each user's level, in (0, 40]
  uint64_t users = 0;         // n
  uint32_t observations = 1;  // T
  uint32_t cap = 0;           // T* (P6) for every round, or 0: the vote uses all T, M2 its own rule
  unsigned frac_bits = 16;
  double lo = -1;  // range of each coordinate of an observation
  double hi = 1;
  uint32_t dimension = 2;  // d
  uint32_t sparsity = 1;   // s <= d
  double c_tau = 4;
  double c_h = 2;  // M2's c_h and expansion (user_level_config)
  uint32_t expansion = 2;
};

class kent_sparse_protocol {
 public:
  // invalid_argument for a configuration that admits no protocol (as user_level_protocol::create, or
  // s outside [1, d], d above 2^24, n below what the forced method needs); overflow when memory
  // runs out. Never throws.
  [[nodiscard]] static status create(const kent_sparse_config& config, kent_sparse_protocol* out) noexcept;

  const kent_sparse_config& config() const noexcept { return config_; }
  bool selects() const noexcept { return selects_; }  // M4a in effect (else M4b)
  // The rule's figures: each method's predicted squared l2 error, and whether M4a's vote is reliable.
  double predicted_error(bool select) const noexcept { return select ? error_select_ : error_threshold_; }
  bool vote_reliable() const noexcept { return reliable_; }

  // M4a. Users u < voters() vote with support_block(); users voters() + v, v < n - voters(), are
  // user v of stage() (its own assignment into vote and refine folds).
  uint64_t voters() const noexcept { return config_.users / 2; }
  const wire::params& support_block() const noexcept { return support_; }
  double threshold() const noexcept { return tau_; }  // tau, real units
  // The selected support from the aggregator of the votes (parameter_mismatch if it is not
  // support_block()'s, invalid_argument under M4b).
  [[nodiscard]] status select(const aggregator& votes, std::vector<uint32_t>* out) const noexcept;
  // M2 on the selected coordinates for the n - voters() other users (invalid_argument for an empty
  // selection: then nothing is left to estimate).
  [[nodiscard]] status stage(span<const uint32_t> selected, user_level_protocol* out) const noexcept;

  // M4b: M2 on all d coordinates for all n users, with the larger h.
  const user_level_protocol& dense() const noexcept { return dense_; }

  // The d estimates. M4a: the selection and its stage's refine aggregators (one per selected
  // coordinate; none, and a null stage, for an empty selection). M4b: dense()'s refine aggregators
  // (d of them), thresholded. Statuses as user_level_protocol::estimate_all.
  [[nodiscard]] status estimate_selected(span<const uint32_t> selected, const user_level_protocol* stage,
                                         span<const aggregator* const> refines, double confidence,
                                         std::vector<estimate>* out) const noexcept;
  [[nodiscard]] status estimate_thresholded(span<const aggregator* const> refines, double confidence,
                                            std::vector<estimate>* out) const noexcept;

 private:
  user_level_config stage_config(std::vector<uint32_t> coordinates) const;

  kent_sparse_config config_;
  bool selects_ = false;
  bool reliable_ = false;
  double error_select_ = 0;
  double error_threshold_ = 0;
  double tau_ = 0;
  wire::params support_{};
  user_level_protocol dense_;
};

// The kept coordinates of M4b (exposed for its test): |theta_j| >= lambda_j = sd_j sqrt(2 ln d), then
// the s largest |theta_j| (ties to the lower index); the others become 0 with the bound lambda_j
// (variance lambda_j^2, kind bound, interval [-lambda_j, lambda_j]). NaN values are never kept.
void hard_threshold(std::vector<estimate>& estimates, uint32_t s, uint32_t d) noexcept;

}  // namespace ldp::server

#endif
