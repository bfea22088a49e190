// CRC32C by carry-less folding on 512-bit registers (VPCLMULQDQ), the `crc32c` entry of the avx512
// table (docs/wire_format.md section 6: the chunk checksum). The avx512 table requires AVX-512
// F/BW/VL only, and some of those CPUs (Skylake-SP, Cascade Lake) lack VPCLMULQDQ: CPUID is read
// once here, and without it, or for short inputs, crc32c_sse42 runs instead.
//
// Why (issue 19 goal 7): crc32c_sse42 is bound by its three interleaved streams when the batch
// comes from memory (about 8 GB/s, half of a sequential read on the machine of docs/benchmarks.md),
// and it was half of OUE ingestion. Folding reads the input as one sequential stream.
//
// Folding: with the input's bits as a polynomial M, the CRC register after M is M * x^32 mod P
// (the initial register XORed into M's first four bytes). A 128-bit lane X of the input (first byte
// in the low qword, bits reflected, so the low qword L holds the higher powers: X = L * x^64 + H) is
// moved D bits later, onto the lane there, as L * (x^(D + 64) mod P) + H * (x^D mod P). A
// carry-less product of two reflected qwords carries one extra factor x, and a 32-bit reflected
// constant in a qword's low half stands for itself times x^32: hence the exponents D + 31 and
// D - 33 below. Four lanes fold 64 bytes ahead per step; at the end they fold onto the last lane,
// whose register value is the crc32 instruction's over its 16 bytes from zero; the remaining bytes
// continue with crc32c_sse42.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#if defined(_MSC_VER)
#include <intrin.h>
#else
#include <cpuid.h>
#endif

#include "arch_tables.h"
#include "crc32c_poly.h"

namespace ldp::kernels::detail {
namespace {

// Below this many bytes the register setup costs more than the three crc32 streams.
constexpr std::size_t min_fold_bytes = 256;

// The constants that fold a lane `bits` later: low qword for L, high qword for H.
struct fold_key {
  uint64_t low, high;
};

constexpr fold_key make_key(std::size_t bits) { return {crc32c_x_pow(bits + 31), crc32c_x_pow(bits - 33)}; }

// Index i folds (i + 1) lanes, 128 (i + 1) bits, ahead.
constexpr fold_key keys[4] = {make_key(128), make_key(256), make_key(384), make_key(512)};

__m128i key128(const fold_key& k) {
  return _mm_set_epi64x(static_cast<long long>(k.high), static_cast<long long>(k.low));
}

__m128i fold(__m128i lane, const fold_key& k) {
  const __m128i key = key128(k);
  return _mm_xor_si128(_mm_clmulepi64_si128(lane, key, 0x00), _mm_clmulepi64_si128(lane, key, 0x11));
}

bool has_vpclmulqdq() {
  unsigned ecx = 0;
#if defined(_MSC_VER)
  int r[4];
  __cpuidex(r, 7, 0);
  ecx = static_cast<unsigned>(r[2]);
#else
  unsigned eax = 0, ebx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
#endif
  return ((ecx >> 10) & 1u) != 0;  // CPUID.(7, 0):ECX bit 10
}

}  // namespace

uint32_t crc32c_vpclmul(uint32_t crc, const unsigned char* bytes, std::size_t size) noexcept {
  static const bool usable = has_vpclmulqdq();
  if (!usable || size < min_fold_bytes) return crc32c_sse42(crc, bytes, size);
  const __m512i ahead = _mm512_broadcast_i32x4(key128(keys[3]));
  __m512i acc =
      _mm512_xor_si512(_mm512_loadu_si512(bytes), _mm512_castsi128_si512(_mm_cvtsi32_si128(static_cast<int>(~crc))));
  bytes += 64;
  size -= 64;
  for (; size >= 64; bytes += 64, size -= 64) {
    acc = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc, ahead, 0x00),
                                    _mm512_clmulepi64_epi128(acc, ahead, 0x11), _mm512_loadu_si512(bytes),
                                    0x96);  // a ^ b ^ c
  }
  __m128i last = _mm512_extracti32x4_epi32(acc, 3);
  last = _mm_xor_si128(last, fold(_mm512_extracti32x4_epi32(acc, 0), keys[2]));
  last = _mm_xor_si128(last, fold(_mm512_extracti32x4_epi32(acc, 1), keys[1]));
  last = _mm_xor_si128(last, fold(_mm512_extracti32x4_epi32(acc, 2), keys[0]));
  uint64_t c = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(last)));
  c = _mm_crc32_u64(c, static_cast<uint64_t>(_mm_extract_epi64(last, 1)));
  return crc32c_sse42(~static_cast<uint32_t>(c), bytes, size);
}

}  // namespace ldp::kernels::detail
