// Unary-report ingestion and OLH support counting (docs/performance.md 7 and 5); the Walsh-Hadamard
// transforms are in bench_rotation.cpp.
//
//   BM_ingest_ue/<impl>/<n reports>/<k bits>   column sums of n k-bit reports (stride k / 8 bytes)
//     naive    the per-bit loop: counts[j] += bit j of report i
//     <table>  table.column_popcount
//   BM_olh_support/<impl>/<n reports>/<d candidates>   OLH support counts of candidates 0..d-1
//     naive    the scalar loop over reports and candidates calling wire::hash_to_range
//     <table>  table.olh_support (structure-of-arrays reports, vectorized over candidates)
//
// Inputs are fixed (drbg under bench_seed): reports with random bytes (each bit 1 with probability
// 1/2; the SIMD kernels' time does not depend on the data). Before timing, every table's output is
// compared with the naive code's and a mismatch fails the benchmark. Counters: items are reports;
// bytes are the report bytes. floor_frac is the port-model floor of docs/performance.md over the
// measured time: the report bytes at 20 GB/s (section 7, the top of the reference machine's memory
// bandwidth). OLH support: items are (report, candidate) pairs, bytes the 20-byte reports (a, b,
// bucket), with random keys and buckets and g = 56 (the anchor of section 5); floor_frac is the
// pairs at 6.5 G/s, the top of section 5's floor for the strongly universal 64-bit hash.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "ldp/wire/hash.h"

