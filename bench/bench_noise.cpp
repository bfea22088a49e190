// Integer noise samplers (docs/performance.md 6), each timed over <samples> draws per iteration.
//   BM_dlap/naive        floating-point inverse CDF: |Y| = floor(ln U / ln alpha), alpha = e^{-1/t},
//                        a random sign, (negative, 0) rejected; std::mt19937_64; not exact
//   BM_dlap/scalar_cks   ldp::random::discrete_laplace (Canonne-Kamath-Steinke, exact) on a drbg
//                        with the dispatcher's table; the sampler itself is scalar
//   BM_geometric/scalar_cks, BM_bern_exp/scalar_cks (gamma = 1/3): its building blocks
// The scale is t = 10, as t_num / t_den = 655360 / 65536. The scalar_cks benchmarks report
// rng_bytes_per_item, the drbg bytes drawn per sample, counted on a separate generator.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "ldp/random/drbg.h"
#include "ldp/random/samplers.h"

namespace ldp_bench {
namespace {

constexpr int64_t noise_samples = 4096;
constexpr uint64_t scale_den = 65536;
constexpr uint64_t scale_num = 10 * scale_den;  // t = 10
constexpr uint64_t bern_exp_num = 1;            // gamma = 1/3
constexpr uint64_t bern_exp_den = 3;

void finish(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

// Drbg bytes per call of draw(rng) averaged over `calls` calls, on a generator of its own.
template <class Draw>
double drbg_bytes_per_call(Draw&& draw, std::size_t calls) {
  ldp::random::drbg inner(bench_seed, simd_table());
  counting_rng<ldp::random::drbg> rng(inner);
  for (std::size_t i = 0; i < calls; ++i) benchmark::DoNotOptimize(draw(rng));
  return static_cast<double>(rng.bytes()) / static_cast<double>(calls);
}

void bm_dlap_naive(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const double t = static_cast<double>(scale_num) / static_cast<double>(scale_den);
  const double log_alpha = -1.0 / t;
  std::mt19937_64 gen(bench_mt_seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<int64_t> out(n);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      for (;;) {
        const double u = 1.0 - uniform(gen);  // (0, 1]
        const auto magnitude = static_cast<int64_t>(std::floor(std::log(u) / log_alpha));
        const bool negative = (gen() & 1) != 0;
        if (negative && magnitude == 0) continue;
        out[i] = negative ? -magnitude : magnitude;
        break;
      }
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}

// Times `n` calls of draw(rng) per iteration on a drbg with the dispatcher's table.
template <class T, class Draw>
void run_cks(benchmark::State& state, Draw draw) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  ldp::random::drbg rng(bench_seed, simd_table());
  std::vector<T> out(n);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) out[i] = draw(rng);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
  state.counters["rng_bytes_per_item"] = benchmark::Counter(drbg_bytes_per_call(draw, 1 << 16));
}

// One generic lambda per sampler, so the drbg and the counting adapter share the call.
constexpr auto draw_dlap = [](auto& rng) { return ldp::random::discrete_laplace(rng, scale_num, scale_den); };
constexpr auto draw_geometric = [](auto& rng) { return ldp::random::geometric(rng, scale_num, scale_den); };
constexpr auto draw_bern_exp = [](auto& rng) { return ldp::random::bern_exp(rng, bern_exp_num, bern_exp_den); };

void bm_dlap_cks(benchmark::State& state) { run_cks<int64_t>(state, draw_dlap); }
void bm_geometric_cks(benchmark::State& state) { run_cks<uint64_t>(state, draw_geometric); }
// bool would give std::vector<bool>; one byte per sample keeps the stores plain.
void bm_bern_exp_cks(benchmark::State& state) { run_cks<unsigned char>(state, draw_bern_exp); }

void register_one(const char* kernel, const char* impl, void (*fn)(benchmark::State&)) {
  benchmark::RegisterBenchmark(bench_name(kernel, impl).c_str(), fn)->Arg(noise_samples);
}

}  // namespace

void register_noise_benchmarks() {
  register_one("dlap", "naive", bm_dlap_naive);
  register_one("dlap", "scalar_cks", bm_dlap_cks);
  register_one("geometric", "scalar_cks", bm_geometric_cks);
  register_one("bern_exp", "scalar_cks", bm_bern_exp_cks);
}

}  // namespace ldp_bench
