// Server side of vector mean estimation, docs/mechanisms.md B.5 (`vector-duchi`, `vector-laplace`):
// exact integer counts per coordinate j of the rotated space, the Horvitz-Thompson estimate
// y^ = (d~ / n) sum_u w_u e_{j_u} rotated back by x^ = U^T y^ (an exact integer FWHT of the sums,
// then the signs D and one scale), its per-coordinate variance and confidence interval, and the
// projection onto the L2 ball as post-processing.
//
// estimate::item is the coordinate i < d and estimate::value the mean of x_i in real units (the
// block's grid scaled by 2^-f). estimate::variance is the [derived] per-coordinate form of B.5's
// variance (src/vector_mean.cpp derives it), with these plug-ins for what the reports do not reveal:
//   vector-duchi    (r^2 B^2 / s^2 - c_i^2) / n
//   vector-laplace  (R^2 - c_i^2 + (sigma^2 + 1/4) / s^2) / n
// r the clip, R the radius (real units), B = 2^w / (T_hi - T_lo), s the device's rotation scale
// (wire::scale_of_rotation, about d~^-1/2), sigma^2 the discrete Laplace noise variance (B.1) and
// 1/4 the bound of the rounding variance (both in squared grid units times 2^-2f), c_i the estimate
// clipped to [-R, R] in place of the users' x_{u,i}. Both are exact for identical users with
// ||x_u|| = R (Laplace: up to the rounding term) and otherwise upper bounds up to the plug-in noise;
// clipping (probability <= beta per user) is not included. With no reports value and interval are
// NaN and the variance +inf.
//
// State: exact integers only, per rotated coordinate j < d~: the number of reports n_j, and for
// vector-duchi the number of ones among them, for vector-laplace the signed 128-bit sum of their
// values (src/vector_mean.cpp has the layout).
#ifndef LDP_SERVER_VECTOR_MEAN_H
#define LDP_SERVER_VECTOR_MEAN_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"

namespace ldp::server {

// Whether the vector mean family serves m: vector-duchi, vector-laplace. aggregator::create gives
// invalid_parameters for a vector-duchi block with T_lo = T_hi (epsilon 0, no estimator).
[[nodiscard]] bool is_vector_mean_mechanism(wire::mechanism m) noexcept;

// n Var(x^_i) + c_i^2 of a vector-duchi or vector-laplace block: the part of the per-coordinate
// variance above that does not depend on the coordinate (r^2 B^2 / s^2, or R^2 + (sigma^2 + 1/4) / s^2
// in real units), for estimates and for ranking the vector mechanisms.
[[nodiscard]] double vector_mean_spread(const wire::params& p) noexcept;

// What one report adds to the estimate of its rotated coordinate per unit of S_j, over s: r B / s
// (Duchi) or 2^-f / s (Laplace), real units.
[[nodiscard]] double report_unit(const wire::params& p) noexcept;

// A vector mechanism ranked for (d, epsilon, n) on the unit ball (src/recommend_vector.cpp): the
// B.5 mechanisms and the unit-vector family (B.6, B.8).
struct vector_recommendation {
  wire::mechanism mech = wire::mechanism::none;
  double variance_per_report = 0;  // n E||x^ - x_bar||^2 for identical users with ||x|| = R = 1
  double l2_error = 0;             // sqrt(variance_per_report / n): the expected L2 error at n
  uint64_t report_bytes = 0;       // wire report size (header included; a maximum for vector-laplace)
};

// vector-duchi, vector-laplace, l2-ball, projunit and fastprojunit, best (smallest variance) first; those whose block cannot
// be built are left out; empty for n = 0 or when memory runs out (never throws).
[[nodiscard]] std::vector<vector_recommendation> recommend_vector(uint32_t d, double epsilon, uint64_t n);

// E||x^ - x_bar||^2 over the estimated coordinates: the sum of their variances (the errors of
// different coordinates are correlated, but the expected squared norm adds up all the same).
[[nodiscard]] double total_variance(span<const estimate> estimates) noexcept;

// The point of the ball {x : ||x||_2 <= radius} nearest to y: y itself inside, else y * radius /
// ||y||_2 (free post-processing of a vector mean, docs/mechanisms.md B.5; it never increases the
// distance to any point of the ball, the true mean included). invalid_argument for a non-finite y_i
// or a radius that is negative or not finite; overflow when memory runs out. Never throws.
[[nodiscard]] status project_l2_ball(span<const double> y, double radius, std::vector<double>* out) noexcept;

}  // namespace ldp::server

#endif
