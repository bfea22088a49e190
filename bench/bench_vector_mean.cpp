// Vector mean estimation (issue 5, docs/mechanisms.md B.5). One device report per item, for vectors of
// d coordinates in the L2 ball of radius 1 on the grid f = 16, epsilon = 1, beta = 1e-3:
//   BM_randomize/vector_mean/duchi/<d>          vector_mean_context::randomize with the rotation
//   BM_randomize/vector_mean/laplace/<d>        signs derived once (clip, int32 rotation of d~ =
//                                               2^ceil(log2 d) values, coordinate, scalar core,
//                                               encode), on the dispatched kernel table
//   BM_randomize/vector_mean/duchi_fresh_signs/<d>   the same with the signs derived for every
//                                               report (context init: ChaCha20 over d~ / 8 bytes,
//                                               block validation and fingerprint)
//   BM_estimate/vector_mean/{duchi,laplace}/<d>  the server's estimate_all on a full state (exact
//                                               FWHT of the d~ sums, int64 or 128-bit, signs, scale)
// Inputs cycle through 16 vectors, half inside the ball and half outside (clipped).
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/drbg.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire.h"

namespace ldp_bench {
namespace {

using ldp::wire::mechanism;

constexpr unsigned frac_bits = 16;

ldp::wire::params block(mechanism m, uint32_t d) {
  return m == mechanism::vector_duchi ? ldp::wire::make_vector_duchi(d, 1.0, frac_bits, 1.0, 1e-3, bench_key).block
                                      : ldp::wire::make_vector_laplace(d, 1.0, frac_bits, 1.0, 1e-3, bench_key).block;
}

// 16 vectors of d coordinates: even ones of norm about 0.5 (kept), odd ones of norm about 4 (clipped).
std::vector<std::vector<int64_t>> input_cycle(uint32_t d) {
  ldp::random::drbg rng(bench_seed, simd_table());
  std::vector<std::vector<int64_t>> xs(16, std::vector<int64_t>(d));
  for (std::size_t k = 0; k < xs.size(); ++k) {
    // Uniform coordinates in [-a, a] have norm about a sqrt(d / 3).
    const double norm = k % 2 == 0 ? 0.5 : 4.0;
    const auto a = static_cast<uint64_t>(norm * 65536.0 * 1.7320508 / std::sqrt(static_cast<double>(d))) + 1;
    for (int64_t& v : xs[k])
      v = static_cast<int64_t>(ldp::random::uniform_below64(rng, 2 * a + 1)) - static_cast<int64_t>(a);
  }
  return xs;
}

void bm_randomize(benchmark::State& state, mechanism m, bool fresh_signs) {
  const auto d = static_cast<uint32_t>(state.range(0));
  const auto p = block(m, d);
  using ldp::device::vector_mean_context;
  std::vector<std::byte> workspace(vector_mean_context::workspace_size(p));
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  vector_mean_context ctx;
  if (vector_mean_context::init(workspace, p, &ctx, simd_table()) != ldp::status::ok) {
    state.SkipWithError("init failed");
    return;
  }
  const auto xs = input_cycle(d);
  ldp::random::drbg rng(bench_seed, simd_table());
  std::size_t i = 0;
  for (auto _ : state) {
    std::size_t written = 0;
    if ((fresh_signs && vector_mean_context::init(workspace, p, &ctx, simd_table()) != ldp::status::ok) ||
        ctx.randomize(xs[i], rng, out, ldp::device::framing::report, &written) != ldp::status::ok) {
      state.SkipWithError("randomize failed");
      break;
    }
    i = (i + 1) % xs.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void bm_estimate(benchmark::State& state, mechanism m) {
  const auto d = static_cast<uint32_t>(state.range(0));
  const auto p = block(m, d);
  std::unique_ptr<ldp::server::aggregator> agg;
  if (ldp::server::aggregator::create(p, &agg) != ldp::status::ok) {
    state.SkipWithError("create failed");
    return;
  }
  // Every rotated coordinate receives reports: one per coordinate from crafted payloads.
  const auto dim = static_cast<uint32_t>(p.get(ldp::wire::field::hadamard_dim));
  std::vector<unsigned char> payload(ldp::wire::max_payload_size(p));
  for (uint32_t j = 0; j < dim; ++j) {
    ldp::wire::report r;
    r.mech = p.mech;
    r.index = j;
    r.bit = static_cast<uint8_t>(j & 1);
    r.value = static_cast<int64_t>(j % 1000) * 977 - 400000;
    std::size_t size = 0;
    if (ldp::wire::encode_payload(p, r, payload, &size) != ldp::status::ok ||
        agg->add_payload(ldp::span<const unsigned char>(payload.data(), size)) != ldp::status::ok) {
      state.SkipWithError("ingest failed");
      return;
    }
  }
  for (auto _ : state) {
    const auto e = agg->estimate_all();
    if (e.size() != d) {
      state.SkipWithError("estimate failed");
      break;
    }
    benchmark::DoNotOptimize(e.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * d);
}

}  // namespace

void register_vector_mean_benchmarks() {
  const int64_t sizes[] = {100, 1024, 16384, 1 << 20};
  for (mechanism m : {mechanism::vector_duchi, mechanism::vector_laplace}) {
    const std::string name = m == mechanism::vector_duchi ? "duchi" : "laplace";
    auto* randomize = benchmark::RegisterBenchmark(("BM_randomize/vector_mean/" + name).c_str(),
                                                   [m](benchmark::State& s) { bm_randomize(s, m, false); });
    auto* estimate = benchmark::RegisterBenchmark(("BM_estimate/vector_mean/" + name).c_str(),
                                                  [m](benchmark::State& s) { bm_estimate(s, m); });
    for (int64_t d : sizes) {
      randomize->Arg(d);
      estimate->Arg(d);
    }
  }
  auto* fresh = benchmark::RegisterBenchmark("BM_randomize/vector_mean/duchi_fresh_signs", [](benchmark::State& s) {
    bm_randomize(s, mechanism::vector_duchi, true);
  });
  for (int64_t d : sizes) fresh->Arg(d);
}

}  // namespace ldp_bench
