#include "ldp/wire/zcdp.h"

#include <limits>

#include "ldp/wire/det_math.h"

namespace ldp::wire {
namespace {

// One order's bound of CKS 2020 Corollary 13, rewritten with ln(1 - 1/a) = ln(a - 1) - ln a:
// a rho + (L - a ln a) / (a - 1) + ln(a - 1), L = ln(1/delta), for a = 1 + b, b > 0.
double order_bound(double rho, double log_inverse_delta, double b) noexcept {
  const double a = 1.0 + b;
  return a * rho + (log_inverse_delta - a * det_log(a)) / b + det_log(b);
}

}  // namespace

double zcdp_epsilon(double rho, double delta) noexcept {
  if (!(rho >= 0) || !(delta > 0) || !(delta < 1)) return std::numeric_limits<double>::quiet_NaN();
  if (rho == 0) return 0;
  const double log_inverse_delta = -det_log(delta);
  // Grid b = a - 1 = 2^(k/4), k in [-160, 160]: the optimum a ~ 1 + sqrt(L / rho) lies inside for
  // every rho the blocks can hold (D (p + 4) Q^2 / 2^53 <= rho <= 2^40).
  const auto b_of = [](double k) { return det_exp(k / 4.0 * 0.6931471805599453); };
  int best_k = -160;
  double best = order_bound(rho, log_inverse_delta, b_of(-160));
  for (int k = -159; k <= 160; ++k) {
    const double v = order_bound(rho, log_inverse_delta, b_of(k));
    if (v < best) {
      best = v;
      best_k = k;
    }
  }
  // Golden-section search for the minimum between the grid's neighbours (the bound is convex in
  // ln b near its minimum); any b is a valid order, so the result is a bound whatever it finds.
  double lo = best_k - 1.0, hi = best_k + 1.0;
  const double ratio = 0.6180339887498949;
  for (int i = 0; i < 60; ++i) {
    const double m1 = hi - ratio * (hi - lo), m2 = lo + ratio * (hi - lo);
    if (order_bound(rho, log_inverse_delta, b_of(m1)) < order_bound(rho, log_inverse_delta, b_of(m2))) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  const double refined = order_bound(rho, log_inverse_delta, b_of((lo + hi) / 2));
  if (refined < best) best = refined;
  return best < 0 ? 0 : best;
}

}  // namespace ldp::wire
