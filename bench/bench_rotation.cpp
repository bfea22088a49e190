// Walsh-Hadamard transforms and the randomized Hadamard rotation (docs/performance.md 1 and 2; issue 5).
//
//   BM_fwht_f32/<impl>/<n>     in-place unnormalized FWHT of n floats
//   BM_fwht_i32/<impl>/<n>     the same on int32, modulo 2^32
//     naive    the textbook triple loop written plainly: for h = 1, 2, 4, ... (levels), for each
//              block of 2h, for each j of the block's first half, (x[j], x[j+h]) <- (a + b, a - b);
//              compiled with the project's flags (GCC -O3 vectorizes its inner loop for large h)
//     <table>  table.fwht_f32 / fwht_i32 for every kernel table this CPU runs, and "simd" (the
//              dispatcher's)
//     fftw     FFTW 3 (libfftw3-dev, when found): the rank-log2(n) 2 x 2 x ... x 2 r2r transform
//              with FFTW_DHT in every dimension (a size-2 DHT is the butterfly (a + b, a - b), and
//              FFTW's multi-dimensional DHT is the separable product), in place, FFTW_MEASURE
//   BM_rotate_f32/<impl>/<n>   data <- n^-1/2 H D data, the signs fused into the first pass and the
//                              scale into the last (table.rotate_f32)
//   BM_rotate_i32/<impl>/<n>   data <- H D data modulo 2^32 (table.rotate_i32)
//
// Sizes 2^10, 2^16, 2^20. Inputs are fixed (drbg under bench_seed): random int32 words; floats
// with 23 random bits in [-2^-100, 2^-100); sign words from random::rotation_signs. The transform
// runs in place on the same buffer every iteration. Float values stay on the grid of multiples of
// 2^-123, so never subnormal, and grow at most n-fold per two calls (H H = n I), so the plain float
// transforms restore the input every 2 floor(200 / log2 n) calls, before anything could pass
// 2^100; the rotation keeps the norm and never needs it. Above 2^12 elements the restore runs with
// the timer paused; below, pausing (two clock reads, about a microsecond) would cost more than the
// restore itself, a copy of at most 16 KiB once per 30 or more transforms (about 1% of the time),
// which is then timed.
// Before timing, every table's output is compared bit for bit with the naive loop's (the plain
// transforms; the float tables must reproduce its roundings) or with the scalar table's (the
// rotations), and FFTW's within 1e-3 relative (L2). Counters: items are elements, bytes the 4n
// bytes transformed (plus n / 8 sign bytes for the rotations); floor_frac is the compute floor over
// the measured time at 3 GHz: n log2(n) / 16 cycles for float (section 1), n log2(n) / 24 for
// int32 (section 2).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "ldp/random/rotation.h"

#if defined(LDP_BENCH_HAVE_FFTW)
#include <fftw3.h>
#endif

