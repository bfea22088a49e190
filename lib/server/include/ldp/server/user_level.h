// Server side of the user-level protocols of Kent, Berrett and Yu (docs/mechanisms.md C.1): the driver
// of M1 (univariate), M2 (d coordinates in folds), M3 (rotated coordinates in folds) and M5 (a
// density on [0, 1]: M2 over the k - 1 non-constant trigonometric features), and of the
// single-stage baseline. Each user holds T observations and sends one report; the server
// speaks through parameter blocks: round 1 hands out kent-vote blocks, and from the votes it builds
// the round-2 kent-refine blocks it broadcasts (docs/wire_format.md 3.2). Reports are aggregated by
// the ordinary aggregators (aggregator::create: votes are counted as SUE, refine values summed
// exactly by the mean family of mean.h); this driver reads their public estimates.
//
// Design [impl; C.1 items marked reconstructed there]:
// - Folds F: 1 (M1), d (M2), d~ = 2^ceil(log2 d) (M3: every rotated coordinate carries signal).
// - Groups, by a data-independent rule: server assignment by user index u in [0, n). Two stages:
//   users u < n/2 vote, the others refine; within its group a user takes fold (position mod F).
//   Single stage: everyone refines, fold u mod F. (A keyed hash of a per-round pseudonym would do
//   as well; it only has to be fixed before any data are seen.)
// - T~ = min(T, T*), where T* is the configured cap or, if none, the largest T~ whose cell count
//   keeps the vote reliable: with m voters per fold and z = sqrt(2m) tanh(alpha/4) 0.45 (the count
//   gap between the best neighbour and a wrong cell), N Phi(-z) <= 10^-3.
// - h = (W/2) sqrt(c_h L / (s T~)) with W = hi - lo, L = max(1, ln(n alpha^2 / F)), s = d~ for M3
//   (a rotated coordinate of a local mean in the l2 ball of radius R = W/2 spreads about
//   R / sqrt(d~ T~)) and 1 otherwise; c_h = 2. The N = ceil(W / h) cells split [lo, hi] evenly in
//   fixed point (wire::range_cell), so the cell width W / N is at most h.
// - Round 2: k-hat = argmax of the fold's vote estimates (SUE's estimate is increasing in the raw
//   count, so this is the argmax of the counts; ties go to the lowest index), interval
//   [edge(k-hat - e), edge(k-hat + 1 + e)] clamped to the range, e = 2 cells: at most 5 cells wide.
// - The rule [C.1 impl]: two stages when their predicted per-coordinate error is lower:
//   (v + 2 (w / alpha)^2) / m_2 < (v + 2 (W / alpha)^2) / m_1, with w = min(W, (2e + 1) W / N) the
//   widest interval, v = (W/2)^2 / (s T~) the largest variance of a local mean, m_2 and m_1 the
//   refiners per fold of each plan. With c_h = e = 2 on [-1, 1] this is C.1's T~ > 25 ln(n alpha^2)
//   up to the v terms and the rounding of N.
//
// Estimates, in real units (item = coordinate):
// - M1, M2: coordinate j is the fold's mean of refine reports, the estimate of the mean of the
//   clamped local means; variance = noise variance / m_j (mean.h), conditional on the users' local
//   means (the library's convention, docs/mechanisms.md 0); for point-mass data this is C.1's exact
//   (2/n) sigma_N^2. The spread of the local means adds Var(X-bar) / m_j, not counted.
// - M3: theta-hat (the d~ fold means) rotated back, x-hat = U^T theta-hat = D H theta-hat / sqrt(d~),
//   in double precision (the folds hold different numbers of reports, so the means are not
//   integers); the first d coordinates, each with variance (1/d~) sum_j Var(theta-hat_j).
// - A fold without reports gives NaN estimates (its coordinate; every coordinate for M3).
//
// M5 [C.1 M5; impl]: each observation is a real in [0, 1]; fold j (j = 0 .. k - 2) runs M2's two
// rounds on the local mean of feature j, cos(2 pi m x) for even j and sin(2 pi m x) for odd j,
// m = j / 2 + 1 (phi_(j+2) / sqrt(2) of P5; the device computes it in fixed point,
// wire/fixed_trig.h), on the range [-1, 1]; lo, hi and dimension of the configuration are ignored
// (the protocol sets [-1, 1] and k - 1). k = basis_size, or the rule of m5_basis_size. The
// density is f-hat(x) = 1 + 2 sum_j theta-hat_j c_j(x) (c_j the feature j, theta-hat_j its fold's
// estimate of E c_j(X)), variance 4 sum_j c_j(x)^2 Var(theta-hat_j) (disjoint folds: independent),
// conditional on the users' local means as above; it estimates the projection of the density on
// the first k basis functions, whose truncation bias (the Sobolev tail) is not in the interval.
// Device rounding (user_level.h) adds at most half a grid unit 2^-f of bias per coordinate.
#ifndef LDP_SERVER_USER_LEVEL_H
#define LDP_SERVER_USER_LEVEL_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"
#include "ldp/wire/user_level_params.h"

