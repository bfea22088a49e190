// Euclidean projection onto the l1 ball (docs/mechanisms.md C.3 step 3, Duchi, Shalev-Shwartz, Singer,
// Chandra 2008): the last step of Ghazi et al.'s projection mechanism (sparse_projection.h), and
// free post-processing of any vector-mean estimate of s-sparse data with l2 norm at most L, radius
// L sqrt(s) (C.3 "LDP extension": Lemma 3.1 holds for any noise, so the projected error satisfies
// ||x_hat - x_bar||_2^2 <= 2 L sqrt(s) ||z||_inf and never exceeds the unprojected error).
#ifndef LDP_SERVER_CENTRAL_L1_PROJECTION_H
#define LDP_SERVER_CENTRAL_L1_PROJECTION_H

#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"

namespace ldp::server {

// The point of the ball {x : ||x||_1 <= radius} nearest to y in l2: y itself when ||y||_1 <= radius,
// otherwise the soft threshold x_j = sign(y_j) max(|y_j| - theta, 0) with the theta > 0 that puts x
// on the sphere, found by sorting |y| (O(d log d), the sort-based algorithm of Duchi et al. 2008,
// Figure 1). Rounding leaves ||x||_1 within a few ulps of radius * (1 + d 2^-53).
// invalid_argument for a non-finite y_j or a radius that is negative or not finite; overflow when
// memory runs out. Never throws.
[[nodiscard]] status project_l1_ball(span<const double> y, double radius, std::vector<double>* out) noexcept;

// The threshold theta of the projection (0 when ||y||_1 <= radius); the same conditions.
[[nodiscard]] status l1_ball_threshold(span<const double> y, double radius, double* theta) noexcept;

}  // namespace ldp::server

#endif
