// Ghazi, Guzman, Kamath, Kumar, Manurangsi 2024 (seed 003), Algs 3-5, user-level over the device
// contributions of dp_sgd.h (docs/mechanisms.md I.3.4-I.3.6):
//   - Alg 3 (ghazi_debiased_gradient): N from the truncated geometric law on {0..M}
//     (P(N = k) = 2^-k / C_M), a batch B of 2^(N+1) distinct users drawn uniformly, split into halves
//     O and E, and G = A(b_0) + (A(B) - (A(O) + A(E)) / 2) / P(N), b_0 = B's first user: Blanchet and
//     Glynn's telescoping, E G = E A(2^(M+1) users). A(S) is the private mean: the exact sum of S's
//     clipped grid gradients plus N_Z(0, sigma2) per coordinate, over |S| 2^f, projected onto the l1
//     ball of radius G sqrt(s) (Alg 1, C.3) when a sparsity s is given -- the projection is what makes
//     A biased and the telescoping useful.
//   - Alg 4 (run_ghazi_sgd): projected SGD on G + lambda w, stopped by the fully adaptive privacy
//     filter: step t's cost depends on its drawn N_t (subsampling amplification at q = 2^(N_t+1) / n)
//     and the run stops before the first step whose cost would pass the budget.
//   - Alg 5 (select_ghazi_sgd): Liu-Talwar private selection over hyper-parameter candidates by
//     levy_training.h's random_stopping_selection, each draw one Alg 4 run scored by its noisy loss.
// Neighbours replace one user (n is public).
#ifndef LDP_SERVER_CENTRAL_GHAZI_SGD_H
#define LDP_SERVER_CENTRAL_GHAZI_SGD_H

#include <cstdint>
#include <functional>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"
#include "ldp/server/central/dp_sgd.h"

