#include "stats.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace ldp::test {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr double log_two_pi = 1.8378770664093454836;
constexpr int max_iterations = 1000000;  // far above what a, b, x up to ~1e9 need

// ln Gamma(a) - [(a - 1/2) ln a - a + ln(2 pi) / 2]. Subtracting the large Stirling terms
// analytically (rather than through lgamma) keeps the tail prefactors below accurate for large a.
double stirling_error(double a) {
  if (a < 10.0) return std::lgamma(a) - ((a - 0.5) * std::log(a) - a + 0.5 * log_two_pi);
  // Asymptotic series; at a >= 10 the first omitted term is below 2e-18.
  const double r = 1.0 / a;
  const double r2 = r * r;
  return r * (1.0 / 12 +
              r2 * (-1.0 / 360 +
                    r2 * (1.0 / 1260 +
                          r2 * (-1.0 / 1680 + r2 * (1.0 / 1188 + r2 * (-691.0 / 360360 +
                                                                       r2 * (1.0 / 156 + r2 * (-3617.0 / 122400))))))));
}

// t - ln(1 + t) where 1 + t = num / den > 0 and t = diff / den, diff = num - den being supplied
// by the caller as accurately as it knows it. Without the cancellation of the direct form near
// t = 0; far from 0 the log is taken of the ratio itself, as 1 + t rebuilt from a rounded t would
// lose the digits of a tiny ratio.
double log_ratio_deficit(double num, double den, double diff) {
  const double t = diff / den;
  if (std::fabs(t) >= 0.5) return t - std::log(num / den);
  // With v = t / (2 + t): ln(1 + t) = 2 atanh(v) and t - 2v = t v, so the result is
  // t v - 2 (v^3/3 + v^5/5 + ...), where the first term dominates (|v| <= 1/3).
  const double v = t / (2.0 + t);
  const double v2 = v * v;
  double power = v * v2;
  double sum = 0.0;
  for (int k = 3; k < 200; k += 2) {
    const double term = power / k;
    sum += term;
    if (std::fabs(term) <= 1e-18 * std::fabs(sum)) break;
    power *= v2;
  }
  return t * v - 2.0 * sum;
}

// ln(x^a e^-x / Gamma(a)), written as -a (t - ln(1 + t)) + ... with 1 + t = x / a, so that no
// two large logarithms are subtracted.
double log_gamma_kernel(double a, double x) {
  return -a * log_ratio_deficit(x, a, x - a) + 0.5 * (std::log(a) - log_two_pi) - stirling_error(a);
}

// ln(x^a y^b / B(a, b)) for y = 1 - x, by the same device around the mode (p, q) =
// (a, b) / (a + b). The smaller of x and y is exact (it is the caller's input, or its complement
// when that was >= 1/2), so both distances to the mode are taken from it.
double log_beta_kernel(double a, double b, double x, double y) {
  const double s = a + b;
  const double p = a / s;
  const double q = b / s;
  const double x_minus_p = x <= y ? x - p : q - y;
  return -a * log_ratio_deficit(x, p, x_minus_p) - b * log_ratio_deficit(y, q, -x_minus_p) +
         0.5 * (std::log(a) + std::log(b) - std::log(s) - log_two_pi) + stirling_error(s) - stirling_error(a) -
         stirling_error(b);
}

// b0 + a1 / (b1 + a2 / (b2 + ...)) by the modified Lentz method; term(j, aj, bj) supplies j >= 1.
// NaN if it does not converge, so a failure shows up in the tests rather than as a wrong number.
template <class Terms>
double continued_fraction(double b0, Terms term) {
  constexpr double tiny = 1e-300;
  constexpr double eps = 1e-16;
  double f = b0 == 0.0 ? tiny : b0;
  double c = f;
  double d = 0.0;
  for (int j = 1; j <= max_iterations; ++j) {
    double aj = 0.0;
    double bj = 0.0;
    term(j, aj, bj);
    d = bj + aj * d;
    if (d == 0.0) d = tiny;
    c = bj + aj / c;
    if (c == 0.0) c = tiny;
    d = 1.0 / d;
    const double delta = c * d;
    f *= delta;
    if (std::fabs(delta - 1.0) <= eps) return f;
  }
  return nan;
}

