#include "ldp/server/smooth_queries.h"

#include <cmath>
#include <stdexcept>

#include "estimation.h"

namespace ldp::server {
namespace {

constexpr double pi = 3.14159265358979323846;

uint64_t feature_count(uint32_t p, uint32_t t) {
  uint64_t n = 1;
  for (uint32_t j = 0; j < p; ++j) {
    n *= t;
    if (n > (uint64_t{1} << 32)) throw std::invalid_argument("smooth-queries: t^p too large");
  }
  return n;
}

}  // namespace

double chebyshev_node(uint32_t t, uint32_t k) noexcept { return std::cos(pi * (k + 0.5) / t); }

std::vector<double> chebyshev_coefficients(uint32_t p, uint32_t t, const std::vector<double>& node_values) {
  if (t == 0 || node_values.size() != feature_count(p, t))
    throw std::invalid_argument("smooth-queries: node values must be t^p");
  // The DCT-II matrix of one axis, applied along axes 0..p-1 in turn (the transform is separable).
  std::vector<double> dct(static_cast<std::size_t>(t) * t);
  for (uint32_t v = 0; v < t; ++v) {
    const double weight = (v == 0 ? 1.0 : 2.0) / t;
    for (uint32_t k = 0; k < t; ++k) dct[v * t + k] = weight * std::cos(pi * v * (k + 0.5) / t);
  }
  std::vector<double> c = node_values, line(t);
  const std::size_t n = c.size();
  for (std::size_t stride = 1; stride < n; stride *= t) {
    for (std::size_t base = 0; base < n; ++base) {
      if ((base / stride) % t != 0) continue;  // the first element of each line along this axis
      for (uint32_t v = 0; v < t; ++v) {
        double sum = 0;
        for (uint32_t k = 0; k < t; ++k) sum += dct[v * t + k] * c[base + k * stride];
        line[v] = sum;
      }
      for (uint32_t v = 0; v < t; ++v) c[base + v * stride] = line[v];
    }
  }
  return c;
}

std::vector<double> chebyshev_coefficients(uint32_t p, uint32_t t, const std::function<double(const double*)>& f) {
  const uint64_t n = feature_count(p, t);
  std::vector<double> values(static_cast<std::size_t>(n)), x(p);
  for (uint64_t l = 0; l < n; ++l) {
    uint64_t rest = l;
    for (uint32_t j = 0; j < p; ++j) {
      x[j] = chebyshev_node(t, static_cast<uint32_t>(rest % t));
      rest /= t;
    }
    values[static_cast<std::size_t>(l)] = f(x.data());
  }
  return chebyshev_coefficients(p, t, values);
}

double evaluate(const smooth_query& q, const double* x) {
  double out = 1;
  switch (q.kind) {
    case smooth_query_kind::gaussian: {
      double squared = 0;
      for (std::size_t j = 0; j < q.point.size(); ++j) squared += (x[j] - q.point[j]) * (x[j] - q.point[j]);
      return std::exp(-squared / (2 * q.width * q.width));
    }
    case smooth_query_kind::smooth_step:
      for (std::size_t j = 0; j < q.point.size(); ++j) out /= 1 + std::exp(-(x[j] - q.point[j]) / q.width);
      return out;
    case smooth_query_kind::monomial:
      for (std::size_t j = 0; j < q.point.size(); ++j) out *= std::pow(x[j], q.point[j]);
      return out;
  }
  return std::nan("");  // a value outside the enumeration
}

smooth_answer answer_smooth_query(const std::vector<double>& coefficients, span<const estimate> features,
                                  double confidence) {
  if (coefficients.size() != features.size())
    throw std::invalid_argument("smooth-queries: one coefficient per feature estimate");
  smooth_answer a;
  for (std::size_t v = 0; v < coefficients.size(); ++v) {
    a.value += coefficients[v] * features[v].value;
    a.variance += coefficients[v] * coefficients[v] * features[v].variance;
  }
  const double half = detail::confidence_z(confidence) * std::sqrt(a.variance);
  a.ci_low = a.value - half;
  a.ci_high = a.value + half;
  return a;
}

}  // namespace ldp::server
