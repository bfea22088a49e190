// Levy, Sun, Amin, Kale, Kulesza, Mohri, Suresh 2021, private training with user-level central DP
// (docs/mechanisms.md I.2, C.2 "Alg 3 winsorized first-order optimization"):
//   - Alg 3 (winsorized_sgd): T steps of averaged projected gradient descent; step t's gradient is
//     one query of a winsorized_query_session (K = T adaptive WinsorizedMeanHighD queries, each the
//     users' averaged per-sample gradients at the current iterate). The session does the budget
//     split (the paper's Thm 3 rule or the tight one) and refuses step T + 1.
//   - Alg 4 (phased_erm): phases on disjoint user groups (n / 2^t users in phase t, the last phase
//     takes what is left), each an Alg 3 run on its group for the objective plus the public
//     regularizer lambda_t / 2 ||theta - theta_{t-1}||^2, lambda_t = 4^t lambda, whose gradient is
//     added OUTSIDE the private mean (it reads no user's data). Disjoint groups compose in parallel:
//     the run spends the largest phase's loss.
//   - Alg 5 (private_selection): a finite class theta^(1..K) scored by WinsorizedMean1D of the users'
//     averaged losses at eps / 3, candidates drawn uniformly with stopping probability gamma after
//     each draw (Liu and Talwar 2019, Thm 3.4: an eps/3-DP base gives eps-DP, pure), returning the
//     draw of smallest score.
// The per-sample gradient and loss are caller callbacks (the models of wire/model.h, or anything
// else that reads only its sample and public values: the session's privacy needs nothing more).
#ifndef LDP_SERVER_CENTRAL_LEVY_TRAINING_H
#define LDP_SERVER_CENTRAL_LEVY_TRAINING_H

#include <cstdint>
#include <functional>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"
#include "ldp/server/central/winsorized_queries.h"