// P(a, x) by its power series; converges quickly for x < a + 1.
double gamma_p_series(double a, double x) {
  double term = 1.0 / a;
  double sum = term;
  for (int n = 1; n <= max_iterations; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term <= 1e-17 * sum) return std::exp(log_gamma_kernel(a, x)) * sum;
  }
  return nan;
}

// Q(a, x) by its continued fraction; converges quickly for x >= a + 1.
double gamma_q_fraction(double a, double x) {
  const double b0 = x + 1.0 - a;
  const double g = continued_fraction(b0, [&](int j, double& aj, double& bj) {
    aj = -j * (j - a);
    bj = b0 + 2.0 * j;
  });
  return std::exp(log_gamma_kernel(a, x)) / g;
}

// I_x(a, b) by its continued fraction 1 / (1 + d1 / (1 + d2 / (1 + ...))), with y = 1 - x;
// converges quickly for x < (a + 1) / (a + b + 2).
//
// Near x = 1 the fraction's value is O(1 - x) and comes from odd terms 1 + d_{2m+1} = O(1 - x).
// Formed from x those lose the digits of 1 - x that x cannot hold (in the symmetric branch x is
// a rounded 1 - x_in), so they are formed from the exact y, and the odd step is rearranged as
// C' = (1 + d + (C - 1)) / C, D' = 1 / (1 + d + d (D - 1)) for 1 + d to enter directly, with
// C - 1 and D - 1 carried over from the even step before it.
double beta_fraction(double a, double b, double x, double y) {
  constexpr double tiny = 1e-300;
  constexpr double eps = 1e-16;
  const bool near_one = x > 0.5;  // then b < a + 1, and y = 1 - x exactly or y is the exact input
  double f = 1.0;
  double c = 1.0;
  double d = 0.0;
  double c_minus_1 = 0.0;  // C - 1 and D - 1 after the last even step (or before the first step)
  double d_minus_1 = -1.0;
  bool previous_converged = false;
  for (int j = 1; j <= max_iterations; ++j) {
    const double m = j / 2;
    double c_next = 0.0;
    double d_denominator = 0.0;
    if (j % 2 == 1) {
      // d = -num x / den, and den - num = a (2m + 1 - b) + m (3m + 2 - b).
      const double num = (a + m) * (a + b + m);
      const double den = (a + 2 * m) * (a + 2 * m + 1);
      const double dj = -num * x / den;
      const double one_plus_dj =
          near_one ? (a * (2 * m + 1 - b) + m * (3 * m + 2 - b) + num * y) / den : (den - num * x) / den;
      c_next = (one_plus_dj + c_minus_1) / c;
      d_denominator = one_plus_dj + dj * d_minus_1;
    } else {
      const double dj = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      c_next = 1.0 + dj / c;
      d_denominator = 1.0 + dj * d;
      c_minus_1 = dj / c;
      d_minus_1 = -dj * d / d_denominator;
    }
    if (c_next == 0.0) c_next = tiny;
    if (d_denominator == 0.0) d_denominator = tiny;
    c = c_next;
    d = 1.0 / d_denominator;
    const double delta = c * d;
    f *= delta;
    // Even terms can be negligible while odd ones are not, so two in a row must be.
    const bool converged = std::fabs(delta - 1.0) <= eps;
    if (converged && previous_converged) return std::exp(log_beta_kernel(a, b, x, y)) / (a * f);
    previous_converged = converged;
  }
  return nan;
}

struct beta_tails {
  double lower;  // I_x(a, b)
  double upper;  // 1 - I_x(a, b), computed directly when it is the small one
};

beta_tails beta_cdf(double a, double b, double x) {
  if (x <= 0.0) return {0.0, 1.0};
  if (x >= 1.0) return {1.0, 0.0};
  const double y = 1.0 - x;
  if (x < (a + 1.0) / (a + b + 2.0)) {
    const double lower = beta_fraction(a, b, x, y);
    return {lower, 1.0 - lower};
  }
  const double upper = beta_fraction(b, a, y, x);
  return {1.0 - upper, upper};
}

