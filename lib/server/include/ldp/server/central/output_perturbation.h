// Ghazi et al. 2024, Algorithm 6 (docs/mechanisms.md I.3.2): regularized output perturbation with the
// l-infinity projection, approximate DP, central (replace-one neighbours, public n). The server
// minimizes the regularized empirical risk F(w) + lambda/2 ||w - w0||^2 of a convex, G-Lipschitz,
// beta-smooth loss, adds Gaussian noise calibrated to the minimizer's l2 sensitivity 2G / (lambda n),
// and maps the result to a point of the public feasible set {w : ||w - w0||_1 <= R} nearest in
// l-infinity distance: the noise's l-infinity norm is what the excess risk then pays, times the l1 norm
// of a gradient, which is small when per-sample gradients are s-sparse (||g||_1 <= G sqrt(s)).
//
// [impl] Choices the paper leaves open:
//   - The feasible set is the l1 ball of radius R around w0 (R = 0: no projection). Its l-infinity
//     projection is taken as the soft-threshold point of l1_projection.h, which is one of the
//     l-infinity-nearest points (I.3.2 gives the two-line proof).
//   - The solver is gradient descent with step 1 / (beta + lambda) for a number of steps fixed by
//     public quantities, so that ||w - w*||_2 <= tau whatever the data (||w0 - w*|| <= G / lambda and
//     the contraction beta / (beta + lambda) per step); it may stop earlier once ||grad|| <= lambda tau,
//     which also certifies ||w - w*|| <= tau. The sensitivity used is 2G / (lambda n) + 2 tau.
//   - Noise: w is rounded to the grid 2^-frac_bits (rounding adds at most sqrt(d) grid units to the
//     l2 distance of neighbouring outputs) and the exact discrete Gaussian of gaussian_variance
//     (sparse_projection.h, zCDP) is added per coordinate. Pure DP (the paper's Laplace case, which
//     needs an l1 sensitivity from smoothness and gradient sparsity) is not implemented.
#ifndef LDP_SERVER_CENTRAL_OUTPUT_PERTURBATION_H
#define LDP_SERVER_CENTRAL_OUTPUT_PERTURBATION_H

#include <cstdint>
#include <functional>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"

namespace ldp::server {

// The gradient of the caller's empirical risk F(w) = (1/n) sum_i f_i(w) at w, written into gradient
// (d values). The regularizer is added by the solver. Each f_i must be convex, G-Lipschitz in l2 and
// beta-smooth: privacy rests on it.
using erm_gradient = std::function<void(span<const double> w, span<double> gradient)>;

struct output_perturbation_options {
  std::size_t n = 0;              // the number of samples, public, >= 1
  double lipschitz = 1;           // G > 0
  double smoothness = 1;          // beta >= 0
  double regularization = 1;      // lambda > 0
  double solver_fraction = 1e-3;  // tau = solver_fraction * 2G / (lambda n), in (0, 1]
  double l1_radius = 0;           // R >= 0; 0: no projection
  double epsilon = 1;             // in (0, 40]
  double delta = 1e-6;            // in (0, 1)
  uint32_t frac_bits = 24;        // the output grid 2^-frac_bits, in [0, 40]
};

// The minimizer of F(w) + lambda/2 ||w - w0||^2 within tau (l2), by the solver above; d = w0.size().
// *steps receives the steps taken. invalid_argument for bad options or a non-finite gradient; overflow
// when memory runs out. Never throws (a throwing callback is the caller's bug).
[[nodiscard]] status solve_regularized_erm(span<const double> w0, const erm_gradient& gradient,
                                           const output_perturbation_options& options, std::vector<double>* w,
                                           uint64_t* steps) noexcept;

struct output_perturbation_release {
  std::vector<double> noisy;      // the rounded minimizer plus noise (already DP)
  std::vector<double> projected;  // noisy mapped into the l1 ball around w0 (= noisy when R = 0)
  double epsilon_impl = 0;        // the level the discrete Gaussian implements, <= epsilon
  double noise_sd = 0;            // sqrt(sigma^2) 2^-frac_bits per coordinate
  uint64_t sigma2 = 0;            // sigma^2 in squared grid units
  uint64_t sensitivity = 0;       // ceil((2G / (lambda n) + 2 tau) 2^frac_bits + sqrt(d)), grid units
};

// Algorithm 6: solve, round, add the discrete Gaussian from rng (a server DRBG the caller seeds),
// project. The same conditions as solve_regularized_erm, and invalid_argument for a sigma^2 the
// sampler cannot represent (use fewer frac_bits).
[[nodiscard]] status release_output_perturbation(span<const double> w0, const erm_gradient& gradient,
                                                 const output_perturbation_options& options, random::drbg& rng,
                                                 output_perturbation_release* out) noexcept;

// The l-infinity projection onto {w : ||w - center||_1 <= radius}: the soft-threshold point (see the
// header comment), written to out. The conditions of project_l1_ball.
[[nodiscard]] status project_linf_to_l1_ball(span<const double> v, span<const double> center, double radius,
                                             std::vector<double>* out) noexcept;

}  // namespace ldp::server

#endif
