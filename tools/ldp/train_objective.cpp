#include "train_objective.h"

#include <cmath>

#include "errors.h"
#include "ldp/server/bernstein.h"

namespace ldp::tools {
namespace {

double margin(const double* w, const double* x, uint32_t p) {
  double m = 0;
  for (uint32_t j = 0; j < p; ++j) m += (2 * w[j] - 1) * x[j];
  return m;
}

}  // namespace

double empirical_risk(wire::loss_kind loss, const examples& data, const double* w) {
  double sum = 0, total = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const double weight = data.weight.empty() ? 1.0 : data.weight[i];
    sum += weight * wire::loss_value(loss, w, data.row(i), data.p, data.y[i]);
    total += weight;
  }
  return sum / total;
}

void loss_gradient(wire::loss_kind loss, const double* w, const double* x, uint32_t p, double y, double* gradient) {
  const double m = margin(w, x, p), s = 2 * y - 1, dp = static_cast<double>(p);
  double factor = 0;  // d loss / d m, times 2 (dm/dw_j = 2 x_j)
  switch (loss) {
    case wire::loss_kind::squared: factor = 4 * (m - y) / ((dp + 1) * (dp + 1)); break;
    case wire::loss_kind::logistic: factor = -2 * s / ((1 + std::exp(s * m)) * std::log1p(std::exp(dp))); break;
    case wire::loss_kind::hinge: factor = s * m < 1 ? -2 * s / (1 + dp) : 0; break;
    case wire::loss_kind::caller: fail("internal: ldp train has no gradient for a caller's loss");
  }
  for (uint32_t j = 0; j < p; ++j) gradient[j] = factor * x[j];
}

double gradient_bound(wire::loss_kind loss, uint32_t p) {
  const double dp = static_cast<double>(p), root = std::sqrt(dp);
  switch (loss) {
    case wire::loss_kind::squared: return 4 * root / (dp + 1);
    case wire::loss_kind::logistic: return 2 * root / std::log1p(std::exp(dp));
    case wire::loss_kind::hinge: return 2 * root / (dp + 1);
    case wire::loss_kind::caller: break;
  }
  fail("internal: ldp train has no gradient bound for a caller's loss");
}

double accuracy(const examples& data, const double* w) {
  std::size_t right = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const double predicted = margin(w, data.row(i), data.p) > 0 ? 1.0 : 0.0;
    right += predicted == data.y[i] ? 1 : 0;
  }
  return static_cast<double>(right) / static_cast<double>(data.size());
}

std::vector<double> nonprivate_minimum(wire::loss_kind loss, const examples& data, uint64_t seed) {
  const server::box_minimum best = server::minimize_on_box(
      data.p, [&](const double* w) { return empirical_risk(loss, data, w); }, seed);
  if (best.w.size() != data.p) fail("out of memory minimizing the non-private risk");
  return best.w;
}

}  // namespace ldp::tools
