// Frequency oracles end to end (issue 4): BM_randomize/<oracle>/<impl>/<d> is one device report
// (naive: per-bit std::bernoulli_distribution on std::mt19937_64, as a user would write a unary
// encoding; simd: ldp::device::frequency_context::randomize with the dispatched kernel table), and
// BM_ingest/<oracle>/<d> (a 64 MiB batch) and BM_estimate/<oracle>/<d> the server's aggregation and
// estimation. For SUE and OUE, BM_randomize also reports the DRBG bytes a report draws
// (rng_bytes_per_report) beside the entropy bound d H(q) / 8 (entropy_bytes_per_report).
// BM_mem_read/<bytes> measures memory read bandwidth in the same run, the ceiling of ingestion.
// BM_estimate_threads/olh/<threads> is the OLH estimate of 32,768 reports at d = 1024 with the
// server's thread limit set to <threads> (ldp/server/threads.h; issue 19: 2 threads >= 1.8 x 1).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "ldp/device.h"
#include "ldp/random/drbg.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/frequency.h"
#include "ldp/server/threads.h"
#include "ldp/wire.h"

namespace ldp_bench {
namespace {

using ldp::wire::mechanism;

constexpr int64_t domains[] = {64, 1024, 65536};
const unsigned char sketch_seed[32] = {5};

ldp::wire::params oracle_block(mechanism m, uint32_t d) {
  if (m == mechanism::flh) return ldp::wire::make_flh(1.0, d, ldp::wire::flh_default_functions, sketch_seed).block;
  return ldp::wire::make_frequency_oracle(m, 1.0, d, 16, 1024, sketch_seed).block;
}

const mechanism oracles[] = {mechanism::grr, mechanism::sue, mechanism::oue, mechanism::olh,
                             mechanism::flh, mechanism::hr,  mechanism::cms, mechanism::hcms};

// Unary encoding written plainly: every bit from std::bernoulli_distribution, then the report.
void bm_randomize_naive(benchmark::State& state, mechanism m) {
  const auto d = static_cast<uint32_t>(state.range(0));
  const auto p = oracle_block(m, d);
  const double keep = static_cast<double>(p.get(ldp::wire::field::threshold_keep)) / 4294967296.0;
  const double other = static_cast<double>(p.get(ldp::wire::field::threshold_other)) / 4294967296.0;
  std::mt19937_64 gen(bench_mt_seed);
  std::bernoulli_distribution keep_coin(keep), other_coin(other);
  std::vector<unsigned char> bits((d + 7) / 8);
  uint32_t value = 0;
  for (auto _ : state) {
    std::fill(bits.begin(), bits.end(), 0);
    for (uint32_t j = 0; j < d; ++j) {
      const bool b = j == value ? keep_coin(gen) : other_coin(gen);
      if (b) bits[j / 8] = static_cast<unsigned char>(bits[j / 8] | (1u << (j % 8)));
    }
    value = (value + 1) % d;
    benchmark::DoNotOptimize(bits.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

// DRBG bytes one report draws, averaged over `n` reports: the generator's stream does not depend on
// how it is read (ldp/random/drbg.h), so the position of the bytes that follow the reports in a
// second generator's stream is what they drew. 0 if not found.
double drbg_bytes_per_report(const ldp::wire::params& p, ldp::device::frequency_context& oracle, std::size_t n) {
  ldp::random::drbg drawn(bench_seed, simd_table()), stream(bench_seed, simd_table());
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  const auto d = static_cast<uint32_t>(p.get(ldp::wire::field::domain));
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t written = 0;
    if (oracle.randomize(static_cast<uint32_t>(i % d), drawn, out, ldp::device::framing::report, &written) !=
        ldp::status::ok) {
      return 0;
    }
  }
  unsigned char next[32];
  drawn.fill(next, sizeof next);
  // At most 32 words of 32 bytes per 256-bit chunk, and a few words more for the true item.
  std::vector<unsigned char> bytes(n * ((d + 255) / 256 * 1024 + 64) + sizeof next);
  stream.fill(bytes.data(), bytes.size());
  const auto at = std::search(bytes.begin(), bytes.end(), next, next + sizeof next);
  return at == bytes.end() ? 0 : static_cast<double>(at - bytes.begin()) / static_cast<double>(n);
}

// d H(q) / 8: the bytes of entropy d Bernoulli(q) bits hold (q = threshold_other / 2^32).
double entropy_bytes_per_report(const ldp::wire::params& p) {
  const double q = static_cast<double>(p.get(ldp::wire::field::threshold_other)) / 4294967296.0;
  const double d = static_cast<double>(p.get(ldp::wire::field::domain));
  return d * -(q * std::log2(q) + (1 - q) * std::log2(1 - q)) / 8;
}

void bm_randomize(benchmark::State& state, mechanism m) {
  const auto d = static_cast<uint32_t>(state.range(0));
  const auto p = oracle_block(m, d);
  ldp::random::drbg rng(bench_seed, simd_table());
  std::vector<std::byte> workspace(ldp::device::frequency_context::workspace_size(p));
  ldp::device::frequency_context oracle;
  if (ldp::device::frequency_context::init(workspace, p, &oracle) != ldp::status::ok) {
    state.SkipWithError("init failed");
    return;
  }
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  uint32_t value = 0;
  for (auto _ : state) {
    std::size_t written = 0;
    if (oracle.randomize(value, rng, out, ldp::device::framing::report, &written) != ldp::status::ok) {
      state.SkipWithError("randomize failed");
      break;
    }
    value = (value + 1) % d;
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  if (m == mechanism::sue || m == mechanism::oue) {
    // Issue 19 goal 4: the random bytes of a unary report beside the entropy it needs.
    state.counters["rng_bytes_per_report"] = drbg_bytes_per_report(p, oracle, 256);
    state.counters["entropy_bytes_per_report"] = entropy_bytes_per_report(p);
  }
}

// n payloads of one oracle, from the device code, laid out as batch records would be.
std::vector<std::vector<unsigned char>> make_payloads(const ldp::wire::params& p, std::size_t n) {
  ldp::random::drbg rng(bench_seed, simd_table());
  std::vector<std::byte> workspace(ldp::device::frequency_context::workspace_size(p));
  ldp::device::frequency_context oracle;
  std::vector<std::vector<unsigned char>> out(n);
  if (ldp::device::frequency_context::init(workspace, p, &oracle) != ldp::status::ok) {
    out.clear();
    return out;
  }
  const auto d = static_cast<uint32_t>(p.get(ldp::wire::field::domain));
  for (std::size_t i = 0; i < n; ++i) {
    out[i].resize(ldp::wire::max_payload_size(p));
    std::size_t written = 0;
    // A skewed input: item i^2 mod d, so a few items dominate.
    const auto value = static_cast<uint32_t>((uint64_t{i} * i) % d);
    if (oracle.randomize(value, rng, out[i], ldp::device::framing::payload, &written) != ldp::status::ok) {
      out.clear();
      return out;
    }
    out[i].resize(written);
  }
  return out;
}

// Bytes the heap holds (glibc: small blocks and mmapped ones); 0 elsewhere.
uint64_t heap_in_use() {
#if defined(__GLIBC__)
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
#else
  return 0;
#endif
}

// The server's path for a batch file already in memory: framing, chunk CRCs, payload checks and
// counting. 64 MiB of reports, more than the caches, so the figure compares with BM_mem_read.
// Each iteration starts a fresh aggregator (local hashing keeps every report). The counter
// heap_bytes_per_report is what the aggregator holds after the batch, over the reports (glibc).
void bm_ingest(benchmark::State& state, mechanism m) {
  const auto d = static_cast<uint32_t>(state.range(0));
  const auto p = oracle_block(m, d);
  std::size_t records = 0;
  const auto payloads = make_payloads(p, 4096);
  const auto batch = make_batch(
      p, std::size_t{64} << 20,
      [&](std::size_t i, ldp::span<const unsigned char>* out) {
        if (payloads.empty()) return false;
        *out = payloads[i % payloads.size()];
        return true;
      },
      &records);
  double held = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<ldp::server::aggregator> agg;
    const uint64_t before = heap_in_use();
    if (ldp::server::aggregator::create(p, &agg) != ldp::status::ok) {
      state.SkipWithError("create failed");
      break;
    }
    state.ResumeTiming();
    if (agg->add_batch(batch) != ldp::status::ok || agg->reports() != records) {
      state.SkipWithError("add_batch failed");
      break;
    }
    benchmark::DoNotOptimize(agg.get());
    state.PauseTiming();
    held = static_cast<double>(heap_in_use() - before) / static_cast<double>(records);
    state.ResumeTiming();  // freeing the aggregator stays timed
  }
  state.counters["heap_bytes_per_report"] = held;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * batch.size()));
}

void bm_estimate(benchmark::State& state, mechanism m) {
  const auto d = static_cast<uint32_t>(state.range(0));
  const auto p = oracle_block(m, d);
  std::unique_ptr<ldp::server::frequency_aggregator> agg;
  if (ldp::server::frequency_aggregator::create(p, &agg) != ldp::status::ok) {
    state.SkipWithError("create failed");
    return;
  }
  for (const auto& pl : make_payloads(p, 2000)) (void)agg->add_payload(pl);
  for (auto _ : state) benchmark::DoNotOptimize(agg->estimate_all());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * d));
}

