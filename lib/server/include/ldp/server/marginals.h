// Server side of `kway-marginals` (docs/mechanisms.md H.5, Wang, Gaboardi, Smith, Xu 2020 Alg 6):
// answers from the mean aggregator's estimates of a kway-marginals block, so from a saved state too.
//
// The aggregator estimates every coordinate: f-hat(S), the fraction of records whose ones include
// the conjunction S (1 <= |S| <= k, coordinate wire::conjunction_index), unbiased, with the exact
// variance sigma^2 / n of the implemented noise; the coordinates' noises are independent (f-hat of
// the empty set is 1 exactly). Every answer here is a fixed linear combination sum_S w_S f-hat(S),
// so it is unbiased for the same combination of the true fractions and its variance is
// sum_S w_S^2 var(S); the interval is value -+ z sqrt(variance) at the two-sided normal z of
// `confidence` in (0, 1), as estimate_all's.
//
//   - a conjunction: w = 1 at S;
//   - a marginal over attributes A (|A| <= k): cell c (bit i = the value of attribute A[i]) is
//     P(x_A = c) = sum_{ones(c) subset T subset A} (-1)^{|T| - |ones(c)|} f(T) (inclusion-exclusion);
//   - a monotone disjunction OR_{j in Y} x_j (|Y| <= k) through a polynomial p with p(0) = 0 (the
//     paper's answer): sum_{S subset Y, S nonempty} a_{|S|} f-hat(S), a_s = sum_m c_m s! S(m, s) for
//     p(w) = sum_m c_m w^m, since p(|supp x cap Y|) = sum_s a_s C(|supp x cap Y|, s). With the exact
//     polynomial a_s = (-1)^(s+1) and the answer is 1 minus the all-zero cell of the marginal over Y;
//     Chebyshev's p_k (below) is within gamma of it, with smaller weights on the large sets.
//
// Errors are statuses: invalid_argument for a block of another mechanism, estimates of the wrong
// count, or attributes out of range, repeated or more than k; overflow when memory runs out.
#ifndef LDP_SERVER_MARGINALS_H
#define LDP_SERVER_MARGINALS_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"

namespace ldp::server {

// A marginal: cell c (item c) is the estimate of P(x_A = c), bit i of c the value of attributes[i].
struct marginal_table {
  std::vector<uint32_t> attributes;  // as asked
  std::vector<estimate> cells;       // 2^|A| cells, cell c at index c
};

// f-hat(S) for the mask `set` of 1 <= |S| <= k attributes below p (item = S's coordinate).
[[nodiscard]] status conjunction_estimate(const wire::params& p, span<const estimate> coordinates, uint64_t set,
                                          double confidence, estimate* out) noexcept;

// The 2^|A| cells of the marginal over `attributes` (distinct, below p, 1 <= |A| <= k).
[[nodiscard]] status marginal_estimate(const wire::params& p, span<const estimate> coordinates,
                                       span<const uint32_t> attributes, double confidence,
                                       marginal_table* out) noexcept;

// The disjunction over `set` (1 <= |S| <= k) with the subset weights a_1.. (a_s = 0 beyond the
// vector; item = 0).
[[nodiscard]] status disjunction_estimate(const wire::params& p, span<const estimate> coordinates, uint64_t set,
                                          span<const double> weights, double confidence, estimate* out) noexcept;

// ---- The polynomial of Alg 6 (docs/mechanisms.md H.5, C.4) -------------------------------------

// The monomial coefficients c_0..c_t of p_k for gamma in (0, 1): with r = ceil(sqrt(k - 1)) and
// m = ceil(log2(1 / gamma)), p_k(x) = 1 - (T_r((k - x) / (k - 1)) / T_r(k / (k - 1)))^m (degree
// r m), or the exact 1 - prod_{j=1..k} (1 - x / j) (degree k) when r m >= k or k = 1. p_k(0) = 0
// and |p_k(x) - 1| <= gamma for x in {1..k}. Empty for k = 0 or gamma outside (0, 1).
[[nodiscard]] std::vector<double> disjunction_polynomial(uint32_t k, double gamma);

// p_k(x) evaluated from the Chebyshev form above (not from the monomials), for the tests.
[[nodiscard]] double disjunction_polynomial_value(uint32_t k, double gamma, double x) noexcept;

// a_s = sum_m c_m s! S(m, s), s = 1..min(k, t), from the monomials c (S the Stirling numbers of the
// second kind): sum_{s} C(w, s) a_s = p(w) for every integer w >= 0 when p(0) = 0. Index 0 holds a_1.
[[nodiscard]] std::vector<double> subset_weights(const std::vector<double>& monomials, uint32_t k);

}  // namespace ldp::server

#endif