double from_bits(uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// The smallest double x in (0, 1] with reached(x), given that reached is monotone, false at 0 and
// true at 1. Non-negative doubles are ordered like their bit patterns, so bisecting the patterns
// pins x to the ulp in at most 62 steps, at any magnitude (bisection on values would need ~1000
// steps to resolve a quantile near 1e-300).
template <class Predicate>
double bisect_unit_interval(Predicate reached) {
  uint64_t lo = 0;                    // 0.0
  uint64_t hi = 0x3ff0000000000000u;  // 1.0
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (reached(from_bits(mid))) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return from_bits(hi);
}

// The x with 1 - I_x(a, b) = q, searched on the upper tail itself so that small q keep their
// relative precision.
double beta_upper_quantile(double q, double a, double b) {
  if (std::isnan(q) || std::isnan(a) || std::isnan(b)) return nan;
  if (q <= 0.0) return 1.0;
  if (q >= 1.0) return 0.0;
  if (q > 0.5) return beta_quantile(1.0 - q, a, b);
  return bisect_unit_interval([&](double x) { return beta_cdf(a, b, x).upper <= q; });
}

}  // namespace

double log_gamma(double x) { return std::lgamma(x); }

double regularized_gamma_q(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || !(a > 0.0) || x < 0.0) return nan;
  if (x == 0.0) return 1.0;
  if (std::isinf(x)) return 0.0;
  if (x < a + 1.0) return 1.0 - gamma_p_series(a, x);
  return gamma_q_fraction(a, x);
}

double chi_square_sf(double statistic, double dof) {
  if (std::isnan(statistic) || std::isnan(dof)) return nan;
  if (dof <= 0.0) return statistic <= 0.0 ? 1.0 : 0.0;
  if (statistic <= 0.0) return 1.0;
  return regularized_gamma_q(0.5 * dof, 0.5 * statistic);
}

double regularized_beta(double a, double b, double x) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(x) || !(a > 0.0) || !(b > 0.0)) return nan;
  return beta_cdf(a, b, x).lower;
}

double beta_quantile(double p, double a, double b) {
  if (std::isnan(p) || std::isnan(a) || std::isnan(b)) return nan;
  if (p <= 0.0) return 0.0;
  if (p >= 1.0) return 1.0;
  if (p > 0.5) return beta_upper_quantile(1.0 - p, a, b);
  return bisect_unit_interval([&](double x) { return beta_cdf(a, b, x).lower >= p; });
}

interval clopper_pearson(uint64_t k, uint64_t n, double alpha) {
  if (k > n) throw std::invalid_argument("clopper_pearson: k > n");
  if (!(alpha > 0.0 && alpha < 1.0)) throw std::invalid_argument("clopper_pearson: alpha");
  const double kd = static_cast<double>(k);
  const double nd = static_cast<double>(n);
  const double half = 0.5 * alpha;
  // The upper bound is found on the upper tail, not as the 1 - alpha/2 quantile, because
  // 1 - alpha/2 would round away most of a small alpha's digits.
  const double lo = k == 0 ? 0.0 : beta_quantile(half, kd, nd - kd + 1.0);
  const double hi = k == n ? 1.0 : beta_upper_quantile(half, kd + 1.0, nd - kd);
  return {lo, hi};
}

chi_square_result chi_square_gof(const std::vector<uint64_t>& observed, const std::vector<double>& expected_prob,
                                 uint64_t n) {
  if (observed.size() != expected_prob.size()) {
    throw std::invalid_argument("chi_square_gof: size mismatch");
  }
  uint64_t total = 0;
  double prob_sum = 0.0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (!(expected_prob[i] >= 0.0) || std::isinf(expected_prob[i])) {
      throw std::invalid_argument("chi_square_gof: probability not finite and non-negative");
    }
    total += observed[i];
    prob_sum += expected_prob[i];
  }
  if (total != n) throw std::invalid_argument("chi_square_gof: observed counts do not sum to n");
  if (!(prob_sum > 0.0)) throw std::invalid_argument("chi_square_gof: probabilities sum to 0");

  const double nd = static_cast<double>(n);
  bool impossible = false;
  struct bin {
    double observed;
    double expected;
  };
  std::vector<bin> merged;
  bin pending{0.0, 0.0};
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (expected_prob[i] == 0.0 && observed[i] > 0) impossible = true;
    pending.observed += static_cast<double>(observed[i]);
    pending.expected += nd * (expected_prob[i] / prob_sum);
    if (pending.expected >= 5.0) {
      merged.push_back(pending);
      pending = {0.0, 0.0};
    }
  }
  if (pending.expected > 0.0 || pending.observed > 0.0) {
    if (merged.empty()) {
      merged.push_back(pending);
    } else {
      merged.back().observed += pending.observed;
      merged.back().expected += pending.expected;
    }
  }

  chi_square_result r{0.0, merged.empty() ? 0.0 : static_cast<double>(merged.size() - 1), 1.0};
  if (impossible) {
    r.statistic = infinity;
    r.p_value = 0.0;
    return r;
  }
  for (const bin& b : merged) {
    const double diff = b.observed - b.expected;
    r.statistic += diff * diff / b.expected;
  }
  r.p_value = chi_square_sf(r.statistic, r.dof);
  return r;
}

