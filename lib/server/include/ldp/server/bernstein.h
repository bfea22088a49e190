// Server half of the local Bernstein mechanism (Wang, Gaboardi, Smith, Xu, Alg 2; docs/mechanisms.md
// H.1 "Server: surrogate and minimization"): from the estimated mean loss at the (k+1)^p grid points,
// the iterated Bernstein surrogate of order h, its variance, its minimizer over the box [0, 1]^p,
// and the error the paper states for the grid estimates.
//
// Grid (H.0, wire/loss.h): point l = sum_j v_j (k+1)^j (axis 0 fastest) is w_j = v_j / k.
// Surrogate (corrected Def 6, erratum 2 of C.4): with M[u][v] = b_{v,k}(u/k) and
// A_h = sum_{i=1}^h C(h,i) (-1)^{i-1} M^{i-1}, the coefficients are A_h applied along each of the p
// axes of the grid tensor of values, and the surrogate is sum_u coef_u prod_j b_{u_j,k}(w_j). It
// equals the paper's B_k^{(h)}(f; w) of eq. (2) for f's values on the grid.
//
// Every function is exception-free: an invalid grid (p = 0, k = 0, more than max_grid_points
// points), h = 0, a vector of the wrong length or running out of memory gives an empty vector or
// NaN, as each one says. minimize_on_box lets an exception of the caller's f propagate.
#ifndef LDP_SERVER_BERNSTEIN_H
#define LDP_SERVER_BERNSTEIN_H

#include <cstdint>
#include <functional>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/server/aggregator.h"

namespace ldp::server {

// The wire format's limit on N = (k+1)^p (one laplace-vector coordinate per grid point).
inline constexpr uint64_t max_grid_points = 65536;

struct bernstein_grid {
  uint32_t p = 1, k = 1;  // (k+1)^p points, wire::grid_point order
};

// (k+1)^p, or 0 for an invalid grid (p = 0, k = 0, more than max_grid_points points).
[[nodiscard]] uint64_t grid_points(bernstein_grid g) noexcept;

// Per grid point: the estimated mean loss and its variance.
struct grid_estimate {
  std::vector<double> value, variance;
};

// The mean aggregator's per-coordinate estimates of a `bernstein` state (coordinate = grid index)
// as a grid_estimate. Empty if memory runs out.
[[nodiscard]] grid_estimate to_grid_estimate(span<const estimate> coordinates);

// b_{v,k}(x) = C(k, v) x^v (1 - x)^(k - v) for v = 0..k, x clamped to [0, 1], into out[0..k].
// Computed from the mode outwards by the ratio of neighbours, so no term underflows for k up to
// max_grid_points - 1.
void bernstein_basis(uint32_t k, double x, double* out) noexcept;

// Coefficients of the iterated Bernstein surrogate of order 1 <= h <= 32 (h = 1: the plain
// Bernstein polynomial, coef = values) from the values at the grid points. Empty if the grid or h is
// invalid, values.size() != (k+1)^p, or memory runs out. About 2 (h - 1) p (k + 1) N operations
// (p = 1, k = 65535, h = 2: seconds).
[[nodiscard]] std::vector<double> bernstein_coefficients(bernstein_grid g, uint32_t h,
                                                         const std::vector<double>& values);

// sum_u coef_u prod_j b_{u_j,k}(w_j) for w in [0, 1]^p (each w_j clamped). NaN if the grid is
// invalid or coefficients.size() != (k+1)^p. Cost about N.
[[nodiscard]] double bernstein_value(bernstein_grid g, const std::vector<double>& coefficients, const double* w);

// The variance of the surrogate at w when the grid values are independent with these variances:
// sum_v variance_v c_v(w)^2, where c_v(w) = prod_j sum_u A_h[u][v_j] b_{u,k}(w_j) is the weight of
// value v in the surrogate. NaN on the conditions of bernstein_coefficients. About
// 2 (h - 1) p (k + 1)^2 + N operations.
[[nodiscard]] double bernstein_variance(bernstein_grid g, uint32_t h, const std::vector<double>& variances,
                                        const double* w);

// ||A_h||_inf^p (the largest row sum of |A_h| per axis), which bounds sum_v |c_v(w)| for every w:
// sup_w |surrogate of (values + e) - surrogate of values| <= this * max_v |e_v|. 1 for h = 1, at
// most (2^h - 1)^p, the bound the paper's proof of Thm 17 uses (and returns for k + 1 > 512, where
// computing it would take seconds). NaN for an invalid grid or h = 0.
[[nodiscard]] double bernstein_noise_gain(bernstein_grid g, uint32_t h) noexcept;

// Lemma 18 of the paper (Lemma 3 with a union bound over the N grid points): with probability at
// least 1 - beta, max_v |L~(v) - L(v)| <= 2 N sqrt(ln(2 N / beta)) / (sqrt(n) epsilon) for the
// Laplace noise of scale N / epsilon per grid value. Stated for n >= ln(2 N / beta): +inf below it,
// NaN for an invalid grid, n = 0, epsilon <= 0 or beta outside (0, 1).
[[nodiscard]] double bernstein_grid_error_bound(bernstein_grid g, uint64_t n, double epsilon, double beta) noexcept;

struct box_minimum {
  std::vector<double> w;  // the minimizer found, in [0, 1]^p
  double value = 0;       // f(w)
};

// Minimizes f over [0, 1]^p (H.1): for p <= 3 a dense grid (1025, 129^2 or 33^3 points), for
// p > 3 the centre and 128 p points drawn from a DRBG keyed by the seed (the seed matters only
// there); then a Hooke-Jeeves pattern search from each of the 4 best, within 20000 + 4000 p
// evaluations each. Global up to the grid's resolution for p <= 3 (a well narrower than the
// spacing can be missed), a local search from good starts beyond. A NaN value of f counts as +inf.
// Deterministic for a given (p, f, seed). p = 0 or running out of memory: w empty and value NaN.
[[nodiscard]] box_minimum minimize_on_box(uint32_t p, const std::function<double(const double*)>& f, uint64_t seed);

}  // namespace ldp::server

#endif
