// The non-interactive learners of Wang, Gaboardi, Smith and Xu in ldp train (docs/mechanisms.md
// H.7): each user's device speaks once through the library's mechanism (H.1-H.4), the server's
// aggregator counts the reports exactly, and the library's solver turns its estimates into w.
#ifndef LDP_TOOLS_TRAIN_WANG_H
#define LDP_TOOLS_TRAIN_WANG_H

#include <cstdint>

#include "train_methods.h"

namespace ldp::tools {

// --grid and --order when not given: k = 2 (3^p grid points; k = 1's multilinear surrogate has
// only corners for minimizers) and h = 1 (the plain Bernstein polynomial, whose weights are
// positive: the noise gain (2^h - 1)^p of higher orders costs more than their smaller bias at the
// n of real data sets, docs/learning.md).
inline constexpr uint32_t default_grid = 2;
inline constexpr uint32_t default_order = 1;

// The loss values' fixed-point grid (Q = 2^f units per loss unit): 2^-16 of rounding noise is far
// below the discrete Laplace noise of scale N / epsilon loss units.
inline constexpr unsigned loss_frac_bits = 16;

// genprot's public samples per user when --strings is not given (H.3: its bias bound is 3e-4 there).
inline constexpr uint32_t default_strings = 32;

// --method wang-bernstein (Alg 2, H.1): the (k + 1)^p losses of every user through the bernstein
// mechanism, the mean aggregator's grid estimate, the iterated Bernstein surrogate of order h and
// its minimum over [0, 1]^p (server::minimize_on_box).
train_result solve_wang_bernstein(const train_data& data, const train_settings& settings);

// --method wang-1bit (Alg 3, H.2) and wang-genprot (Alg 8, H.3): user i (its index in the shuffled
// users) evaluates its loss at its public group's grid point only and sends one bit (or the index
// of one of T public samples); the public samples and groups come from derive_seed(--seed,
// hash_seed, 0); the aggregator's Horvitz-Thompson grid estimate, then wang-bernstein's surrogate.
train_result solve_wang_1bit(const train_data& data, const train_settings& settings);
train_result solve_wang_genprot(const train_data& data, const train_settings& settings);

// --degree d when not given: D = d (d + 1) + 1 = 7 copies a report. H.4 measures why d stays small:
// the product terms' spread grows so fast with d that larger d only helps at epsilon far above 10.
inline constexpr uint32_t default_glm_degree = 2;

// --method wang-glm (Algs 4/5, H.4): every user's D noisy copies of (x, s) through the glm-copies
// mechanism at (epsilon, delta), then server::glm_train (the unbiased product terms and SIGM; --steps
// its iterations, default n). Logistic and hinge losses only (the squared loss is not a GLM of
// s <theta, x>).
train_result solve_wang_glm(const train_data& data, const train_settings& settings);

}  // namespace ldp::tools

#endif
