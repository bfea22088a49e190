// ldp_bench: every ldpkit micro-benchmark in one Google Benchmark executable. Benchmarks are
// registered at run time (the set of kernel tables depends on the CPU), then run as usual; all the
// standard --benchmark_* flags apply. bench/ratios.py turns the JSON output into the target ratios.
#include <benchmark/benchmark.h>

#include "bench_util.h"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  ldp_bench::register_chacha20_benchmarks();
  ldp_bench::register_bernoulli_benchmarks();
  ldp_bench::register_noise_benchmarks();
  ldp_bench::register_fwht_popcount_benchmarks();
  ldp_bench::register_rotation_benchmarks();
  ldp_bench::register_frequency_benchmarks();
  ldp_bench::register_numeric_benchmarks();
  ldp_bench::register_vector_mean_benchmarks();
  ldp_bench::register_central_benchmarks();

  benchmark::AddCustomContext("ldp_simd_table", ldp_bench::simd_table().name);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