namespace ldp::server {

// max_level's default: the largest M with 2^(M+1) <= n (the largest batch is every user when n is a
// power of two).
inline constexpr unsigned ghazi_auto_level = ~0u;

struct ghazi_sgd_options {
  uint64_t users = 0;                     // n >= 2
  double epsilon = 1;                     // the run's target, > 0
  double delta = 1e-6;                    // in (0, 1)
  uint64_t steps = 0;                     // the largest step count T >= 1 (the filter may stop earlier)
  double learning_rate = 0;               // constant step eta > 0
  double clip = 0;                        // G > 0 (real units): the l2 clip of every user's contribution
  unsigned frac_bits = 16;                // <= 40
  double radius = 0;                      // l2 projection of the iterate; 0: none
  double l2_regularization = 0;           // lambda >= 0, public, added outside the private mean
  unsigned max_level = ghazi_auto_level;  // M of the truncated geometric law; 2^(M+1) <= n
  double sparsity = 0;                    // s >= 0: A projects onto the l1 ball of radius G sqrt(s); 0: no projection
  uint64_t sigma2 = 0;                    // the noise per coordinate (grid units^2); 0: derived (ghazi_plan)
};

// What the run spends per step, from the public options only.
struct ghazi_step_budget {
  unsigned max_level = 0;                 // M
  uint64_t sigma2 = 0;                    // the noise of every private mean
  double rho_mean = 0;                    // one private mean's zCDP, (2 C)^2 / (2 sigma2)
  double epsilon_batch = 0;               // the step on its batch: 3 rho_mean-zCDP at delta_batch
  double delta_batch = 0;                 // (delta / 2) n / (2^(M+1) T): the delta part can never stop a run
  std::vector<double> level_probability;  // P(N = k), k = 0..M
  std::vector<double> level_epsilon;      // the step's epsilon when N = k (amplified at q_k = 2^(k+1) / n)
  std::vector<double> level_delta;        // q_k delta_batch
  double expected_rho = 0;                // sum_k P(N = k) level_epsilon[k]^2 / 2
  double rho_budget = 0;                  // the filter's: (sqrt(L + eps) - sqrt(L))^2, L = ln(2 / delta)
  double delta_budget = 0;                // delta / 2 for the steps' deltas
};

struct ghazi_sgd_result {
  std::vector<double> last;
  std::vector<double> averaged;  // mean of the iterates after each step (the initial one if none)
  uint64_t steps_taken = 0;
  bool filter_stopped = false;         // the filter ended the run (not T, not the observer)
  std::vector<uint64_t> level_counts;  // how many steps drew N = k
  double rho_spent = 0;                // sum of level_epsilon[N_t]^2 / 2 over the steps taken
  double epsilon_spent = 0;            // rho_spent + 2 sqrt(rho_spent ln(2 / delta)) <= epsilon
  double delta_spent = 0;              // delta / 2 + sum of the steps' deltas <= delta
  ghazi_step_budget budget;
};

// P(N = k) = 2^(M-k) / (2^(M+1) - 1) for k <= M, else 0 (Definition 5.1; C_M = 2 - 2^-M).
[[nodiscard]] double ghazi_level_probability(unsigned max_level, unsigned k) noexcept;

// An exact draw of N (one uniform integer below 2^(M+1) - 1). max_level <= 62.
[[nodiscard]] unsigned ghazi_sample_level(random::drbg& rng, unsigned max_level) noexcept;

// log(1 + q (e^eps - 1)): an (eps, delta)-DP mechanism run on b of n users drawn without replacement,
// replace-one neighbours, is (this, q delta)-DP with q = b / n (Balle, Barthe, Gaboardi 2018, Thm 10).
[[nodiscard]] double subsampled_epsilon(double epsilon, double q) noexcept;

// The per-step budget of `options` (M resolved, sigma2 derived when 0: the smallest integer for which
// T steps at the expected cost fit rho_budget). invalid_argument for options out of range; overflow
// when no sigma2 up to the sampler's limit fits.
[[nodiscard]] status ghazi_plan(const ghazi_sgd_options& options, ghazi_step_budget* out) noexcept;

// A(S): the private mean of the users in `batch` (distinct, below options.users) at `weights`, with
// noise sigma2, into `out` (size d). invalid_argument for an empty batch or a size mismatch; the
// callback's status.
[[nodiscard]] status ghazi_private_mean(const ghazi_sgd_options& options, uint64_t sigma2,
                                        const dp_sgd_gradient& gradient, span<const double> weights,
                                        span<const uint64_t> batch, random::drbg& rng, span<double> out) noexcept;

// Alg 3 at a given level N = `level` (<= max_level, resolved): draws the batch and writes G into
// `out`. invalid_argument as ghazi_private_mean or for a level above M.
[[nodiscard]] status ghazi_debiased_gradient(const ghazi_sgd_options& options, uint64_t sigma2, unsigned level,
                                             const dp_sgd_gradient& gradient, span<const double> weights,
                                             random::drbg& rng, span<double> out) noexcept;

// Alg 4 from `initial` (its size is d). The observer may stop the run after a step. invalid_argument
// for options out of range or an empty callback; the callback's status (that step is not counted:
// nothing was released); overflow as ghazi_plan. The result is written in every case.
[[nodiscard]] status run_ghazi_sgd(const ghazi_sgd_options& options, span<const double> initial,
                                   const dp_sgd_gradient& gradient, random::drbg& rng, ghazi_sgd_result* result,
                                   const dp_sgd_observer& observer = {}) noexcept;

// ---- Alg 5 --------------------------------------------------------------------------------------------

// User u's loss at `weights`; clamped to [0, loss_bound] by the selection (NaN counts as the bound).
using ghazi_user_loss = std::function<double(uint64_t user, span<const double> weights)>;

struct ghazi_selection_options {
  std::vector<ghazi_sgd_options> candidates;  // K >= 1 settings over the same users (their epsilon, delta unused)
  double epsilon = 1;                         // the selection's target, > 0
  double delta = 1e-6;                        // in (0, 1)
  double loss_bound = 1;                      // B > 0
  unsigned frac_bits = 16;                    // the grid of the summed losses
  uint64_t gamma_num = 0;                     // stopping probability gamma_num / 2^32; 0: 1 / K
};

struct ghazi_selection_result {
  uint64_t candidate = 0;       // the selected setting
  std::vector<double> weights;  // its run's averaged iterate
  double score = 0;             // its noisy mean loss
  uint64_t runs = 0;            // Alg 4 runs made (at most max_runs)
  uint64_t max_runs = 0;        // T = ceil(ln(2 / delta) / gamma): draws past it are never run
  double base_epsilon = 0;      // each run's epsilon (its half of eps_1) + the score's
  double base_delta = 0;        // each run's delta
  double epsilon_spent = 0;     // 3 eps_1 + 3 sqrt(2 delta_1) (Liu, Talwar 2019, Thm 3.4), <= epsilon
  double delta_spent = 0;       // sqrt(2 delta_1) T + delta / 2, <= delta
};

// Alg 5: base = one Alg 4 run of a uniformly drawn candidate at (eps_1 / 2, delta_1) then its averaged
// iterate's mean loss plus discrete Laplace noise at eps_1 / 2 (sensitivity B / n, on the grid); the
// draws stop with probability gamma. eps_1, delta_1 are the largest that Thm 3.4 fits into (epsilon,
// delta). invalid_argument for options out of range (or a candidate's); the runs' statuses.
[[nodiscard]] status select_ghazi_sgd(const ghazi_selection_options& options, span<const double> initial,
                                      const dp_sgd_gradient& gradient, const ghazi_user_loss& loss, random::drbg& rng,
                                      ghazi_selection_result* result) noexcept;

}  // namespace ldp::server

#endif
