#include "ldp/wire/loss.h"

#include <limits>

#include "ldp/wire/det_math.h"

namespace ldp::wire {
namespace {

// Clamp to [0, 1]; NaN stays NaN (both comparisons are false).
double unit_clamp(double v) noexcept { return v < 0 ? 0.0 : (v > 1 ? 1.0 : v); }

// ln(1 + e^z) without overflow: for z > 0 it is z + ln(1 + e^{-z}).
double softplus(double z) noexcept { return z > 0 ? z + det_log(1.0 + det_exp(-z)) : det_log(1.0 + det_exp(z)); }

}  // namespace

double loss_value(loss_kind kind, const double* w, const double* x, uint32_t p, double y) noexcept {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (p == 0 || y != y) return nan;
  // Summed in index order: the order is part of the bit-for-bit agreement (H.0).
  double m = 0;
  for (uint32_t j = 0; j < p; ++j) {
    if (w[j] != w[j] || x[j] != x[j]) return nan;
    m += (2 * unit_clamp(w[j]) - 1) * unit_clamp(x[j]);
  }
  const double label = unit_clamp(y);
  const double s = 2 * label - 1;
  const double pd = static_cast<double>(p);
  switch (kind) {
    case loss_kind::caller: return nan;
    case loss_kind::squared: {
      const double r = (m - label) / (pd + 1);
      return unit_clamp(r * r);
    }
    case loss_kind::logistic: return unit_clamp(softplus(-s * m) / softplus(pd));
    case loss_kind::hinge: {
      const double h = 1 - s * m;
      return unit_clamp((h < 0 ? 0.0 : h) / (pd + 1));
    }
  }
  return nan;  // not a loss_kind: the block validation refuses such values first
}

uint64_t grid_point_count(uint32_t p, uint32_t k) noexcept {
  constexpr uint64_t limit = uint64_t{1} << 32;
  const uint64_t base = uint64_t{k} + 1;
  uint64_t n = 1;
  for (uint32_t j = 0; j < p; ++j) {
    if (n > limit / base) return 0;  // checked before multiplying: no wrap-around
    n *= base;
  }
  return n;
}

void grid_point(uint32_t p, uint32_t k, uint64_t l, double* w) noexcept {
  const uint64_t base = uint64_t{k} + 1;
  for (uint32_t j = 0; j < p; ++j) {
    w[j] = static_cast<double>(l % base) / static_cast<double>(k);
    l /= base;
  }
}

}  // namespace ldp::wire
