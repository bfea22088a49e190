#include "discovery_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace ldp::tools {

discovery_metrics measure_discovery(const std::vector<discovered_string>& discovered,
                                    const std::vector<string_count>& truth, std::size_t k) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  discovery_metrics m;
  m.k = k;
  std::vector<string_count> top = truth;
  const std::size_t t_size = std::min(k, top.size());
  std::partial_sort(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(t_size), top.end(), ranks_before);
  top.resize(t_size);

  const std::size_t d_size = std::min(k, discovered.size());
  std::unordered_set<std::string> first_k;
  for (std::size_t i = 0; i < d_size; ++i) first_k.insert(discovered[i].item);
  std::unordered_map<std::string, double> estimate;  // first entry of each string
  for (const discovered_string& s : discovered) estimate.emplace(s.item, s.estimate);

  std::size_t hits = 0;
  double squares = 0;
  for (const string_count& t : top) {
    hits += first_k.count(t.item);
    const auto it = estimate.find(t.item);
    const double error = (it == estimate.end() ? 0.0 : it->second) - static_cast<double>(t.count);
    squares += error * error;
  }
  const auto h = static_cast<double>(hits);
  m.precision = d_size == 0 ? nan : h / static_cast<double>(d_size);
  m.recall = t_size == 0 ? nan : h / static_cast<double>(t_size);
  m.count_rmse = t_size == 0 ? nan : std::sqrt(squares / static_cast<double>(t_size));
  return m;
}

}  // namespace ldp::tools
