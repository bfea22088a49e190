// User-level DP-SGD with the discrete Gaussian (docs/mechanisms.md I.1): full batch, every user in
// every step, no subsampling amplification claimed. Each step the n users' averaged gradients at
// the current iterate (a caller callback, on the fixed-point grid of 2^frac_bits units: e.g.
// device/gradient.h's contribution) are clipped to L2 radius C = floor(G 2^frac_bits) in integers,
// summed exactly, N_Z(0, sigma2) added to each coordinate of the sum, divided by n 2^frac_bits; the
// step is w <- Pi(w - lr (noisy mean + lambda w)) with Pi the projection on the L2 ball of
// `radius` (none when radius = 0) and lambda's regularizer public (added outside the private
// mean, Levy et al. Alg 4's rule). The result is the last and the averaged iterate.
//
// Privacy: neighbours replace one user (n is public), so the clipped sum moves by at most 2 C in
// L2 and each step is rho = (2 C)^2 / (2 sigma2)-zCDP (accountant.h); the run spends
// steps_taken rho, converted at `delta`.
#ifndef LDP_SERVER_CENTRAL_DP_SGD_H
#define LDP_SERVER_CENTRAL_DP_SGD_H

#include <cstdint>
#include <functional>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"

namespace ldp::server {

// Writes user `user`'s averaged gradient at `weights` on the grid into `out` (size = weights'
// size); a status other than ok stops the run with that status.
using dp_sgd_gradient = std::function<status(uint64_t user, span<const double> weights, span<int64_t> out)>;

// Called after each step with its number (1-based) and the new iterate; false stops the run (the
// accountant then counts only the steps taken).
using dp_sgd_observer = std::function<bool(uint64_t step, span<const double> weights)>;

struct dp_sgd_options {
  uint64_t users = 0;            // n >= 1
  uint64_t steps = 0;            // T, the most steps the run may take
  double learning_rate = 0;      // > 0
  double clip = 0;               // G > 0, in real units
  unsigned frac_bits = 16;       // <= 40
  uint64_t sigma2 = 0;           // in [1, random::discrete_gaussian_max_sigma2] (grid units squared)
  double radius = 0;             // L2 projection radius; 0: no projection
  double l2_regularization = 0;  // lambda >= 0
  double delta = 1e-6;           // at which the spent epsilon is reported, in (0, 1)
};

struct dp_sgd_result {
  status code = status::ok;
  std::vector<double> last;
  std::vector<double> averaged;  // mean of the iterates after each step (the initial one if none)
  uint64_t steps_taken = 0;
  double rho = 0;      // steps_taken rho per step
  double epsilon = 0;  // rho at options.delta, the tight conversion
};

// The clip radius on the grid, floor(G 2^frac_bits), and the per-step L2 sensitivity 2 C.
[[nodiscard]] uint64_t dp_sgd_clip_units(double clip, unsigned frac_bits) noexcept;

// The smallest sigma2 for which `steps` steps spend at most (epsilon, delta)
// (discrete_gaussian_sigma2_for at sensitivity 2 C); 0 when none fits.
[[nodiscard]] uint64_t dp_sgd_sigma2_for(double epsilon, double delta, uint64_t steps, double clip,
                                         unsigned frac_bits) noexcept;

// Scales g in place so that its L2 norm is at most `clip_units` (exact integer check; entries are
// truncated toward zero, so the direction is kept up to the grid).
void clip_on_grid(span<int64_t> g, uint64_t clip_units) noexcept;

// One private release: sum over users of the clipped gradient plus N_Z(0, sigma2) per coordinate,
// into `noisy_sum` (size d). The core the privacy claim is about (the audit test draws it).
[[nodiscard]] status dp_sgd_noisy_sum(const dp_sgd_gradient& gradient, uint64_t users, span<const double> weights,
                                      uint64_t clip_units, uint64_t sigma2, random::drbg& rng, span<int64_t> noisy_sum);

// The run from `initial` (its size is d). invalid_argument for options out of range.
[[nodiscard]] dp_sgd_result run_dp_sgd(const dp_sgd_options& options, span<const double> initial,
                                       const dp_sgd_gradient& gradient, random::drbg& rng,
                                       const dp_sgd_observer& observer = {});

}  // namespace ldp::server

#endif
