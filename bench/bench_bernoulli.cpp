// BM_bernoulli/<impl>/<k bits>/<q ppm>: k independent Bernoulli(q) bits packed into a uint64_t mask
// (docs/performance.md 4). q is given in parts per million; the library draws Bernoulli(T / 2^32) with
// T = floor(2^32 * q / 10^6).
//   naive    std::mt19937_64 + std::bernoulli_distribution, one bit at a time
//   <table>  ldp::random::fill_bernoulli_mask with a drbg on each kernel table this CPU runs, "simd"
// The table implementations report rng_bytes_per_item: keystream bytes the bit-sliced kernel reads
// per output bit, counted by running the kernel once on a precomputed keystream buffer.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "ldp/random/bernoulli_mask.h"
#include "ldp/random/chacha20.h"
#include "ldp/random/drbg.h"

namespace ldp_bench {
namespace {

constexpr int64_t bernoulli_bits[] = {1024, 65536, 1048576};
constexpr int64_t bernoulli_ppm[] = {500000, 100000, 18000};  // p = 0.5, 0.1, 0.018
constexpr unsigned threshold_bits = 32;

std::size_t mask_words(std::size_t k) { return (k + 63) / 64; }

uint64_t threshold_from_ppm(int64_t ppm) { return (static_cast<uint64_t>(ppm) << threshold_bits) / 1000000; }

void finish(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

// Keystream bytes per output bit that table.bernoulli_chunks reads for k bits (rounded up to whole
// chunks) at this threshold, or a negative value if the kernel misbehaves.
double kernel_rng_bytes_per_bit(const ldp::kernels::table& table, std::size_t k, uint64_t threshold) {
  constexpr std::size_t chunk = ldp::kernels::bernoulli_chunk_bits;
  constexpr std::size_t word_bytes = ldp::kernels::bernoulli_word_bytes;
  const std::size_t nchunks = (k + chunk - 1) / chunk;
  // threshold_bits words per chunk is the kernel's worst case, so the buffer never runs short.
  const std::size_t words = nchunks * threshold_bits;
  std::vector<unsigned char> rnd(words * word_bytes);
  if (ldp::random::chacha20_keystream(table, bench_key, bench_nonce, 0, rnd) != ldp::status::ok) {
    return -1.0;
  }
  std::vector<uint64_t> out(nchunks * (chunk / 64));
  std::size_t done = 0, consumed = 0;
  while (done < nchunks) {
    std::size_t used = 0;
    const std::size_t n =
        table.bernoulli_chunks(out.data() + done * (chunk / 64), nchunks - done, threshold, threshold_bits,
                               rnd.data() + consumed * word_bytes, words - consumed, &used);
    if (n == 0) return -1.0;
    done += n;
    consumed += used;
  }
  return static_cast<double>(consumed * word_bytes) / static_cast<double>(nchunks * chunk);
}

void bm_naive(benchmark::State& state) {
  const std::size_t k = static_cast<std::size_t>(state.range(0));
  const double p = static_cast<double>(state.range(1)) / 1e6;
  std::mt19937_64 gen(bench_mt_seed);
  std::bernoulli_distribution coin(p);
  std::vector<uint64_t> mask(mask_words(k));
  for (auto _ : state) {
    std::fill(mask.begin(), mask.end(), uint64_t{0});
    for (std::size_t j = 0; j < k; ++j) {
      if (coin(gen)) mask[j / 64] |= uint64_t{1} << (j % 64);
    }
    benchmark::DoNotOptimize(mask.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}

void bm_table(benchmark::State& state, const ldp::kernels::table* table) {
  const std::size_t k = static_cast<std::size_t>(state.range(0));
  const uint64_t threshold = threshold_from_ppm(state.range(1));
  const double rng_bytes = kernel_rng_bytes_per_bit(*table, k, threshold);
  if (rng_bytes < 0) {
    state.SkipWithError("bernoulli_chunks failed");
    return;
  }
  ldp::random::drbg rng(bench_seed, *table);
  std::vector<uint64_t> mask(mask_words(k));
  const ldp::span<uint64_t> view(mask);
  for (auto _ : state) {
    if (ldp::random::fill_bernoulli_mask(rng, view, k, threshold, threshold_bits) != ldp::status::ok) {
      state.SkipWithError("fill_bernoulli_mask failed");
      break;
    }
    benchmark::DoNotOptimize(mask.data());
    benchmark::ClobberMemory();
  }
  finish(state);
  state.counters["rng_bytes_per_item"] = benchmark::Counter(rng_bytes);
}

template <class Fn>
void register_grid(const std::string& impl, Fn&& fn) {
  benchmark::internal::Benchmark* b =
      benchmark::RegisterBenchmark(bench_name("bernoulli", impl).c_str(), std::forward<Fn>(fn));
  for (int64_t k : bernoulli_bits) {
    for (int64_t ppm : bernoulli_ppm) b->Args({k, ppm});
  }
}

}  // namespace

void register_bernoulli_benchmarks() {
  register_grid("naive", bm_naive);
  for (const table_impl& impl : runnable_tables()) {
    const ldp::kernels::table* table = impl.table;
    register_grid(impl.name, [table](benchmark::State& state) { bm_table(state, table); });
  }
}

}  // namespace ldp_bench
