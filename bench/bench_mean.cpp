// Scalar numeric mechanisms end to end (issue 5, docs/mechanisms.md B.1, B.2). One device report per
// item; <f> is the grid's fraction bits on [-1, 1] (Delta = 2^(f+1) grid units), epsilon = 1.
//   BM_randomize/laplace/naive/<f>   UNSAFE textbook baseline: x + b (E1 - E2) in double precision
//                                    (std::exponential_distribution on std::mt19937_64), rounded to
//                                    the grid and encoded. Mironov 2012: the doubles it can produce
//                                    depend on x, so its privacy loss is unbounded. Never shipped.
//   BM_randomize/laplace/simd/<f>    ldp::device::mean_context: clamp, exact discrete Laplace
//                                    (CKS) on the DRBG with the dispatched kernel table, encode
//   BM_randomize/duchi/naive/<f>     std::bernoulli_distribution(1/2 + x / (2B)) on std::mt19937_64
//   BM_randomize/duchi/simd/<f>      ldp::device::mean_context: one uniform against N(x)
//   BM_randomize/laplace_vector/simd/<d>   vector_mean_context: d coordinates at f = 16, L1 scale d 2^17 / epsilon
//   BM_ingest/laplace/<f>, BM_ingest/duchi/<f>   a 16 MiB batch of device payloads into the mean
//                                    aggregator (framing, CRCs, varint decoding, 128-bit sums)
// The simd randomizers report rng_bytes_per_item, the DRBG bytes one report draws.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "ldp/device/mean.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/drbg.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire.h"

