// Levy et al.'s WinsorizedMean1D on the server (issue 7, docs/mechanisms.md C.2): its PrivateRange must
// cost O(n log n) whatever B / tau is. n user means (grid units) in [-B, B], B = 2^40 (n B stays inside the int64 sum), tau =
// B / 2^b, so l = 2^b bins; epsilon = 1, safe window:
//   BM_winsorized_1d/<b>/<n>/<data>   server::winsorized_mean_1d: bin and sort the users, score the
//                                     groups, the exact group-level exponential mechanism, the
//                                     clipped sum and its discrete Laplace noise
//   BM_sort_users/<n>                 baseline: std::sort of the same n int64 values, the n log n
//                                     step no implementation avoids (same run)
// data 0: spread uniformly over [-B/2, B/2]; data 1: every user in one bin, where a uniform
// proposal over bins would need about l draws per sample.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench_util.h"
#include "ldp/random/drbg.h"
#include "ldp/server/central/winsorized.h"

namespace ldp_bench {
namespace {

constexpr uint64_t range = uint64_t{1} << 40;

std::vector<int64_t> users(int64_t n, uint64_t tau, bool one_bin) {
  ldp::random::drbg rng(bench_seed, simd_table());
  std::vector<int64_t> out(static_cast<std::size_t>(n));
  for (int64_t& v : out) {
    v = one_bin ? static_cast<int64_t>(rng.next_u64() % tau)
                : static_cast<int64_t>(rng.next_u64() % range) - static_cast<int64_t>(range / 2);
  }
  return out;
}

void bm_winsorized_1d(benchmark::State& state) {
  const uint64_t tau = range >> state.range(0);
  const std::vector<int64_t> values = users(state.range(1), tau, state.range(2) != 0);
  const ldp::server::winsorized_1d_options options{1.0, tau, range, ldp::server::window_rule::safe};
  ldp::random::drbg rng(bench_seed, simd_table());
  for (auto _ : state) {
    ldp::server::winsorized_1d_result r;
    if (ldp::server::winsorized_mean_1d(values, options, rng, &r) != ldp::status::ok) {
      state.SkipWithError("winsorized_mean_1d failed");
      break;
    }
    benchmark::DoNotOptimize(r.mean);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(1));
}

void bm_sort_users(benchmark::State& state) {
  const std::vector<int64_t> values = users(state.range(0), 1, false);
  std::vector<int64_t> work;
  for (auto _ : state) {
    work = values;
    std::sort(work.begin(), work.end());
    benchmark::DoNotOptimize(work.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

}  // namespace

void register_central_benchmarks() {
  auto* sort = benchmark::RegisterBenchmark("BM_sort_users", bm_sort_users);
  auto* mean = benchmark::RegisterBenchmark("BM_winsorized_1d", bm_winsorized_1d);
  for (int64_t n : {1000, 100000}) {
    sort->Arg(n);
    for (int64_t bins_log2 : {10, 25, 40}) {
      for (int64_t one_bin : {0, 1}) mean->Args({bins_log2, n, one_bin});
    }
  }
}

}  // namespace ldp_bench