namespace ldp::server {

// ---- Budget split of Alg 3 --------------------------------------------------------------------------

// What T steps on d~ rotated coordinates get within user-level (epsilon, delta).
struct levy_budget {
  double eps_step = 0;              // Alg 3 line 2: epsilon' = eps / (2 sqrt(2 T ln(2 / delta))) (delta = 0: eps / T)
  double delta_step = 0;            // delta' = delta / (2 T)
  double eps_coordinate_paper = 0;  // per rotated coordinate: Alg 2 on (epsilon', delta') (Thm 3)
  double eps_coordinate_tight = 0;  // one advanced composition over all T d~ coordinate mechanisms
};

// invalid_argument as query_step_epsilon (epsilon <= 0, delta outside [0, 1), steps or rotated_dim 0).
[[nodiscard]] status levy_step_budget(double epsilon, double delta, uint64_t steps, uint64_t rotated_dim,
                                      levy_budget* out) noexcept;

// C.2's tau for Alg 3 (the paper gives it up to constants; [impl] of C.2): 2.5 t*, t* = sigma
// sqrt((2 / m) (d ln(5 + 10 R / Delta) + ln(n / alpha))), Delta = min(1, (sqrt(2) sigma / (4 H))
// sqrt(d / m)), for per-sample gradients sigma-sub-Gaussian, H-smooth losses, a parameter ball of
// radius R. NaN for arguments out of range (any of sigma, H, R, alpha <= 0, alpha >= 1, d, m, n 0).
[[nodiscard]] double levy_gradient_tau(double sigma, double smoothness, double radius, uint64_t dim, uint64_t samples,
                                       uint64_t users, double alpha) noexcept;

// ---- Alg 3 --------------------------------------------------------------------------------------------

// The per-sample gradient of the loss at theta (d values) on one sample.
using sample_gradient = std::function<void(span<const double> theta, span<const double> sample, span<double> gradient)>;

struct winsorized_sgd_options {
  // The session: epsilon, delta, queries = T (the steps), dim = d, lo/hi = the gradient box
  // [-G, G] per coordinate, frac_bits, observations = m, tau (0: Cor. 1's), gamma, beta, budget, window.
  winsorized_query_options session{};
  double learning_rate = 0.1;  // constant step eta
  double radius = 0;           // projection onto the l2 ball of this radius around 0 (0: none)
  double lambda = 0;           // public regularizer lambda / 2 ||theta - center||^2, outside the private mean
  std::vector<double> center;  // its centre (empty: 0)
};

struct winsorized_sgd_result {
  std::vector<double> theta;  // the averaged iterate (theta_1 + ... + theta_T) / T
  std::vector<double> last;   // theta_T
  uint64_t steps = 0;
  privacy_loss spent{};       // the session's: never above (epsilon, delta)
  double eps_coordinate = 0;  // epsilon' per rotated coordinate
  double tau = 0;             // the l2 radius the bins assumed
};

// Alg 3 from theta0 (d values) on users[u] (samples of sample_dim reals, as winsorized_query_session).
// invalid_argument for an empty gradient, theta0 not of dimension d, a centre neither empty nor of
// dimension d, a negative radius, lambda or learning rate; the session's statuses otherwise.
[[nodiscard]] status winsorized_sgd(const winsorized_sgd_options& options, span<const span<const double>> users,
                                    std::size_t sample_dim, span<const double> theta0, const sample_gradient& gradient,
                                    const unsigned char seed[random::drbg::seed_size],
                                    winsorized_sgd_result* out) noexcept;

// ---- Alg 4 --------------------------------------------------------------------------------------------

struct phased_erm_options {
  winsorized_sgd_options step{};  // each phase's Alg 3 (lambda, center are set per phase)
  uint32_t phases = 1;            // T of Alg 4
  double lambda = 0;              // lambda of Alg 4: phase t (from 1) uses 4^t lambda
};

struct phased_erm_result {
  std::vector<double> theta;          // the last phase's averaged iterate
  std::vector<uint64_t> phase_users;  // n_t
  privacy_loss spent{};               // the largest phase's (parallel composition over disjoint users)
};

// Alg 4: phase t (1..phases) runs Alg 3 on users [n - n / 2^(t-1), ...) in order: n_t = floor(n / 2^t)
// users, the last phase everyone left. invalid_argument for phases 0 or a phase left with no user;
// winsorized_sgd's statuses otherwise. Each phase's DRBG seed derives from `seed` and the phase.
[[nodiscard]] status phased_erm(const phased_erm_options& options, span<const span<const double>> users,
                                std::size_t sample_dim, span<const double> theta0, const sample_gradient& gradient,
                                const unsigned char seed[random::drbg::seed_size], phased_erm_result* out) noexcept;

// ---- Alg 5 --------------------------------------------------------------------------------------------

// The base mechanism of the selection: a (private) score of candidate k; a smaller score is better.
using candidate_score = std::function<status(uint64_t candidate, double* score)>;

struct selection_result {
  uint64_t candidate = 0;   // J_{t*}
  double score = 0;         // V_{t*}
  uint64_t draws = 0;       // how many candidates were scored before the stop
  double epsilon_impl = 0;  // private_selection: 3 x the largest base level implemented (<= epsilon)
};

// The random stopping of Alg 5 (Liu and Talwar 2019): draw J uniformly among `candidates`, score it,
// stop with probability gamma_num / 2^32 after each draw, return the draw of smallest score (the first
// on ties). eps-DP when `score` is eps/3-DP. invalid_argument for candidates 0 or gamma_num outside
// [1, 2^32]; a failing score's status.
[[nodiscard]] status random_stopping_selection(uint64_t candidates, uint64_t gamma_num, const candidate_score& score,
                                               random::drbg& rng, selection_result* out) noexcept;

// The per-sample loss of candidate k on one sample, in [0, bound] (clamped).
using sample_loss = std::function<double(uint64_t candidate, span<const double> sample)>;

struct private_selection_options {
  double epsilon = 1;         // pure, user-level
  uint64_t candidates = 1;    // K = |Theta|
  double bound = 1;           // B: losses in [0, B]
  uint32_t observations = 1;  // m: a user's first m samples
  double tau = 0;             // 0: Thm 7's B / 2 sqrt((ln(K n) + ln(10 / alpha)) / m)
  double alpha = 0.1;         // Thm 7's failure probability, for the default tau
  uint64_t gamma_num = 0;     // stopping probability gamma_num / 2^32; 0: Thm 7's 1 / K
  unsigned frac_bits = 16;    // the grid of the losses
  window_rule window = window_rule::safe;
};

// Alg 5: the score of candidate k is WinsorizedMean1D at eps / 3 of the users' averaged losses
// (quantized to the grid), over bins of half width tau on [-B, B]. Returns the selection in real units.
// invalid_argument for options out of range (frac_bits > 40, B 2^f m beyond int64), no users, a user
// without samples.
[[nodiscard]] status private_selection(const private_selection_options& options, span<const span<const double>> users,
                                       std::size_t sample_dim, const sample_loss& loss,
                                       const unsigned char seed[random::drbg::seed_size],
                                       selection_result* out) noexcept;

}  // namespace ldp::server

#endif
