// Server side of smooth-queries (docs/mechanisms.md H.6; Wang, Gaboardi, Smith, Xu 2020, Alg 7): the
// mean aggregator's per-coordinate estimates of the t^p Chebyshev feature means
// p~_v = mean_i prod_j T_(v_j)(x_ij) (wire/chebyshev.h order: v = sum_j v_j t^j, axis 0 fastest)
// answer any smooth query f: [-1, 1]^p -> R as sum_v c_v p~_v, where c_v are the coefficients of
// f's Chebyshev interpolant of degree < t per axis, i.e. the cosine-series coefficients of
// g_f(theta) = f(cos theta_1, ..., cos theta_p) from its values at the Chebyshev nodes, computed by
// a DCT-II along each axis (O(N t p) for N = t^p; no FFT library).
//
// The answer is unbiased for sum_v c_v mean_i phi_v(x_i), the mean of the interpolant over the
// data, whose distance to the mean of f is at most f's interpolation error (small for smooth f:
// geometric in t for analytic f); its variance sum_v c_v^2 Var(p~_v) is exact (the coordinates'
// noises are independent), and the interval is the normal one, value -+ z sqrt(variance).
#ifndef LDP_SERVER_SMOOTH_QUERIES_H
#define LDP_SERVER_SMOOTH_QUERIES_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/server/aggregator.h"

namespace ldp::server {

// Chebyshev node k of t: cos(pi (k + 1/2) / t), k in [0, t).
[[nodiscard]] double chebyshev_node(uint32_t t, uint32_t k) noexcept;

// The coefficients c (t^p of them, feature order) of the interpolant through `node_values`, f's
// values on the tensor grid of nodes (index sum_j k_j t^j, axis 0 fastest): along each axis
// c_v = (2 - [v = 0]) / t sum_k g_k cos(pi v (k + 1/2) / t). Throws std::invalid_argument unless
// node_values.size() == t^p.
[[nodiscard]] std::vector<double> chebyshev_coefficients(uint32_t p, uint32_t t,
                                                         const std::vector<double>& node_values);
// The same for f evaluated on the nodes (f receives the p coordinates of a node).
[[nodiscard]] std::vector<double> chebyshev_coefficients(uint32_t p, uint32_t t,
                                                         const std::function<double(const double*)>& f);

// The built-in query family of `ldp estimate --query` (docs/cli.md): for a point c in [-1, 1]^p
// and a width s > 0,
//   gaussian:    exp(-|x - c|^2 / (2 s^2)), a kernel density at c (unnormalized);
//   smooth_step: prod_j 1 / (1 + exp(-(x_j - c_j) / s)), a smoothed indicator of x >= c;
//   monomial:    prod_j x_j^(a_j) with the integer powers a_j = c_j (width unused), exact when
//                every a_j < t.
enum class smooth_query_kind { gaussian, smooth_step, monomial };

struct smooth_query {
  std::string name;
  smooth_query_kind kind = smooth_query_kind::gaussian;
  std::vector<double> point;  // c (p values; monomial: the powers)
  double width = 1;           // s
};

// f(x) for the p coordinates of x (p = q.point.size()).
[[nodiscard]] double evaluate(const smooth_query& q, const double* x);

struct smooth_answer {
  double value = 0;
  double variance = 0;
  double ci_low = 0;
  double ci_high = 0;
};

// sum_v c_v features[v].value, its variance sum_v c_v^2 features[v].variance and the two-sided
// normal interval at `confidence` in (0, 1). features: the aggregator's estimate_all() of a
// smooth-queries state (t^p estimates, item v). Throws std::invalid_argument when the sizes differ.
[[nodiscard]] smooth_answer answer_smooth_query(const std::vector<double>& coefficients, span<const estimate> features,
                                                double confidence);

}  // namespace ldp::server

#endif
