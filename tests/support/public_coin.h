// GenProt's exact choice law (docs/mechanisms.md H.3), shared by the unit and statistical tests of the
// public-coin learners.
#ifndef LDP_TESTS_SUPPORT_PUBLIC_COIN_H
#define LDP_TESTS_SUPPORT_PUBLIC_COIN_H

#include <cstddef>
#include <vector>

namespace ldp::test {

// P(g = s) when sample t is kept with keep_probability[t]: p_s E[1 / (1 + K)] + prod_t (1 - p_t) / T,
// K the kept samples other than s, by the exact law of K (dynamic programming).
inline double genprot_choice_probability(const std::vector<double>& keep_probability, std::size_t s) {
  std::vector<double> k_law{1.0};
  double none = 1;
  for (std::size_t t = 0; t < keep_probability.size(); ++t) {
    none *= 1 - keep_probability[t];
    if (t == s) continue;
    std::vector<double> next(k_law.size() + 1, 0.0);
    for (std::size_t j = 0; j < k_law.size(); ++j) {
      next[j] += k_law[j] * (1 - keep_probability[t]);
      next[j + 1] += k_law[j] * keep_probability[t];
    }
    k_law = next;
  }
  double inverse = 0;
  for (std::size_t j = 0; j < k_law.size(); ++j) inverse += k_law[j] / static_cast<double>(j + 1);
  return keep_probability[s] * inverse + none / static_cast<double>(keep_probability.size());
}

}  // namespace ldp::test

#endif
