#include "ldp/server/central/l1_projection.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace ldp::server {
namespace {

bool arguments_ok(span<const double> y, double radius) {
  if (!(radius >= 0) || !std::isfinite(radius)) return false;
  return std::all_of(y.begin(), y.end(), [](double v) { return std::isfinite(v); });
}

// Duchi et al. 2008, Figure 1: with u = |y| sorted in decreasing order and S_k the sum of its first
// k entries, rho = max{k : u_k - (S_k - R) / k > 0} and theta = (S_rho - R) / rho. The condition holds
// for a prefix of k (Lemma 2 of the paper), so the scan stops at its first failure.
double threshold_of(span<const double> y, double radius) {
  double norm = 0;
  for (double v : y) norm += std::fabs(v);
  if (norm <= radius) return 0;
  std::vector<double> u(y.size());
  std::transform(y.begin(), y.end(), u.begin(), [](double v) { return std::fabs(v); });
  std::sort(u.begin(), u.end(), std::greater<double>());
  if (radius == 0) return u[0];  // no k qualifies: everything shrinks to 0
  double sum = 0, theta = 0;
  for (std::size_t k = 0; k < u.size(); ++k) {
    const double candidate = (sum + u[k] - radius) / static_cast<double>(k + 1);
    if (!(u[k] > candidate)) break;
    sum += u[k];
    theta = candidate;
  }
  return theta;
}

}  // namespace

status l1_ball_threshold(span<const double> y, double radius, double* theta) noexcept {
  *theta = 0;
  if (!arguments_ok(y, radius)) return status::invalid_argument;
  try {
    *theta = threshold_of(y, radius);
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

status project_l1_ball(span<const double> y, double radius, std::vector<double>* out) noexcept {
  if (!arguments_ok(y, radius)) return status::invalid_argument;
  try {
    const double theta = threshold_of(y, radius);
    out->assign(y.begin(), y.end());
    if (theta == 0) return status::ok;
    for (double& v : *out) {
      const double shrunk = std::fabs(v) - theta;
      v = shrunk > 0 ? std::copysign(shrunk, v) : 0.0;
    }
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

}  // namespace ldp::server
