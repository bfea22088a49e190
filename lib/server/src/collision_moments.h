// The collision moments of a public hash family over a whole domain (docs/mechanisms.md A.6
// "Conditional on the public family"): the server knows every row's hash function, so for each item
// it can count, row by row, which other items share its bucket, and weigh them by their plug-in
// counts. Used by the CMS/HCMS estimator (sketch.cpp) and FLH's (fast_local_hashing.cpp, g buckets
// per function in place of m, A.4).
#ifndef LDP_SERVER_SRC_COLLISION_MOMENTS_H
#define LDP_SERVER_SRC_COLLISION_MOMENTS_H

#include <cstdint>
#include <functional>
#include <vector>

namespace ldp::server::detail {

// For items x < d of k rows with m buckets each, a_y(x) = #{j : h_j(y) = h_j(x)} / k, and weights
// w (one vector of d values per weight):
//   first[w][x]  = sum_{y != x} w_y a_y(x)      always exact, O(k (d + m)) time
//   second[w][x] = sum_{y != x} w_y a_y(x)^2    exact when `exact`: the pairs of items that share a
//                  bucket, over all rows, number at most min(4 k (d + m), 2^23) (sorted, so
//                  O(k (d + m) log) time); otherwise a lower bound for w >= 0: the larger of
//                  first / k (a_y is 0 or at least 1/k; equal when no item shares a bucket with x in
//                  two or more rows) and first^2 / sum_{y != x} w_y (Cauchy-Schwarz).
struct collision_moments {
  std::vector<std::vector<double>> first;
  std::vector<std::vector<double>> second;
  bool exact = true;
};

// `row(j, buckets)` writes h_j(x) < m for every x < d into buckets (size d). Without `second`, only
// `first` is computed (second empty, exact false). May throw std::bad_alloc.
[[nodiscard]] collision_moments moments_of_collisions(uint32_t k, uint32_t m, uint32_t d,
                                                      const std::function<void(uint32_t, std::vector<uint32_t>&)>& row,
                                                      const std::vector<std::vector<double>>& weights, bool second);

// The reported mean squared error of a conditional estimate (A.6, A.4): `mse` is the variance plus
// the squared bias less the plug-ins' own noise, which is unbiased and so not clipped at 0; the total
// is kept at least half the variance, so a noisy plug-in never reports an error near zero.
[[nodiscard]] inline double conditional_mse(double variance, double mse) noexcept {
  return mse > variance / 2 ? mse : variance / 2;
}

}  // namespace ldp::server::detail

#endif