namespace ldp_bench {
namespace {

using ldp::wire::mean_member;
using ldp::wire::mechanism;

constexpr double epsilon = 1.0;
constexpr int64_t frac_bits = 16;
constexpr int64_t inputs = 1024;  // a cycle of inputs across [-1, 1]

ldp::wire::params block(mechanism m, unsigned f, uint32_t d = 1) {
  switch (ldp::wire::mean_of(m)) {
    case mean_member::duchi: return ldp::wire::make_duchi(-1.0, 1.0, f, epsilon).block;
    case mean_member::laplace_vector: return ldp::wire::make_laplace_vector(d, -1.0, 1.0, f, epsilon).block;
    case mean_member::laplace: return ldp::wire::make_laplace(-1.0, 1.0, f, epsilon).block;
    case mean_member::bernstein:  // H.1: d grid losses on [0, 1] (one feature, k = d - 1)
      return ldp::wire::make_bernstein(1, d - 1, ldp::wire::loss_kind::squared, f, epsilon).block;
    case mean_member::kway_marginals: return ldp::wire::make_kway_marginals(d, 1, f, epsilon).block;  // d singletons
    case mean_member::smooth_queries: return ldp::wire::make_smooth_queries(1, d + 1, f, epsilon).block;  // t = d + 1
  }
  return {};  // a value outside the enumeration
}

// Fixed-point inputs spread over [-1, 1] (and a little beyond, so clamping is exercised).
std::vector<int64_t> input_cycle(unsigned f) {
  std::vector<int64_t> xs(inputs);
  for (int64_t i = 0; i < inputs; ++i)
    xs[static_cast<std::size_t>(i)] = (i * 2 - inputs) * (int64_t{1} << f) / (inputs - 64);
  return xs;
}

// Encodes one report of value or bit under p, as the naive device would after its own sampling.
bool encode(const ldp::wire::params& p, uint64_t fp, int64_t value, uint8_t bit, std::vector<unsigned char>& out) {
  ldp::wire::report r;
  r.mech = p.mech;
  r.value = value;
  r.bit = bit;
  std::size_t written = 0;
  return ldp::wire::encode_report(p, fp, r, out, &written) == ldp::status::ok;
}

void bm_laplace_naive(benchmark::State& state) {
  const auto f = static_cast<unsigned>(state.range(0));
  const auto p = block(mechanism::laplace, f);
  const uint64_t fp = ldp::wire::fingerprint(p);
  const auto xs = input_cycle(f);
  const double scale = std::ldexp(1.0, static_cast<int>(f));
  const double b = 2.0 / epsilon;  // Delta / epsilon in real units
  std::mt19937_64 gen(bench_mt_seed);
  std::exponential_distribution<double> exp1(1.0);
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  std::size_t i = 0;
  for (auto _ : state) {
    const double x = std::fmin(1.0, std::fmax(-1.0, static_cast<double>(xs[i]) / scale));
    const double noisy = x + b * (exp1(gen) - exp1(gen));
    if (!encode(p, fp, std::llround(noisy * scale), 0, out)) {
      state.SkipWithError("encode failed");
      break;
    }
    i = (i + 1) % xs.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void bm_duchi_naive(benchmark::State& state) {
  const auto f = static_cast<unsigned>(state.range(0));
  const auto p = block(mechanism::duchi, f);
  const uint64_t fp = ldp::wire::fingerprint(p);
  const auto xs = input_cycle(f);
  const double scale = std::ldexp(1.0, static_cast<int>(f));
  const double e = std::exp(epsilon), b = (e + 1) / (e - 1);
  std::mt19937_64 gen(bench_mt_seed);
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  std::size_t i = 0;
  for (auto _ : state) {
    const double x = std::fmin(1.0, std::fmax(-1.0, static_cast<double>(xs[i]) / scale));
    std::bernoulli_distribution coin(0.5 + x / (2 * b));
    if (!encode(p, fp, 0, coin(gen) ? 1 : 0, out)) {
      state.SkipWithError("encode failed");
      break;
    }
    i = (i + 1) % xs.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

// DRBG bytes per report, on a generator of its own.
double rng_bytes_per_report(const ldp::wire::params& p, const std::vector<int64_t>& xs) {
  ldp::random::drbg inner(bench_seed, simd_table());
  counting_rng<ldp::random::drbg> rng(inner);
  for (int64_t x : xs) {
    benchmark::DoNotOptimize(p.mech == mechanism::duchi ? ldp::device::duchi_bit(p, x, rng)
                                                        : ldp::device::laplace_noisy(p, x, rng));
  }
  return static_cast<double>(rng.bytes()) / static_cast<double>(xs.size());
}

void bm_randomize_value(benchmark::State& state, mechanism m) {
  const auto f = static_cast<unsigned>(state.range(0));
  const auto p = block(m, f);
  const auto xs = input_cycle(f);
  ldp::random::drbg rng(bench_seed, simd_table());
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  ldp::device::mean_context device;
  if (ldp::device::mean_context::init({}, p, &device) != ldp::status::ok) {
    state.SkipWithError("init failed");
    return;
  }
  std::size_t i = 0;
  for (auto _ : state) {
    std::size_t written = 0;
    if (device.randomize(xs[i], rng, out, ldp::device::framing::report, &written) != ldp::status::ok) {
      state.SkipWithError("randomize_value failed");
      break;
    }
    i = (i + 1) % xs.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["rng_bytes_per_item"] = benchmark::Counter(rng_bytes_per_report(p, xs));
}

void bm_randomize_vector(benchmark::State& state) {
  const auto d = static_cast<uint32_t>(state.range(0));
  const auto p = block(mechanism::laplace_vector, frac_bits, d);
  const auto cycle = input_cycle(frac_bits);
  std::vector<int64_t> x(d);
  for (uint32_t j = 0; j < d; ++j) x[j] = cycle[j % cycle.size()];
  std::vector<std::byte> workspace(ldp::device::vector_mean_context::workspace_size(p));
  ldp::device::vector_mean_context device;
  if (ldp::device::vector_mean_context::init(workspace, p, &device) != ldp::status::ok) {
    state.SkipWithError("init failed");
    return;
  }
  ldp::random::drbg rng(bench_seed, simd_table());
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  for (auto _ : state) {
    std::size_t written = 0;
    if (device.randomize(x, rng, out, ldp::device::framing::report, &written) != ldp::status::ok) {
      state.SkipWithError("randomize_vector failed");
      break;
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

// A batch of about 16 MiB of device payloads, each randomized afresh, and its record count.
std::vector<unsigned char> device_batch(const ldp::wire::params& p, std::size_t* records) {
  ldp::random::drbg rng(bench_seed, simd_table());
  const auto xs = input_cycle(static_cast<unsigned>(p.get(ldp::wire::field::frac_bits)));
  std::vector<unsigned char> payload(ldp::wire::max_payload_size(p));
  ldp::device::mean_context device;
  const ldp::status ready = ldp::device::mean_context::init({}, p, &device);
  const auto randomized = [&](std::size_t i, ldp::span<const unsigned char>* out) {
    std::size_t written = 0;
    if (ready != ldp::status::ok ||
        device.randomize(xs[i % xs.size()], rng, payload, ldp::device::framing::payload, &written) != ldp::status::ok) {
      return false;
    }
    *out = ldp::span<const unsigned char>(payload.data(), written);
    return true;
  };
  return make_batch(p, std::size_t{16} << 20, randomized, records);
}

void bm_ingest(benchmark::State& state, mechanism m) {
  const auto p = block(m, static_cast<unsigned>(state.range(0)));
  std::size_t records = 0;
  const auto batch = device_batch(p, &records);
  for (auto _ : state) {
    std::unique_ptr<ldp::server::aggregator> agg;
    if (batch.empty() || ldp::server::aggregator::create(p, &agg) != ldp::status::ok ||
        agg->add_batch(batch) != ldp::status::ok || agg->reports() != records) {
      state.SkipWithError("ingest failed");
      break;
    }
    benchmark::DoNotOptimize(agg.get());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * batch.size()));
}

}  // namespace

void register_numeric_benchmarks() {
  for (mechanism m : {mechanism::laplace, mechanism::duchi}) {
    const std::string name = m == mechanism::laplace ? "laplace" : "duchi";
    benchmark::RegisterBenchmark(("BM_randomize/" + name + "/naive").c_str(),
                                 m == mechanism::laplace ? bm_laplace_naive : bm_duchi_naive)
        ->Arg(frac_bits);
    benchmark::RegisterBenchmark(("BM_randomize/" + name + "/simd").c_str(), [m](benchmark::State& s) {
      bm_randomize_value(s, m);
    })->Arg(frac_bits);
    benchmark::RegisterBenchmark(("BM_ingest/" + name).c_str(), [m](benchmark::State& s) {
      bm_ingest(s, m);
    })->Arg(frac_bits);
  }
  benchmark::RegisterBenchmark("BM_randomize/laplace_vector/simd", bm_randomize_vector)->Arg(16)->Arg(1024);
}

}  // namespace ldp_bench
