// Scaled group estimates, selection and the noise threshold of string discovery (string_groups.h,
// docs/mechanisms.md F.1, F.3).
#include "string_groups.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "estimation.h"

namespace ldp::server::detail {

status group_view::scaled(uint32_t g, span<const uint32_t> items, double confidence, std::vector<estimate>* out) const {
  const uint64_t n_g = reports(g);
  if (n_g == 0) {
    out->assign(items.size(), empty_estimate(0));
    for (std::size_t i = 0; i < items.size(); ++i) (*out)[i].item = items[i];
    return status::ok;
  }
  *out = groups_[g]->estimate_items(items, confidence);
  if (out->size() != items.size()) return status::overflow;  // estimate_items is empty when memory runs out
  const double z = confidence_z(confidence);
  const auto n = static_cast<double>(n_);
  const double scale = n / static_cast<double>(n_g);
  for (estimate& e : *out) {
    e.value *= scale;
    e.variance = scale * scale * e.variance + draw_variance(e.value, static_cast<double>(n_g));
    const double half = z * std::sqrt(e.variance);
    e.ci_low = e.value - half;
    e.ci_high = e.value + half;
  }
  return status::ok;
}

double group_view::draw_variance(double value, double sample) const noexcept {
  const auto n = static_cast<double>(n_);
  const double c = clip_count(value, n);
  return c * (1 - c / n) * (n / sample - 1);
}

void string_pool::add(const group_view& v, uint32_t g, const estimate& e) noexcept {
  const auto n_g = static_cast<double>(v.reports(g));
  weight += n_g;
  sum += n_g * e.value;
  oracle += n_g * n_g * (e.variance - v.draw_variance(e.value, n_g));
}

void string_pool::into(const group_view& v, double z, estimate* e) const noexcept {
  e->value = sum / weight;
  e->variance = oracle / (weight * weight) + v.draw_variance(e->value, weight);
  e->ci_low = e->value - z * std::sqrt(e->variance);
  e->ci_high = e->value + z * std::sqrt(e->variance);
}

std::vector<std::size_t> best_of(const std::vector<estimate>& est, uint64_t keep,
                                 const std::vector<unsigned char>& eligible, rank_by key) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < est.size(); ++i) {
    if (eligible.empty() || eligible[i] != 0) order.push_back(i);
  }
  const auto of = [&](std::size_t i) { return key == rank_by::value ? est[i].value : est[i].ci_low; };
  const auto better = [&](std::size_t a, std::size_t b) { return of(a) != of(b) ? of(a) > of(b) : a < b; };
  const auto kept = static_cast<std::size_t>(std::min<uint64_t>(keep, order.size()));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(), better);
  order.resize(kept);
  return order;
}

namespace {

// The median of the values (reordered).
double median_of(std::vector<double>& values) {
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace

double noise_threshold(const std::vector<estimate>& est) {
  double at_zero = std::numeric_limits<double>::infinity(), least = at_zero;
  for (const estimate& e : est) {
    least = std::min(least, e.variance);
    if (e.value <= 0) at_zero = std::min(at_zero, e.variance);
  }
  double variance = std::isfinite(at_zero) ? at_zero : least;
  if (est.size() >= 2) {
    std::vector<double> values(est.size());
    for (std::size_t i = 0; i < est.size(); ++i) values[i] = est[i].value;
    const double center = median_of(values);
    for (double& v : values) v = std::abs(v - center);
    const double spread = 1.482602218505602 * median_of(values);  // sd of a normal from its MAD
    variance = std::min(variance, spread * spread);
  }
  return noise_z(est.size()) * std::sqrt(variance);
}

double noise_z(std::size_t candidates) noexcept {
  // P(Z > z) = 1 / (2 C) is P(|Z| <= z) = 1 - 1 / C.
  return confidence_z(1 - 1 / std::max(static_cast<double>(candidates), 2.0));
}

std::vector<unsigned char> alphabet_bytes(const std::string& given) {
  std::vector<unsigned char> out;
  for (const char c : given) {
    if (c != 0) out.push_back(static_cast<unsigned char>(c));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string unpadded(const wire::padded_string& s) {
  const auto* end = std::find(s.bytes, s.bytes + wire::max_string_bytes, 0);
  return std::string(reinterpret_cast<const char*>(s.bytes), static_cast<std::size_t>(end - s.bytes));
}

}  // namespace ldp::server::detail