chi_square_result chi_square_independence(const std::vector<std::vector<uint64_t>>& table) {
  if (table.empty() || table[0].empty()) {
    throw std::invalid_argument("chi_square_independence: empty table");
  }
  const std::size_t cols = table[0].size();
  std::vector<uint64_t> row_sum(table.size(), 0);
  std::vector<uint64_t> col_sum(cols, 0);
  uint64_t total = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].size() != cols) {
      throw std::invalid_argument("chi_square_independence: ragged table");
    }
    for (std::size_t j = 0; j < cols; ++j) {
      row_sum[i] += table[i][j];
      col_sum[j] += table[i][j];
    }
    total += row_sum[i];
  }
  std::size_t live_rows = 0;
  std::size_t live_cols = 0;
  for (uint64_t s : row_sum) live_rows += s > 0 ? 1 : 0;
  for (uint64_t s : col_sum) live_cols += s > 0 ? 1 : 0;

  chi_square_result r{0.0, 0.0, 1.0};
  if (live_rows < 2 || live_cols < 2) return r;  // nothing to compare
  r.dof = static_cast<double>((live_rows - 1) * (live_cols - 1));
  // (O - E)^2 / E with E = R C / N, scaled by N so that a proportional table gives exactly 0.
  const double nd = static_cast<double>(total);
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (row_sum[i] == 0) continue;
    const double rd = static_cast<double>(row_sum[i]);
    for (std::size_t j = 0; j < cols; ++j) {
      if (col_sum[j] == 0) continue;
      const double cd = static_cast<double>(col_sum[j]);
      const double diff = nd * static_cast<double>(table[i][j]) - rd * cd;
      r.statistic += diff * diff / (nd * rd * cd);
    }
  }
  r.p_value = chi_square_sf(r.statistic, r.dof);
  return r;
}

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

std::vector<double> discrete_laplace_pmf(double t, int m) {
  const double a = std::exp(-1.0 / t);
  const double c = (1 - a) / (1 + a);
  std::vector<double> p;
  double inside = 0;
  for (int y = -m; y <= m; ++y) {
    p.push_back(c * std::pow(a, std::abs(y)));
    inside += p.back();
  }
  p.push_back(1 - inside);
  return p;
}

slope_fit log_log_fit(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& sd_log_y) {
  if (x.size() != y.size() || x.size() < 2 || (!sd_log_y.empty() && sd_log_y.size() != x.size())) {
    throw std::invalid_argument("log_log_fit: sizes");
  }
  const auto points = static_cast<double>(x.size());
  double mean_u = 0, mean_v = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mean_u += std::log(x[i]) / points;
    mean_v += std::log(y[i]) / points;
  }
  double suu = 0, suv = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double du = std::log(x[i]) - mean_u;
    suu += du * du;
    suv += du * (std::log(y[i]) - mean_v);
  }
  double variance = 0;
  for (std::size_t i = 0; i < sd_log_y.size(); ++i) {
    const double w = (std::log(x[i]) - mean_u) / suu;
    variance += w * w * sd_log_y[i] * sd_log_y[i];
  }
  return {suv / suu, std::sqrt(variance)};
}

double log_log_slope(const std::vector<double>& x, const std::vector<double>& y) { return log_log_fit(x, y, {}).slope; }

}  // namespace ldp::test
