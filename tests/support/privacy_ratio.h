// The exact privacy ratio of an enumerated randomizer (docs/mechanisms.md D.2 (a)), shared by the
// enumeration tests of the plain and the memoized randomizers.
#ifndef LDP_TESTS_SUPPORT_PRIVACY_RATIO_H
#define LDP_TESTS_SUPPORT_PRIVACY_RATIO_H

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "enumerator.h"

namespace ldp::test {

struct ratio_result {
  long double max_ratio = 0;
  bool infinite = false;
};

// max over pairs (x, x') of inputs in [0, d) and outputs z of P(z|x) / P(z|x'), each pmf that of
// randomize(x, coins) (returning z's key) over every path of an enumerator whose revealed seed is
// `seed`; checks that every pmf sums to 1.
template <class Randomize>
ratio_result max_ratio(uint32_t d, uint64_t seed, Randomize randomize) {
  std::vector<std::map<std::string, long double>> pmfs;
  for (uint32_t x = 0; x < d; ++x) {
    enumerating_coins coins(seed);
    pmfs.push_back(coins.pmf([&](enumerating_coins& c) { return randomize(x, c); }));
    long double total = 0;
    for (const auto& [z, p] : pmfs.back()) total += p;
    CHECK(total == doctest::Approx(1.0).epsilon(1e-12));
  }
  ratio_result r;
  for (uint32_t x = 0; x < d; ++x) {
    for (uint32_t y = 0; y < d; ++y) {
      if (x == y) continue;
      for (const auto& [z, p] : pmfs[x]) {
        const auto it = pmfs[y].find(z);
        if (it == pmfs[y].end() || it->second == 0) {
          r.infinite = true;
          continue;
        }
        if (p / it->second > r.max_ratio) r.max_ratio = p / it->second;
      }
    }
  }
  return r;
}

}  // namespace ldp::test

#endif
