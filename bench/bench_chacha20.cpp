// BM_chacha20/<impl>/<bytes>: ChaCha20 keystream throughput (docs/performance.md 3).
//   naive    the RFC 8439 reference loop below, one block at a time
//   <table>  ldp::random::chacha20_keystream on each kernel table this CPU runs, and "simd"
//   sodium   libsodium crypto_stream_chacha20_ietf      (when found at configure time)
//   openssl  OpenSSL EVP_chacha20 over a zero buffer    (when found at configure time)
// Every implementation is checked once against the scalar table before it is timed.
//
// BM_chacha20_blocks/<table>/<blocks>: one table's chacha20_blocks entry, called directly (no choice of
// table by size), for 1 .. 24 blocks: the sweep that gives each table's chacha20_min_blocks (run it with
// interleaved repetitions; bench/crossover.py reads the medians).
// BM_drbg/<table>/<bytes>: random::drbg::fill requests of that size on each table, and
// BM_drbg/openssl/<bytes>: OpenSSL's RAND_bytes (its default DRBG) for the same requests.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "ldp/random/chacha20.h"

#if defined(LDP_BENCH_HAVE_SODIUM)
#include <sodium.h>
#endif
#if defined(LDP_BENCH_HAVE_OPENSSL)
#include <openssl/evp.h>
#include <openssl/rand.h>
#endif