namespace ldp_bench {
namespace {

constexpr int64_t fwht_sizes[] = {int64_t{1} << 10, int64_t{1} << 16, int64_t{1} << 20};
constexpr double reference_hz = 3e9;

unsigned log2_of(std::size_t n) {
  unsigned l = 0;
  while ((std::size_t{1} << l) < n) ++l;
  return l;
}

template <class T>
void naive_fwht(T* x, std::size_t n) {
  for (std::size_t h = 1; h < n; h *= 2) {
    for (std::size_t i = 0; i < n; i += 2 * h) {
      for (std::size_t j = i; j < i + h; ++j) {
        const T a = x[j];
        const T b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
    }
  }
}

// The element types of the benchmarks: the naive loop runs on uint32_t so that it wraps.
template <class T>
struct element;
template <>
struct element<float> {
  using naive = float;
  static constexpr double ops_per_cycle = 16;  // docs/performance.md 1: 2 ports x 8 fp32 lanes
  static void fill(float* x, std::size_t n) {
    std::vector<uint32_t> w(n);
    fill_random(reinterpret_cast<unsigned char*>(w.data()), 4 * n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = std::ldexp(static_cast<float>(static_cast<int32_t>(w[i] >> 8) - (1 << 23)), -123);
    }
  }
};
template <>
struct element<int32_t> {
  using naive = uint32_t;
  static constexpr double ops_per_cycle = 24;  // docs/performance.md 2: 3 ports x 8 int32 lanes
  static void fill(int32_t* x, std::size_t n) { fill_random(reinterpret_cast<unsigned char*>(x), 4 * n); }
};

// An input of n elements, a pristine copy to restore it from, and the rotation's signs.
template <class T>
struct fwht_input {
  std::size_t n;
  unsigned log2n;
  aligned_buffer<T> x;
  std::vector<T> original;
  std::vector<uint32_t> signs;
  std::size_t calls_per_refill;  // the plain float transforms' (see the top of the file)

  explicit fwht_input(std::size_t size)
      : n(size),
        log2n(log2_of(size)),
        x(size),
        original(size),
        signs(ldp::random::rotation_sign_words(static_cast<uint32_t>(size))),
        calls_per_refill(log2_of(size) == 0 ? 1 : 2 * (200 / log2_of(size))) {
    element<T>::fill(original.data(), n);
    restore();
    const auto s = ldp::random::rotation_signs(bench_seed, static_cast<uint32_t>(n), ldp::span<uint32_t>(signs));
    if (s != ldp::status::ok) std::abort();
  }
  void restore() { std::memcpy(x.data(), original.data(), n * sizeof(T)); }
};

template <class T>
void fwht_counters(benchmark::State& state, std::size_t n, bool rotation) {
  const auto iters = static_cast<int64_t>(state.iterations());
  const auto bytes = static_cast<int64_t>(4 * n + (rotation ? n / 8 : 0));
  state.SetItemsProcessed(iters * static_cast<int64_t>(n));
  state.SetBytesProcessed(iters * bytes);
  const double floor_s = static_cast<double>(n) * log2_of(n) / element<T>::ops_per_cycle / reference_hz;
  state.counters["floor_frac"] = benchmark::Counter(floor_s, benchmark::Counter::kIsIterationInvariantRate);
}

// Runs `transform(x)` in the timed loop; refill > 0: restores the input every `refill` calls
// (untimed above 2^12 elements, see the top of the file).
template <class T, class Fn>
void run_timed(benchmark::State& state, fwht_input<T>& in, Fn&& transform, std::size_t refill) {
  const bool pause = in.n > (std::size_t{1} << 12);
  std::size_t calls = 0;
  for (auto _ : state) {
    if (refill != 0 && ++calls == refill) {
      if (pause) state.PauseTiming();
      in.restore();
      calls = 0;
      if (pause) state.ResumeTiming();
    }
    transform(in.x.data());
    benchmark::DoNotOptimize(in.x.data());
    benchmark::ClobberMemory();
  }
}

template <class T>
std::size_t refill_period(const fwht_input<T>& in, bool rotation) {
  return std::is_same_v<T, float> && !rotation ? in.calls_per_refill : 0;
}

template <class T>
void bm_naive(benchmark::State& state) {
  fwht_input<T> in(static_cast<std::size_t>(state.range(0)));
  using N = typename element<T>::naive;
  const std::size_t n = in.n;
  run_timed(
      state, in, [n](T* x) { naive_fwht(reinterpret_cast<N*>(x), n); }, refill_period(in, false));
  fwht_counters<T>(state, n, false);
}

// Tables: fwht_f32 / fwht_i32 (rotation false) or rotate_f32 / rotate_i32 (true).
template <class T>
void bm_table(benchmark::State& state, const ldp::kernels::table* table, bool rotation) {
  fwht_input<T> in(static_cast<std::size_t>(state.range(0)));
  const unsigned log2n = in.log2n;
  const uint32_t* signs = in.signs.data();
  const auto transform = [&](T* x) {
    if constexpr (std::is_same_v<T, float>) {
      if (rotation) {
        table->rotate_f32(x, signs, log2n);
      } else {
        table->fwht_f32(x, log2n);
      }
    } else if (rotation) {
      table->rotate_i32(x, signs, log2n);
    } else {
      table->fwht_i32(x, log2n);
    }
  };
  {
    using N = typename element<T>::naive;
    std::vector<T> want = in.original;
    if (rotation) {
      const ldp::kernels::table& ref = ldp::kernels::scalar();
      if constexpr (std::is_same_v<T, float>) {
        ref.rotate_f32(want.data(), signs, log2n);
      } else {
        ref.rotate_i32(want.data(), signs, log2n);
      }
    } else {
      naive_fwht(reinterpret_cast<N*>(want.data()), in.n);
    }
    transform(in.x.data());
    const bool same = std::memcmp(want.data(), in.x.data(), in.n * sizeof(T)) == 0;
    in.restore();
    if (!same) {
      state.SkipWithError(rotation ? "the table's rotation differs from the scalar table's"
                                   : "the table's transform differs from the naive loop");
      return;
    }
  }
  run_timed(state, in, transform, refill_period(in, rotation));
  fwht_counters<T>(state, in.n, rotation);
}

#if defined(LDP_BENCH_HAVE_FFTW)
void bm_fftw(benchmark::State& state) {
  fwht_input<float> in(static_cast<std::size_t>(state.range(0)));
  const int rank = static_cast<int>(in.log2n);
  std::vector<int> dims(in.log2n, 2);
  std::vector<fftwf_r2r_kind> kinds(in.log2n, FFTW_DHT);
  fftwf_plan plan = fftwf_plan_r2r(rank, dims.data(), in.x.data(), in.x.data(), kinds.data(),
                                   FFTW_MEASURE);  // overwrites the buffer while measuring
  in.restore();
  {
    std::vector<float> want = in.original;
    naive_fwht(want.data(), in.n);
    fftwf_execute(plan);
    double err = 0, norm = 0;
    for (std::size_t i = 0; i < in.n; ++i) {
      err += (in.x.data()[i] - want[i]) * double{in.x.data()[i] - want[i]};
      norm += want[i] * double{want[i]};
    }
    in.restore();
    if (!(err <= 1e-6 * norm)) {
      fftwf_destroy_plan(plan);
      state.SkipWithError("FFTW's 2 x ... x 2 DHT differs from the Walsh-Hadamard transform");
      return;
    }
  }
  run_timed(
      state, in, [plan](float*) { fftwf_execute(plan); }, in.calls_per_refill);
  fftwf_destroy_plan(plan);
  fwht_counters<float>(state, in.n, false);
}
#endif

template <class Fn>
void register_sizes(const char* kernel, const std::string& impl, Fn&& fn) {
  benchmark::internal::Benchmark* b =
      benchmark::RegisterBenchmark(bench_name(kernel, impl).c_str(), std::forward<Fn>(fn));
  for (int64_t n : fwht_sizes) b->Arg(n);
}

template <class T>
void register_type(const char* fwht_kernel, const char* rotate_kernel) {
  register_sizes(fwht_kernel, "naive", bm_naive<T>);
  for (const table_impl& impl : runnable_tables()) {
    const ldp::kernels::table* table = impl.table;
    register_sizes(fwht_kernel, impl.name, [table](benchmark::State& state) { bm_table<T>(state, table, false); });
  }
#if defined(LDP_BENCH_HAVE_FFTW)
  if constexpr (std::is_same_v<T, float>) register_sizes(fwht_kernel, "fftw", bm_fftw);
#endif
  for (const table_impl& impl : runnable_tables()) {
    const ldp::kernels::table* table = impl.table;
    register_sizes(rotate_kernel, impl.name, [table](benchmark::State& state) { bm_table<T>(state, table, true); });
  }
}

}  // namespace

void register_rotation_benchmarks() {
  register_type<float>("fwht_f32", "rotate_f32");
  register_type<int32_t>("fwht_i32", "rotate_i32");
}

}  // namespace ldp_bench