namespace ldp::server {

enum class user_level_method : uint8_t { m1, m2, m3, m5 };
enum class user_level_plan : uint8_t { choose, two_stage, single_stage };

struct user_level_config {
  user_level_method method = user_level_method::m1;
  user_level_plan plan = user_level_plan::choose;
  double alpha = 1;           // each user's level, in (0, 40] (C.1 studies (0, 1])
  uint64_t users = 0;         // n: at least 2 F (two stages) or F (single stage)
  uint32_t observations = 1;  // T, the observations each user holds
  uint32_t cap = 0;           // T*, or 0 for the vote-reliability rule
  unsigned frac_bits = 16;
  double lo = -1;  // range of each observation; M3: [-R, R], R the l2 radius
  double hi = 1;
  uint32_t dimension = 1;                             // d: 1 for M1
  unsigned char rotation_seed[wire::seed_size] = {};  // M3: the public seed of D
  double c_h = 2;
  uint32_t expansion = 2;  // e, in cells
  // M5 only: k, the basis functions (0: m5_basis_size's rule), and the rule's beta and C.
  uint32_t basis_size = 0;
  double smoothness = 1;
  double basis_constant = 100;
  // M2 only: fold f votes on and refines coordinate coordinates[f] (strictly increasing, < d), its
  // estimate's item; empty: fold f takes coordinate f. Kent M4a's stage on the selected support.
  std::vector<uint32_t> coordinates;
};

// One point of an M5 density estimate (real units): f-hat(x), its variance and its interval.
struct density_point {
  double x = 0;
  double value = 0;
  double variance = 0;
  double ci_low = 0;
  double ci_high = 0;
};

struct user_assignment {
  uint8_t round = 0;  // 1: vote, 2: refine
  uint32_t fold = 0;
};

class user_level_protocol {
 public:
  // C.1 M5's k [reconstructed; impl constants]: min((n T alpha^2)^(1 / (2 beta + 2)),
  // n alpha^2 / (C max(1, ln(n alpha^2)))) with T = min(observations, cap) (cap 0: none), the first
  // term balancing the squared bias k^(-2 beta) of a density of Sobolev smoothness beta against M2's
  // variance k^2 / (n T alpha^2), the second keeping C ln(n alpha^2) / alpha^2 users per fold (C =
  // 100 leaves each fold's vote about 550 / alpha^2 voters, the count at which the
  // vote-reliability rule allows about ten cells). Rounded down to an odd number (whole
  // frequencies: a cos and a sin each), at least 3; 0 when alpha, n, T, beta or C are out of range.
  [[nodiscard]] static uint32_t m5_basis_size(uint64_t users, uint32_t observations, uint32_t cap, double alpha,
                                              double smoothness, double constant) noexcept;

  // invalid_argument for a configuration that admits no protocol (alpha, n, d, the range or the
  // fixed point out of bounds, M3 with lo != -hi, blocks breaking
  // docs/wire_format.md 3.3); overflow when memory runs out. Never throws.
  [[nodiscard]] static status create(const user_level_config& config, user_level_protocol* out) noexcept;

  const user_level_config& config() const noexcept { return config_; }
  uint32_t folds() const noexcept { return folds_; }
  uint32_t used_observations() const noexcept { return used_; }  // T~
  uint32_t cells() const noexcept { return cells_; }             // N
  double cell_width() const noexcept { return cell_width_; }     // W / N, real units
  bool two_stage() const noexcept { return two_stage_; }         // the plan in effect
  // Predicted per-coordinate error of each plan (the rule above).
  double predicted_error(bool two_stage) const noexcept;

  // Round and fold of user u < n under the plan in effect.
  user_assignment assign(uint64_t user) const noexcept;

  // Round 1: the block of fold f's voters (two stages).
  const wire::params& vote_block(uint32_t fold) const noexcept { return vote_blocks_[fold]; }
  // Round 2: fold f's refine block from the aggregator of its votes (parameter_mismatch if that
  // aggregator is not for vote_block(f), invalid_argument for f >= F or a single-stage plan).
  [[nodiscard]] status refine_block(uint32_t fold, const aggregator& votes, wire::params* out) const noexcept;
  // The single-stage plan's block of fold f: the refine block over the whole range.
  const wire::params& single_stage_block(uint32_t fold) const noexcept { return single_blocks_[fold]; }

  // The d estimates from one refine aggregator per fold (refines[f] for fold f), at the given
  // confidence. parameter_mismatch when an aggregator's block is not a kent-refine block of this
  // protocol's fold f, invalid_argument for a count other than F or a null entry, overflow when
  // memory runs out.
  [[nodiscard]] status estimate_all(span<const aggregator* const> refines, double confidence,
                                    std::vector<estimate>* out) const noexcept;

  // M5: the density at the P midpoints x_i = (i + 1/2) / P of [0, 1] from estimate_all's k - 1
  // feature estimates, at the given confidence. With `clip`, the post-processing of C.1 M5:
  // value and interval ends become max(., 0) / Z, Z = the midpoint rule's integral of
  // max(f-hat, 0) (exact for f-hat itself when P >= k, which integrates to 1); the variance is
  // left as estimated, and the clipped interval is not an exact interval (Z is random).
  // invalid_argument for another method, P = 0 or a count of features other than k - 1, overflow
  // when memory runs out.
  [[nodiscard]] status density(span<const estimate> features, uint32_t points, double confidence, bool clip,
                               std::vector<density_point>* out) const noexcept;

 private:
  wire::kent_shape shape(uint32_t fold) const noexcept;
  uint32_t coordinate(uint32_t fold) const noexcept {
    return config_.coordinates.empty() ? fold : config_.coordinates[fold];
  }

  user_level_config config_;
  uint32_t folds_ = 0;
  uint32_t used_ = 0;
  uint32_t cells_ = 0;
  double cell_width_ = 0;
  double data_variance_ = 0;  // v: the largest variance of a (rotated) local-mean coordinate
  uint64_t refiners_two_ = 0;
  uint64_t refiners_single_ = 0;
  bool two_stage_ = true;
  int64_t lo_ = 0;  // the range in fixed point
  int64_t hi_ = 0;
  std::vector<wire::params> vote_blocks_;
  std::vector<wire::params> single_blocks_;
};

}  // namespace ldp::server

#endif
