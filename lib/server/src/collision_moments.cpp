// Collision moments of a public hash family (collision_moments.h, docs/mechanisms.md A.6).
#include "collision_moments.h"

#include <algorithm>

namespace ldp::server::detail {

collision_moments moments_of_collisions(uint32_t k, uint32_t m, uint32_t d,
                                        const std::function<void(uint32_t, std::vector<uint32_t>&)>& row,
                                        const std::vector<std::vector<double>>& weights, bool second) {
  const std::size_t kinds = weights.size();
  collision_moments out;
  out.exact = second;
  out.first.assign(kinds, std::vector<double>(d, 0.0));
  // Pairs (x << 32 | y), x < y, once per row in which x and y share a bucket: sorted, a run of r equal
  // pairs is a_y(x) = a_x(y) = r / k.
  const uint64_t budget = std::min<uint64_t>(4 * uint64_t{k} * (uint64_t{d} + m), uint64_t{1} << 23);
  std::vector<uint64_t> pairs;
  std::vector<uint32_t> bucket(d), start(std::size_t{m} + 1), members(d);
  std::vector<double> sums(std::size_t{m} * kinds);
  for (uint32_t j = 0; j < k; ++j) {
    row(j, bucket);
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(start.begin(), start.end(), 0u);
    for (uint32_t x = 0; x < d; ++x) {
      ++start[bucket[x] + 1];
      for (std::size_t w = 0; w < kinds; ++w) sums[bucket[x] * kinds + w] += weights[w][x];
    }
    // A bucket's sum less x's own weight (exactly 0 when x is alone in it).
    for (uint32_t x = 0; x < d; ++x) {
      for (std::size_t w = 0; w < kinds; ++w) out.first[w][x] += sums[bucket[x] * kinds + w] - weights[w][x];
    }
    if (!out.exact) continue;
    uint64_t row_pairs = 0;
    for (uint32_t l = 0; l < m; ++l) {
      const uint64_t s = start[l + 1];
      if (s > 1) row_pairs += s * (s - 1) / 2;
      start[l + 1] += start[l];  // bucket l's members at [start[l], start[l + 1])
    }
    if (pairs.size() + row_pairs > budget) {
      out.exact = false;
      pairs = std::vector<uint64_t>();
      continue;
    }
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    for (uint32_t x = 0; x < d; ++x) members[next[bucket[x]]++] = x;  // ascending within a bucket
    for (uint32_t l = 0; l < m; ++l) {
      for (uint32_t a = start[l]; a < start[l + 1]; ++a) {
        for (uint32_t b = a + 1; b < start[l + 1]; ++b) pairs.push_back(uint64_t{members[a]} << 32 | members[b]);
      }
    }
  }
  const double inv_k = 1 / static_cast<double>(k);
  for (auto& v : out.first) {
    for (double& a : v) a *= inv_k;
  }
  if (!second) return out;
  out.second.assign(kinds, std::vector<double>(d, 0.0));
  if (!out.exact) {
    // Two lower bounds of sum_y w_y a_y(x)^2 when w >= 0: a_y(x) is 0 or at least 1/k, so a^2 >= a / k;
    // and Cauchy-Schwarz, (sum_y w_y a_y)^2 <= (sum_y w_y) (sum_y w_y a_y^2). The larger one is kept.
    for (std::size_t w = 0; w < kinds; ++w) {
      double total = 0;
      bool nonnegative = true;
      for (double v : weights[w]) {
        total += v;
        nonnegative = nonnegative && v >= 0;
      }
      for (uint32_t x = 0; x < d; ++x) {
        const double first = out.first[w][x], others = total - weights[w][x];
        out.second[w][x] = first * inv_k;
        if (nonnegative && others > 0) out.second[w][x] = std::max(out.second[w][x], first * first / others);
      }
    }
    return out;
  }
  std::sort(pairs.begin(), pairs.end());
  for (std::size_t i = 0; i < pairs.size();) {
    std::size_t end = i + 1;
    while (end < pairs.size() && pairs[end] == pairs[i]) ++end;
    const double a = static_cast<double>(end - i) * inv_k;
    const auto x = static_cast<uint32_t>(pairs[i] >> 32), y = static_cast<uint32_t>(pairs[i]);
    for (std::size_t w = 0; w < kinds; ++w) {
      out.second[w][x] += weights[w][y] * a * a;
      out.second[w][y] += weights[w][x] * a * a;
    }
    i = end;
  }
  return out;
}

}  // namespace ldp::server::detail