namespace ldp_bench {
namespace {

constexpr int64_t chacha20_sizes[] = {64, 1024, 65536};
constexpr int64_t sweep_max_blocks = 24;
constexpr int64_t drbg_sizes[] = {64, 1024};

// ---- naive: RFC 8439 sections 2.1-2.4, as written in the RFC --------------------------------------

uint32_t naive_rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

#define NAIVE_QUARTER_ROUND(a, b, c, d) \
  do {                                  \
    a += b;                             \
    d ^= a;                             \
    d = naive_rotl(d, 16);              \
    c += d;                             \
    b ^= c;                             \
    b = naive_rotl(b, 12);              \
    a += b;                             \
    d ^= a;                             \
    d = naive_rotl(d, 8);               \
    c += d;                             \
    b ^= c;                             \
    b = naive_rotl(b, 7);               \
  } while (0)

uint32_t naive_load32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void naive_block(const unsigned char key[32], const unsigned char nonce[12], uint32_t counter, unsigned char out[64]) {
  uint32_t state[16];
  state[0] = 0x61707865;
  state[1] = 0x3320646e;
  state[2] = 0x79622d32;
  state[3] = 0x6b206574;
  for (int i = 0; i < 8; ++i) state[4 + i] = naive_load32(key + 4 * i);
  state[12] = counter;
  for (int i = 0; i < 3; ++i) state[13 + i] = naive_load32(nonce + 4 * i);

  uint32_t x[16];
  std::memcpy(x, state, sizeof x);
  for (int round = 0; round < 10; ++round) {
    NAIVE_QUARTER_ROUND(x[0], x[4], x[8], x[12]);  // column rounds
    NAIVE_QUARTER_ROUND(x[1], x[5], x[9], x[13]);
    NAIVE_QUARTER_ROUND(x[2], x[6], x[10], x[14]);
    NAIVE_QUARTER_ROUND(x[3], x[7], x[11], x[15]);
    NAIVE_QUARTER_ROUND(x[0], x[5], x[10], x[15]);  // diagonal rounds
    NAIVE_QUARTER_ROUND(x[1], x[6], x[11], x[12]);
    NAIVE_QUARTER_ROUND(x[2], x[7], x[8], x[13]);
    NAIVE_QUARTER_ROUND(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; ++i) {
    const uint32_t v = x[i] + state[i];
    out[4 * i + 0] = static_cast<unsigned char>(v);
    out[4 * i + 1] = static_cast<unsigned char>(v >> 8);
    out[4 * i + 2] = static_cast<unsigned char>(v >> 16);
    out[4 * i + 3] = static_cast<unsigned char>(v >> 24);
  }
}

#undef NAIVE_QUARTER_ROUND

void naive_keystream(const unsigned char key[32], const unsigned char nonce[12], uint32_t counter, unsigned char* out,
                     std::size_t size) {
  unsigned char block[64];
  for (std::size_t done = 0; done < size; done += 64) {
    naive_block(key, nonce, counter++, block);
    const std::size_t n = size - done < 64 ? size - done : 64;
    std::memcpy(out + done, block, n);
  }
}

// ---- shared helpers -------------------------------------------------------------------------------

// The first `size` bytes of the stream (block 0 on), from the scalar reference table.
std::vector<unsigned char> reference_keystream(std::size_t size) {
  std::vector<unsigned char> ref(size);
  if (ldp::random::chacha20_keystream(ldp::kernels::scalar(), bench_key, bench_nonce, 0, ref) != ldp::status::ok) {
    ref.clear();
  }
  return ref;
}

// Skips the benchmark (returns false) unless `out` holds the reference keystream.
bool check_output(benchmark::State& state, const std::vector<unsigned char>& out) {
  if (reference_keystream(out.size()) == out) return true;
  state.SkipWithError("keystream differs from the scalar reference");
  return false;
}

void finish(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

// ---- benchmarks -----------------------------------------------------------------------------------

void bm_naive(benchmark::State& state) {
  std::vector<unsigned char> out(static_cast<std::size_t>(state.range(0)));
  naive_keystream(bench_key, bench_nonce, 0, out.data(), out.size());
  if (!check_output(state, out)) return;
  for (auto _ : state) {
    naive_keystream(bench_key, bench_nonce, 0, out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}

void bm_table(benchmark::State& state, const ldp::kernels::table* table) {
  std::vector<unsigned char> out(static_cast<std::size_t>(state.range(0)));
  const ldp::span<unsigned char> view(out);
  if (ldp::random::chacha20_keystream(*table, bench_key, bench_nonce, 0, view) != ldp::status::ok) {
    state.SkipWithError("chacha20_keystream failed");
    return;
  }
  if (!check_output(state, out)) return;
  for (auto _ : state) {
    const ldp::status s = ldp::random::chacha20_keystream(*table, bench_key, bench_nonce, 0, view);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}

void bm_table_blocks(benchmark::State& state, const ldp::kernels::table* table) {
  const std::size_t nblocks = static_cast<std::size_t>(state.range(0));
  std::vector<unsigned char> out(64 * nblocks);
  uint32_t key[8], nonce[3];
  for (int i = 0; i < 8; ++i) key[i] = naive_load32(bench_key + 4 * i);
  for (int i = 0; i < 3; ++i) nonce[i] = naive_load32(bench_nonce + 4 * i);
  table->chacha20_blocks(key, nonce, 0, out.data(), nblocks);
  if (!check_output(state, out)) return;
  for (auto _ : state) {
    table->chacha20_blocks(key, nonce, 0, out.data(), nblocks);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 64 * state.range(0));
}

// The generator lives across iterations, so refills are amortized as a caller's would be.
void bm_drbg(benchmark::State& state, const ldp::kernels::table* table) {
  std::vector<unsigned char> out(static_cast<std::size_t>(state.range(0)));
  ldp::random::drbg rng(bench_seed, *table);
  for (auto _ : state) {
    rng.fill(out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}

#if defined(LDP_BENCH_HAVE_SODIUM)
void bm_sodium(benchmark::State& state) {
  std::vector<unsigned char> out(static_cast<std::size_t>(state.range(0)));
  crypto_stream_chacha20_ietf(out.data(), out.size(), bench_nonce, bench_key);
  if (!check_output(state, out)) return;
  for (auto _ : state) {
    crypto_stream_chacha20_ietf(out.data(), out.size(), bench_nonce, bench_key);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}
#endif

#if defined(LDP_BENCH_HAVE_OPENSSL)
void bm_openssl(benchmark::State& state) {
  const std::size_t size = static_cast<std::size_t>(state.range(0));
  const std::vector<unsigned char> zeros(size, 0);
  std::vector<unsigned char> out(size);
  // EVP's 16-byte IV is the 32-bit little-endian block counter followed by the 96-bit nonce.
  unsigned char iv[16] = {0, 0, 0, 0};
  std::memcpy(iv + 4, bench_nonce, sizeof bench_nonce);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (ctx == nullptr || EVP_EncryptInit_ex(ctx, EVP_chacha20(), nullptr, bench_key, iv) != 1) {
    EVP_CIPHER_CTX_free(ctx);
    state.SkipWithError("EVP_chacha20 setup failed");
    return;
  }
  const int len = static_cast<int>(size);
  int written = 0;
  if (EVP_EncryptUpdate(ctx, out.data(), &written, zeros.data(), len) != 1 || written != len ||
      !check_output(state, out)) {
    if (!state.error_occurred()) state.SkipWithError("EVP_EncryptUpdate failed");
    EVP_CIPHER_CTX_free(ctx);
    return;
  }
  // The timed calls continue the same stream (the counter advances), as a bulk user would.
  for (auto _ : state) {
    const int ok = EVP_EncryptUpdate(ctx, out.data(), &written, zeros.data(), len);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  EVP_CIPHER_CTX_free(ctx);
  finish(state);
}

void bm_openssl_rand(benchmark::State& state) {
  std::vector<unsigned char> out(static_cast<std::size_t>(state.range(0)));
  const int len = static_cast<int>(out.size());
  if (RAND_bytes(out.data(), len) != 1) {
    state.SkipWithError("RAND_bytes failed");
    return;
  }
  for (auto _ : state) {
    const int ok = RAND_bytes(out.data(), len);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state);
}
#endif

template <class Fn, std::size_t N>
void register_sizes(const char* kernel, const std::string& impl, const int64_t (&sizes)[N], Fn&& fn) {
  benchmark::internal::Benchmark* b =
      benchmark::RegisterBenchmark(bench_name(kernel, impl).c_str(), std::forward<Fn>(fn));
  for (int64_t size : sizes) b->Arg(size);
}

template <class Fn>
void register_sizes(const std::string& impl, Fn&& fn) {
  register_sizes("chacha20", impl, chacha20_sizes, std::forward<Fn>(fn));
}

}  // namespace

void register_chacha20_benchmarks() {
  register_sizes("naive", bm_naive);
  for (const table_impl& impl : runnable_tables()) {
    const ldp::kernels::table* table = impl.table;
    register_sizes(impl.name, [table](benchmark::State& state) { bm_table(state, table); });
    register_sizes("drbg", impl.name, drbg_sizes, [table](benchmark::State& state) { bm_drbg(state, table); });
    if (impl.name == "simd") continue;  // the sweep is per table; "simd" is one of them
    benchmark::RegisterBenchmark(bench_name("chacha20_blocks", impl.name).c_str(), [table](benchmark::State& state) {
      bm_table_blocks(state, table);
    })->DenseRange(1, sweep_max_blocks);
  }
#if defined(LDP_BENCH_HAVE_SODIUM)
  if (sodium_init() >= 0) register_sizes("sodium", bm_sodium);
#endif
#if defined(LDP_BENCH_HAVE_OPENSSL)
  register_sizes("openssl", bm_openssl);
  register_sizes("drbg", "openssl", drbg_sizes, bm_openssl_rand);
#endif
}

}  // namespace ldp_bench
