// dBitFlip's sampled buckets (docs/mechanisms.md E.3, wire::dbitflip_buckets) are a uniform s-subset of
// [0, k): over 200,000 seeds, the counts of the C(k, s) subsets for (k, s) = (6, 2), (7, 3) and
// (5, 1) pass Pearson's chi-square against the uniform law at p > 1e-6 each (false failure 3e-6 for
// the three; the expected counts are 5,700 to 40,000). A sampler biased towards small buckets by
// 1% of a subset's probability fails (the statistic grows by about 0.01^2 n C(k, s) per subset).
#include <doctest/doctest.h>

#include <map>
#include <vector>

#include "ldp/wire.h"
#include "stats.h"
#include "tables.h"

TEST_CASE("dbitflip_buckets samples every s-subset with probability 1 / C(k, s)") {
  constexpr uint64_t seeds = 200000;
  auto rng = ldp::test::seeded_drbg("dbitflip sampling");
  for (const auto& sizes : {std::pair<uint32_t, uint32_t>{6, 2}, {7, 3}, {5, 1}}) {
    const uint32_t k = sizes.first, s = sizes.second;  // CAPTURE'd: no structured binding (clang 14)
    CAPTURE(k);
    CAPTURE(s);
    std::map<std::vector<uint32_t>, uint64_t> counts;
    for (uint64_t i = 0; i < seeds; ++i) {
      std::vector<uint32_t> b(s);
      ldp::wire::dbitflip_buckets(rng.next_u64(), k, s, b.data());
      ++counts[b];
    }
    std::vector<uint64_t> observed;
    for (const auto& [subset, c] : counts) observed.push_back(c);
    const std::size_t subsets = k == 6 ? 15 : k == 7 ? 35 : 5;  // C(k, s)
    REQUIRE(observed.size() == subsets);
    const auto gof = ldp::test::chi_square_gof(observed, std::vector<double>(subsets, 1.0), seeds);
    CAPTURE(gof.statistic);
    CHECK(gof.p_value > 1e-6);
  }
}
