// Shared pieces of ldp_bench: the kernel tables this CPU can run, fixed keys and seeds, benchmark
// naming (docs/performance.md 10: "BM_<kernel>/<impl>", the size and parameters are appended by Arg/Args)
// a generator adapter that counts the random bytes a sampler draws, and batch files for the
// ingestion benchmarks.
#ifndef LDP_BENCH_BENCH_UTIL_H
#define LDP_BENCH_BENCH_UTIL_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ldp/kernels/kernel_table.h"
#include "ldp/platform/cpu.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/batch.h"
#include "ldp/wire/params.h"

namespace ldp_bench {

// One implementation backed by a kernel table: `name` is the <impl> part of the benchmark name.
struct table_impl {
  std::string name;
  const ldp::kernels::table* table;
};

// Every compiled table the running CPU supports, under its own name (scalar first, then in
// increasing order of preference), followed by "simd", the table the dispatcher selects.
inline const std::vector<table_impl>& runnable_tables() {
  static const std::vector<table_impl> impls = [] {
    const ldp::cpu_features cpu = ldp::platform::detect_cpu();
    std::vector<table_impl> out;
    for (const ldp::kernels::table* t : ldp::kernels::compiled()) {
      if (ldp::kernels::supported(*t, cpu)) out.push_back({t->name, t});
    }
    out.push_back({"simd", &ldp::kernels::select(cpu)});
    return out;
  }();
  return impls;
}

// The table behind "simd".
inline const ldp::kernels::table& simd_table() { return *runnable_tables().back().table; }

// "BM_<kernel>/<impl>".
inline std::string bench_name(const char* kernel, const std::string& impl) {
  return std::string("BM_") + kernel + "/" + impl;
}

// Fixed inputs, so every implementation computes the same thing on every run.
inline constexpr unsigned char bench_key[32] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
                                                0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
                                                0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f};
inline constexpr unsigned char bench_nonce[12] = {0x00, 0x00, 0x00, 0x09, 0x00, 0x00,
                                                  0x00, 0x4a, 0x00, 0x00, 0x00, 0x00};
inline constexpr unsigned char bench_seed[32] = {0x6c, 0x64, 0x70, 0x6b, 0x69, 0x74, 0x2d, 0x62, 0x65, 0x6e, 0x63,
                                                 0x68, 0x2d, 0x73, 0x65, 0x65, 0x64, 0x2d, 0x30, 0x31, 0x32, 0x33,
                                                 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64};
inline constexpr uint64_t bench_mt_seed = 0x6c64706b6974ULL;  // for the std::mt19937_64 baselines

// A buffer of n T whose data starts on a 64-byte boundary, as a vector would not guarantee.
template <class T>
class aligned_buffer {
 public:
  explicit aligned_buffer(std::size_t n) : storage_(n + 64 / sizeof(T)) {
    const auto addr = reinterpret_cast<std::uintptr_t>(storage_.data());
    data_ = storage_.data() + ((64 - addr % 64) % 64) / sizeof(T);
  }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }

 private:
  std::vector<T> storage_;
  T* data_;
};

// size bytes of the drbg stream under bench_seed (on the simd table): the same on every run.
inline void fill_random(unsigned char* out, std::size_t size) {
  ldp::random::drbg rng(bench_seed, simd_table());
  rng.fill(out, size);
}

// Wraps a generator with next_u32/next_u64 (the drbg) and counts the bytes drawn through it.
template <class Rng>
class counting_rng {
 public:
  explicit counting_rng(Rng& inner) noexcept : inner_(inner) {}
  uint32_t next_u32() noexcept {
    bytes_ += 4;
    return inner_.next_u32();
  }
  uint64_t next_u64() noexcept {
    bytes_ += 8;
    return inner_.next_u64();
  }
  uint64_t bytes() const noexcept { return bytes_; }

 private:
  Rng& inner_;
  uint64_t bytes_ = 0;
};

// A batch (wire format section 6) of at least `target` bytes, in chunks of at most 64 KiB (what
// `ldp simulate` writes), then the terminator; *records counts its payloads. payload(i, &bytes)
// gives the i-th payload (i = 0, 1, ...), false on failure, which gives an empty batch.
template <class Payload>
std::vector<unsigned char> make_batch(const ldp::wire::params& p, std::size_t target, Payload&& payload,
                                      std::size_t* records) {
  std::vector<unsigned char> batch(1024);
  std::size_t size = 0;
  if (ldp::wire::encode_batch_header(p, batch, &size) != ldp::status::ok) return {};
  batch.resize(size);
  std::vector<unsigned char> buffer(std::size_t{64} << 10);
  *records = 0;
  ldp::span<const unsigned char> next;
  if (!payload(0, &next)) return {};
  while (batch.size() < target) {
    ldp::wire::chunk_writer w(buffer);
    while (w.add(next) == ldp::status::ok) {  // a payload that does not fit opens the next chunk
      if (!payload(++*records, &next)) return {};
    }
    const auto chunk = w.finish();
    batch.insert(batch.end(), chunk.begin(), chunk.end());
  }
  ldp::wire::chunk_writer end(buffer);
  const auto terminator = end.finish();
  batch.insert(batch.end(), terminator.begin(), terminator.end());
  return batch;
}

// Registration entry points, one per source file; bench_main.cpp calls them all.
void register_chacha20_benchmarks();
void register_bernoulli_benchmarks();
void register_noise_benchmarks();
void register_fwht_popcount_benchmarks();
void register_rotation_benchmarks();
void register_frequency_benchmarks();
void register_numeric_benchmarks();
void register_vector_mean_benchmarks();
void register_central_benchmarks();

}  // namespace ldp_bench

#endif