void bm_estimate_threads(benchmark::State& state) {
  const auto p = oracle_block(mechanism::olh, 1024);
  std::unique_ptr<ldp::server::frequency_aggregator> agg;
  if (ldp::server::frequency_aggregator::create(p, &agg) != ldp::status::ok) {
    state.SkipWithError("create failed");
    return;
  }
  for (const auto& pl : make_payloads(p, 32768)) (void)agg->add_payload(pl);
  ldp::server::set_thread_limit(static_cast<unsigned>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(agg->estimate_all());
  ldp::server::set_thread_limit(0);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 1024));
}

// Issue 19 goal 3, FLH against OLH at scale: n reports of users spread evenly over d items (user i
// holds i mod d), ingested once, then estimate_all() timed. Counter "variance": the mean over the
// items of the closed-form variance the estimate carries (A.4; FLH's includes the shared-hash term
// with k = wire::flh_default_functions). OLH's O(n d) decode is run at a smaller n and scaled
// linearly (docs/benchmarks.md "issue 19: FLH").
void bm_estimate_at_scale(benchmark::State& state, mechanism m) {
  const auto n = static_cast<uint64_t>(state.range(0));
  const auto d = static_cast<uint32_t>(state.range(1));
  const ldp::wire::params p = m == mechanism::flh
                                  ? ldp::wire::make_flh(1.0, d, ldp::wire::flh_default_functions, sketch_seed).block
                                  : ldp::wire::make_olh(1.0, d).block;
  std::unique_ptr<ldp::server::frequency_aggregator> agg;
  std::vector<std::byte> workspace(ldp::device::frequency_context::workspace_size(p));
  ldp::device::frequency_context oracle;
  if (ldp::server::frequency_aggregator::create(p, &agg) != ldp::status::ok ||
      ldp::device::frequency_context::init(workspace, p, &oracle) != ldp::status::ok) {
    state.SkipWithError("create failed");
    return;
  }
  ldp::random::drbg rng(bench_seed, simd_table());
  std::vector<unsigned char> out(ldp::wire::max_payload_size(p));
  for (uint64_t i = 0; i < n; ++i) {
    std::size_t written = 0;
    if (oracle.randomize(static_cast<uint32_t>(i % d), rng, out, ldp::device::framing::payload, &written) !=
            ldp::status::ok ||
        agg->add_payload({out.data(), written}) != ldp::status::ok) {
      state.SkipWithError("randomize or ingest failed");
      return;
    }
  }
  std::vector<ldp::server::estimate> estimates;
  for (auto _ : state) {
    estimates = agg->estimate_all();
    benchmark::DoNotOptimize(estimates.data());
  }
  double variance = 0;
  for (const auto& e : estimates) variance += e.variance / static_cast<double>(estimates.size());
  state.counters["variance"] = variance;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * d));
}