namespace ldp_bench {
namespace {

constexpr int64_t ingest_reports = 100000;
constexpr int64_t ingest_bits = 1024;

constexpr int64_t olh_reports = 4096;
constexpr int64_t olh_candidates = 1024;
constexpr uint32_t olh_range = 56;

constexpr double reference_pairs_per_s = 6.5e9;
constexpr double reference_bytes_per_s = 20e9;

// ---- Unary-report ingestion ---------------------------------------------------------------------

void naive_ingest(const unsigned char* reports, std::size_t n, std::size_t stride, std::size_t k, uint64_t* counts) {
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char* row = reports + i * stride;
    for (std::size_t j = 0; j < k; ++j) counts[j] += (row[j / 8] >> (j % 8)) & 1u;
  }
}

struct ingest_input {
  std::size_t n, k, stride;
  aligned_buffer<unsigned char> reports;
  ingest_input(std::size_t n_reports, std::size_t bits)
      : n(n_reports), k(bits), stride((bits + 7) / 8), reports(n_reports * ((bits + 7) / 8)) {
    fill_random(reports.data(), n * stride);
  }
};

void ingest_counters(benchmark::State& state, const ingest_input& in) {
  const auto iters = static_cast<int64_t>(state.iterations());
  const double bytes = static_cast<double>(in.n * in.stride);
  state.SetItemsProcessed(iters * static_cast<int64_t>(in.n));
  state.SetBytesProcessed(iters * static_cast<int64_t>(in.n * in.stride));
  state.counters["floor_frac"] =
      benchmark::Counter(bytes / reference_bytes_per_s, benchmark::Counter::kIsIterationInvariantRate);
}

void bm_ingest_naive(benchmark::State& state) {
  const ingest_input in(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
  std::vector<uint64_t> counts(in.k, 0);
  for (auto _ : state) {
    naive_ingest(in.reports.data(), in.n, in.stride, in.k, counts.data());
    benchmark::DoNotOptimize(counts.data());
    benchmark::ClobberMemory();
  }
  ingest_counters(state, in);
}

void bm_ingest_table(benchmark::State& state, const ldp::kernels::table* table) {
  const ingest_input in(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
  std::vector<uint64_t> counts(in.k, 0);
  {
    std::vector<uint64_t> want(in.k, 0);
    naive_ingest(in.reports.data(), in.n, in.stride, in.k, want.data());
    table->column_popcount(in.reports.data(), in.n, in.stride, in.k, counts.data());
    if (counts != want) {
      state.SkipWithError("column_popcount differs from the per-bit loop");
      return;
    }
  }
  for (auto _ : state) {
    table->column_popcount(in.reports.data(), in.n, in.stride, in.k, counts.data());
    benchmark::DoNotOptimize(counts.data());
    benchmark::ClobberMemory();
  }
  ingest_counters(state, in);
}

// ---- OLH support counting -----------------------------------------------------------------------

void naive_olh_support(const uint64_t* a, const uint64_t* b, const uint32_t* bucket, std::size_t n, uint32_t g,
                       const uint32_t* items, std::size_t d, uint64_t* support) {
  for (std::size_t u = 0; u < n; ++u) {
    const ldp::wire::hash_key key{a[u], b[u]};
    for (std::size_t i = 0; i < d; ++i) {
      if (ldp::wire::hash_to_range(key, items[i], g) == bucket[u]) ++support[i];
    }
  }
}

struct olh_input {
  std::size_t n, d;
  std::vector<uint64_t> a, b;
  std::vector<uint32_t> bucket, items;
  olh_input(std::size_t n_reports, std::size_t candidates)
      : n(n_reports), d(candidates), a(n_reports), b(n_reports), bucket(n_reports), items(candidates) {
    ldp::random::drbg rng(bench_seed, simd_table());
    for (std::size_t u = 0; u < n; ++u) {
      a[u] = rng.next_u64();
      b[u] = rng.next_u64();
      bucket[u] = static_cast<uint32_t>((uint64_t{rng.next_u32()} * olh_range) >> 32);
    }
    for (std::size_t i = 0; i < d; ++i) items[i] = static_cast<uint32_t>(i);
  }
};

void olh_counters(benchmark::State& state, const olh_input& in) {
  const auto iters = static_cast<int64_t>(state.iterations());
  const double pairs = static_cast<double>(in.n) * static_cast<double>(in.d);
  state.SetItemsProcessed(iters * static_cast<int64_t>(in.n * in.d));
  state.SetBytesProcessed(iters * static_cast<int64_t>(20 * in.n));
  state.counters["floor_frac"] =
      benchmark::Counter(pairs / reference_pairs_per_s, benchmark::Counter::kIsIterationInvariantRate);
}

void bm_olh_naive(benchmark::State& state) {
  const olh_input in(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
  std::vector<uint64_t> support(in.d, 0);
  for (auto _ : state) {
    naive_olh_support(in.a.data(), in.b.data(), in.bucket.data(), in.n, olh_range, in.items.data(), in.d,
                      support.data());
    benchmark::DoNotOptimize(support.data());
    benchmark::ClobberMemory();
  }
  olh_counters(state, in);
}

void bm_olh_table(benchmark::State& state, const ldp::kernels::table* table) {
  const olh_input in(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
  std::vector<uint64_t> support(in.d, 0);
  {
    std::vector<uint64_t> want(in.d, 0);
    naive_olh_support(in.a.data(), in.b.data(), in.bucket.data(), in.n, olh_range, in.items.data(), in.d, want.data());
    table->olh_support(in.a.data(), in.b.data(), in.bucket.data(), in.n, olh_range, in.items.data(), in.d,
                       support.data());
    if (support != want) {
      state.SkipWithError("olh_support differs from the naive hash loop");
      return;
    }
  }
  for (auto _ : state) {
    table->olh_support(in.a.data(), in.b.data(), in.bucket.data(), in.n, olh_range, in.items.data(), in.d,
                       support.data());
    benchmark::DoNotOptimize(support.data());
    benchmark::ClobberMemory();
  }
  olh_counters(state, in);
}

template <class Fn>
void register_ingest(const std::string& impl, Fn&& fn) {
  benchmark::RegisterBenchmark(bench_name("ingest_ue", impl).c_str(), std::forward<Fn>(fn))
      ->Args({ingest_reports, ingest_bits});
}

template <class Fn>
void register_olh(const std::string& impl, Fn&& fn) {
  benchmark::RegisterBenchmark(bench_name("olh_support", impl).c_str(), std::forward<Fn>(fn))
      ->Args({olh_reports, olh_candidates});
}

}  // namespace

void register_fwht_popcount_benchmarks() {
  register_ingest("naive", bm_ingest_naive);
  for (const table_impl& impl : runnable_tables()) {
    const ldp::kernels::table* table = impl.table;
    register_ingest(impl.name, [table](benchmark::State& state) { bm_ingest_table(state, table); });
  }
  register_olh("naive", bm_olh_naive);
  for (const table_impl& impl : runnable_tables()) {
    const ldp::kernels::table* table = impl.table;
    register_olh(impl.name, [table](benchmark::State& state) { bm_olh_table(state, table); });
  }
}

}  // namespace ldp_bench
