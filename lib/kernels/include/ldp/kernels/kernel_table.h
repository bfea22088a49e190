// The hot kernels of ldpkit behind one table of function pointers per instruction set
// (docs/architecture.md, "SIMD kernels"). Every table computes bit-identical results; the scalar table is
// the reference the others are tested against. Servers pick a table at run time from the CPU's
// features; devices use native(), fixed at compile time.
#ifndef LDP_KERNELS_KERNEL_TABLE_H
#define LDP_KERNELS_KERNEL_TABLE_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/cpu_features.h"
#include "ldp/base/span.h"

namespace ldp::kernels {

enum class arch : uint8_t { scalar, sse2, avx2, avx512, neon, neon64 };

// RFC 8439 section 2.3-2.4: writes nblocks * 64 bytes of ChaCha20 keystream, block i computed with
// block counter `counter + i`. Requires counter + nblocks <= 2^32 (the 32-bit counter never wraps).
using chacha20_blocks_fn = void (*)(const uint32_t key[8], const uint32_t nonce[3], uint32_t counter,
                                    unsigned char* out, std::size_t nblocks);

// Lane-parallel exact Bernoulli(threshold / 2^bits), docs/mechanisms.md D.1 ("bit-sliced, lazy, MSB first").
// One chunk is 256 output lanes (out[4c .. 4c+3], lane j is bit j%64 of word j/64). Lane j outputs
// [u_j < threshold] for a uniform bits-bit integer u_j whose binary digits are read most significant
// first: step s consumes the next 32-byte random word W_s of `rnd` (four little-endian uint64), and
// digit bits-1-s of u_j is bit j of W_s. A chunk stops reading when every lane is decided or when the
// threshold's remaining lower digits are all zero (undecided lanes then have u_j >= threshold).
// threshold == 2^bits gives all ones and threshold == 0 all zeros, both without reading.
// Processes chunks while fewer than nchunks are done and at least `bits` unread words remain (the
// worst case of one chunk); returns the chunks done and stores the words read in *words_used.
// Requires 1 <= bits <= 32 and threshold <= 2^bits.
using bernoulli_chunks_fn = std::size_t (*)(uint64_t* out, std::size_t nchunks, uint64_t threshold, unsigned bits,
                                            const unsigned char* rnd, std::size_t rnd_words, std::size_t* words_used);

// In-place unnormalized fast Walsh-Hadamard transform of data[0 .. 2^log2n), 0 <= log2n <= 30, in
// natural (Sylvester) order: out[r] = sum over y of (-1)^popcount(r & y) * in[y], every addition and
// subtraction modulo 2^32 (two's complement wrap-around, as the butterflies (a, b) -> (a + b, a - b)
// in uint32_t; no overflow is undefined). Applying it twice multiplies by 2^log2n (mod 2^32). No
// alignment is required. docs/mechanisms.md B.4 ("Fixed point").
using fwht_i32_fn = void (*)(int32_t* data, unsigned log2n);

// The same transform in float32: out[r] = sum over y of (-1)^popcount(r & y) * in[y], in place,
// 0 <= log2n <= 30, no normalization, no alignment required. Every table computes exactly the
// scalar reference's roundings: level h (pairing j and j + 2^h, (a, b) -> (a + b, a - b)) is applied
// to each element after levels 0 .. h-1 and before h+1, and a - b is a + (-b) in IEEE 754, so a
// different loop order or the in-register lane tricks do not change a bit. Exceptions: ARMv7 NEON
// flushes subnormals to zero and returns the default NaN, so the "neon" table matches the others
// only when no intermediate is subnormal or NaN.
using fwht_f32_fn = void (*)(float* data, unsigned log2n);

// Randomized Hadamard rotation without normalization (docs/mechanisms.md B.4): data <- H * D * data, in
// place, mod 2^32 as fwht_i32, 0 <= log2n <= 30. D = diag(omega), omega_i = -1 when bit i % 32 of
// sign_words[i / 32] is 1, else +1 (ceil(2^log2n / 32) words are read). The sign flip is fused
// into the transform's first pass.
using rotate_i32_fn = void (*)(int32_t* data, const uint32_t* sign_words, unsigned log2n);

// The orthonormal rotation in float32: data <- s * H * D * data, D as for rotate_i32 and
// s = 2^(-log2n / 2), exact for even log2n; for odd log2n s is the float nearest 2^(-log2n / 2)
// (2^(-(log2n - 1) / 2) times the float nearest 1/sqrt(2)). Every output is round(round(a +- b) * s)
// of its last butterfly (the scaling is fused into the last pass), bit-identical on every table
// with fwht_f32's exceptions.
using rotate_f32_fn = void (*)(float* data, const uint32_t* sign_words, unsigned log2n);

// Column sums of a bit matrix (server ingestion of unary-encoded and CMS reports, docs/performance.md 7):
// for every j < nbits, adds to counts[j] the number of reports i < n_reports whose bit j is set, where
// report i starts at reports + i * stride and bit j is bit j % 8 (least significant first) of its
// byte j / 8, the wire format's bit order. Only bytes [0, ceil(nbits / 8)) of each report are read,
// and the bits of the last byte at positions >= nbits are ignored; counts[j] for j >= nbits is never
// touched. Requires stride >= ceil(nbits / 8) (any stride when n_reports <= 1).
using column_popcount_fn = void (*)(const unsigned char* reports, std::size_t n_reports, std::size_t stride,
                                    std::size_t nbits, uint64_t* counts);

// OLH support counting (server decode of local-hashing reports, docs/performance.md 5): for every
// i < n_items, adds to support[i] the number of reports u < n_reports with
//   ((((a[u] * items[i] + b[u]) mod 2^64) >> 32) * g) >> 32 == bucket[u],
// the multiply-add-shift hash of wire::hash_to_range with key (a[u], b[u]). Reports are given as
// structure of arrays. Requires 1 <= g; a report whose bucket is >= g supports nothing.
using olh_support_fn = void (*)(const uint64_t* a, const uint64_t* b, const uint32_t* bucket, std::size_t n_reports,
                                uint32_t g, const uint32_t* items, std::size_t n_items, uint64_t* support);

// CRC32C (docs/wire_format.md section 6) in hardware: same result as wire::crc32c, with the running
// value first (crc = 0 to start). Null in tables without a CRC instruction; callers then use
// wire::crc32c (the kernels module cannot depend on wire, and one portable CRC is enough).
using crc32c_fn = uint32_t (*)(uint32_t crc, const unsigned char* bytes, std::size_t size);

// OLH report keys in bulk (server support counting, docs/performance.md 5): ldp::sip_pairs of
// ldp/base/siphash.h from the keyed SipHash state `start` (wire::report_hash_start), so a[i], b[i] is
// the key of seeds[i]. The AVX2 and AVX-512 tables compile that same loop with their flags, where it
// vectorizes across seeds; the others use the scalar one. The arrays must not overlap.
using sip_pairs_fn = void (*)(const uint64_t start[4], const uint64_t* seeds, std::size_t n, uint64_t* a, uint64_t* b);

inline constexpr std::size_t bernoulli_chunk_bits = 256;
inline constexpr std::size_t bernoulli_word_bytes = 32;

struct table {
  arch id;
  const char* name;  // as in benchmark names: "scalar", "sse2", "avx2", "avx512", "neon", "neon64"
  chacha20_blocks_fn chacha20_blocks;
  // The fewest blocks for which chacha20_blocks beats the scalar table's: a wide table computes a
  // whole group of lanes and cuts it, so below this the scalar table is faster. Measured per table
  // by BM_chacha20_blocks (docs/benchmarks.md, "Issue 19: small outputs"); 1 for scalar and for tables
  // not yet measured. Callers pick through chacha20_blocks_for().
  std::size_t chacha20_min_blocks;
  bernoulli_chunks_fn bernoulli_chunks;
  fwht_i32_fn fwht_i32;
  column_popcount_fn column_popcount;
  olh_support_fn olh_support;
  fwht_f32_fn fwht_f32;
  rotate_i32_fn rotate_i32;
  rotate_f32_fn rotate_f32;
  crc32c_fn crc32c;  // may be null
  sip_pairs_fn sip_pairs;
};

// The scalar reference, always compiled (the only table on Cortex-M).
[[nodiscard]] const table& scalar() noexcept;

// Every table compiled into this build, scalar first, then in increasing order of preference.
[[nodiscard]] span<const table* const> compiled() noexcept;

// Whether a CPU with these features can run the table.
[[nodiscard]] bool supported(const table& t, const cpu_features& cpu) noexcept;

// The most preferred compiled table the CPU supports.
[[nodiscard]] const table& select(const cpu_features& cpu) noexcept;

// The chacha20_blocks to run for nblocks blocks on t: the scalar table's below t.chacha20_min_blocks,
// t's own from there on. Both write the same bytes (docs/randomness.md, "Kernel tables and dispatch").
[[nodiscard]] chacha20_blocks_fn chacha20_blocks_for(const table& t, std::size_t nblocks) noexcept;

// The most preferred table that the compiler flags of this build guarantee (no run-time detection):
// neon64 on AArch64, neon on ARMv7 built with -mfpu=neon, sse2 on x86-64, scalar elsewhere.
[[nodiscard]] const table& native() noexcept;

}  // namespace ldp::kernels

#endif
