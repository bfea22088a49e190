// Distribution functions and hypothesis tests for the statistical test suites. Accuracy matters
// far out in the tails: the suites test at p-values near default_alpha, and confidence bounds on
// rare events must not be loosened by rounding.
#ifndef LDP_TESTS_SUPPORT_STATS_H
#define LDP_TESTS_SUPPORT_STATS_H

#include <cstdint>
#include <vector>

namespace ldp::test {

// The false-failure probability each statistical test is designed for: a correct implementation
// fails a given test with probability at most this, so the whole suite is practically never flaky.
inline constexpr double default_alpha = 1e-6;

// ln |Gamma(x)|.
double log_gamma(double x);

// Upper regularized incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a), for a > 0, x >= 0.
// About 1e-12 relative accuracy for a in [0.5, 1e5], including deep in the upper tail.
double regularized_gamma_q(double a, double x);

// P(X >= statistic) for X ~ chi-square(dof). dof <= 0 is the point mass at 0.
double chi_square_sf(double statistic, double dof);

// Regularized incomplete beta function I_x(a, b), for a, b > 0 and x in [0, 1].
double regularized_beta(double a, double b, double x);

// The x in [0, 1] with I_x(a, b) = p. Accurate to a few ulps of x plus the rounding of I itself.
double beta_quantile(double p, double a, double b);

struct interval {
  double lo;
  double hi;
};

// Exact two-sided Clopper-Pearson interval for a binomial proportion with k successes in n trials,
// at confidence level 1 - alpha. Throws std::invalid_argument if k > n; n == 0 gives [0, 1].
interval clopper_pearson(uint64_t k, uint64_t n, double alpha);

struct chi_square_result {
  double statistic;
  double dof;
  double p_value;
};

// Pearson goodness of fit of observed bin counts (summing to n) to bin probabilities. The
// probabilities are normalized by their sum, so a truncated pmf can be completed by a final "rest"
// bin. Bins with expected count under 5 are merged greedily left to right with the following bins;
// a remainder under 5 at the end joins the last merged bin; dof = merged bins - 1. Any count in a
// zero-probability bin gives statistic +inf and p-value 0. Throws std::invalid_argument on
// mismatched sizes, sum(observed) != n, or probabilities that are negative or sum to zero.
chi_square_result chi_square_gof(const std::vector<uint64_t>& observed, const std::vector<double>& expected_prob,
                                 uint64_t n);

// Pearson test of independence for an r x c contingency table (rows of equal length). All-zero
// rows and columns are dropped, so dof = (r' - 1)(c' - 1) over the remaining ones. The caller keeps
// expected counts large enough (>= 5) for the chi-square approximation.
chi_square_result chi_square_independence(const std::vector<std::vector<uint64_t>>& table);

// P(Z >= z) for Z ~ N(0, 1).
double normal_sf(double z);

// The discrete Laplace law DLap(t), P(Y = y) = (1 - a) / (1 + a) a^|y| with a = e^(-1/t), on the
// bins y = -m .. m followed by one "rest" bin for |y| > m (chi_square_gof's layout).
std::vector<double> discrete_laplace_pmf(double t, int m);

// Least-squares slope of ln y on ln x (all x, y > 0; at least two distinct x), for the scaling
// tests. With sd_log_y, the standard deviations of the independent ln y_i (x exact), it also gives
// the slope's standard error: the slope is sum_i w_i ln y_i with w_i = (u_i - u_bar) / S_uu,
// u = ln x, so its variance is sum_i w_i^2 sd_i^2.
struct slope_fit {
  double slope;
  double standard_error;  // 0 when no sd_log_y was given
};
slope_fit log_log_fit(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& sd_log_y);
double log_log_slope(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace ldp::test

#endif
