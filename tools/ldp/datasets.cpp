#include "datasets.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "csv.h"
#include "errors.h"
#include "ldp/wire/det_math.h"

namespace ldp::tools {
namespace {

// x^-s with the wire module's deterministic exp/log (libm's pow differs between hosts).
double power_law(double x, double s) { return wire::det_exp(-s * wire::det_log(x)); }

// N devices shared out in proportion to `weights`, by largest remainder (ties to the lower index).
std::vector<uint64_t> allocate(const std::vector<double>& weights, uint64_t n) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<uint64_t> counts(weights.size());
  std::vector<std::pair<double, std::size_t>> remainders(weights.size());
  uint64_t assigned = 0;
  for (std::size_t v = 0; v < weights.size(); ++v) {
    const double share = static_cast<double>(n) * (weights[v] / total);
    counts[v] = static_cast<uint64_t>(std::floor(share));
    assigned += counts[v];
    remainders[v] = {share - std::floor(share), v};
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (assigned > n) fail("internal: dataset allocation gave {} devices for {}", assigned, n);
  for (std::size_t i = 0; assigned < n; ++i, ++assigned) ++counts[remainders[i % remainders.size()].second];
  return counts;
}

// Devices hold items in increasing order, item v by counts[v] of them.
class allocated_items final : public dataset {
 public:
  explicit allocated_items(const std::vector<uint64_t>& counts)
      : dataset(std::accumulate(counts.begin(), counts.end(), uint64_t{0})), ends_(counts.size()) {
    std::partial_sum(counts.begin(), counts.end(), ends_.begin());
  }
  uint32_t item(uint64_t device) const override {
    return static_cast<uint32_t>(std::upper_bound(ends_.begin(), ends_.end(), device) - ends_.begin());
  }

 private:
  std::vector<uint64_t> ends_;  // ends_[v]: devices holding items <= v
};

class listed_items final : public dataset {
 public:
  explicit listed_items(std::vector<uint32_t> items) : dataset(items.size()), items_(std::move(items)) {}
  uint32_t item(uint64_t device) const override { return items_[static_cast<std::size_t>(device)]; }

 private:
  std::vector<uint32_t> items_;
};

std::vector<double> zipf_weights(uint32_t d, double s) {
  std::vector<double> w(d);
  for (uint32_t v = 0; v < d; ++v) w[v] = power_law(v + 1.0, s);
  return w;
}

std::vector<double> builtin_weights(uint32_t d) {
  uint64_t a = static_cast<uint64_t>(std::ceil(0.618 * d));
  while (std::gcd(a, uint64_t{d}) != 1) ++a;
  std::vector<double> w(d);
  for (uint64_t r = 0; r < d; ++r) w[static_cast<std::size_t>((r * a + 7) % d)] = power_law(static_cast<double>(r) + 2.7, 1.1);
  return w;
}

std::unique_ptr<dataset> csv_items(const std::string& spec, uint32_t d, uint64_t devices) {
  std::string path, column;
  split_csv_spec(spec, &path, &column);
  std::vector<uint32_t> items;
  read_csv(path, column, 1, [&](span<const double> v, uint64_t line) {
    if (devices != 0 && items.size() == devices) return;
    if (!(v[0] >= 0 && v[0] < d && v[0] == std::floor(v[0]))) {
      fail("CSV file {} line {}: item {} is not an integer in [0, {}) (--domain)", path, line, v[0], d);
    }
    items.push_back(static_cast<uint32_t>(v[0]));
  });
  if (items.empty()) fail("CSV file {} has no data rows", path);
  if (devices != 0 && items.size() < devices) {
    fail("--devices {} but CSV file {} has only {} data rows", devices, path, items.size());
  }
  return std::make_unique<listed_items>(std::move(items));
}

double parse_exponent(const std::string& text) {
  char* end = nullptr;
  const double s = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(s >= 0 && s <= 100)) {
    fail("--data zipf:<s> needs an exponent s in [0, 100], got '{}'", text);
  }
  return s;
}

}  // namespace

std::unique_ptr<dataset> make_dataset(const std::string& spec, const data_shape& shape, uint64_t devices) {
  const bool is_csv = spec.rfind("csv:", 0) == 0;
  if (!is_csv && devices == 0) fail("--data {} needs --devices N (N >= 1)", spec);
  const uint32_t d = shape.domain;
  if (is_csv) return csv_items(spec.substr(4), d, devices);
  if (spec.rfind("zipf:", 0) == 0) return std::make_unique<allocated_items>(allocate(zipf_weights(d, parse_exponent(spec.substr(5))), devices));
  if (spec == "uniform") return std::make_unique<allocated_items>(allocate(std::vector<double>(d, 1.0), devices));
  if (spec == "builtin") return std::make_unique<allocated_items>(allocate(builtin_weights(d), devices));
  fail("unknown --data '{}' (zipf:<s>, uniform, builtin, csv:<path>[:<column>])", spec);
}

std::vector<uint64_t> item_counts(const dataset& data, uint32_t domain) {
  std::vector<uint64_t> counts(domain);
  for (uint64_t i = 0; i < data.devices(); ++i) ++counts[data.item(i)];
  return counts;
}

}  // namespace ldp::tools