// Read bandwidth of a 64 MiB buffer: summing 64-bit words, which compilers vectorize.
void bm_mem_read(benchmark::State& state) {
  std::vector<uint64_t> buffer(static_cast<std::size_t>(state.range(0)) / 8, 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::accumulate(buffer.begin(), buffer.end(), uint64_t{0}));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * state.range(0)));
}

}  // namespace

void register_frequency_benchmarks() {
  for (mechanism m : oracles) {
    const std::string name = ldp::wire::mechanism_name(m);
    if (m == mechanism::sue || m == mechanism::oue) {
      auto* naive = benchmark::RegisterBenchmark(("BM_randomize/" + name + "/naive").c_str(),
                                                 [m](benchmark::State& s) { bm_randomize_naive(s, m); });
      for (int64_t d : domains) naive->Arg(d);
    }
    auto* simd = benchmark::RegisterBenchmark(("BM_randomize/" + name + "/simd").c_str(),
                                              [m](benchmark::State& s) { bm_randomize(s, m); });
    auto* ingest =
        benchmark::RegisterBenchmark(("BM_ingest/" + name).c_str(), [m](benchmark::State& s) { bm_ingest(s, m); });
    auto* estimate =
        benchmark::RegisterBenchmark(("BM_estimate/" + name).c_str(), [m](benchmark::State& s) { bm_estimate(s, m); });
    for (int64_t d : domains) {
      simd->Arg(d);
      // Local hashing decodes in O(n d): keep its estimate benchmark to the smaller domains.
      if (!(m == mechanism::olh && d > 1024)) estimate->Arg(d);
      ingest->Arg(d);
    }
  }
  benchmark::RegisterBenchmark("BM_estimate_threads/olh", bm_estimate_threads)->Arg(1)->Arg(2)->UseRealTime();
  benchmark::RegisterBenchmark("BM_mem_read", bm_mem_read)->Arg(int64_t{64} << 20);
  benchmark::RegisterBenchmark("BM_estimate_at_scale/flh",
                               [](benchmark::State& s) { bm_estimate_at_scale(s, mechanism::flh); })
      ->Args({10000000, 100000})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_estimate_at_scale/olh",
                               [](benchmark::State& s) { bm_estimate_at_scale(s, mechanism::olh); })
      ->Args({100000, 100000})
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace ldp_bench
