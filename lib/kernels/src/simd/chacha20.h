// ChaCha20 blocks (kernel_table.h), several per register.
#ifndef LDP_KERNELS_SRC_SIMD_CHACHA20_H
#define LDP_KERNELS_SRC_SIMD_CHACHA20_H

#include "common.h"

namespace ldp::kernels::detail {

// Rotations: xsimd 8.1 has no rotl. Generic shift/shift/or, replaced by one instruction where the
// architecture has it (vprold) or by a byte shuffle for the byte-multiple amounts (vpshufb).
template <int N, class Arch>
inline u32x<Arch> rotl(u32x<Arch> x, xsimd::generic) noexcept {
  return (x << N) | (x >> (32 - N));
}
#if XSIMD_WITH_AVX512F
template <int N, class Arch>
inline u32x<Arch> rotl(u32x<Arch> x, xsimd::avx512f) noexcept {
  return _mm512_rol_epi32(x, N);
}
#endif
#if XSIMD_WITH_AVX2
template <int N, class Arch>
inline u32x<Arch> rotl(u32x<Arch> x, xsimd::avx2) noexcept {
  if constexpr (N == 16) {
    const __m256i m = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10,
                                       11, 8, 9, 14, 15, 12, 13);
    return _mm256_shuffle_epi8(x, m);
  } else if constexpr (N == 8) {
    const __m256i m = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11,
                                       8, 9, 10, 15, 12, 13, 14);
    return _mm256_shuffle_epi8(x, m);
  } else {
    return (x << N) | (x >> (32 - N));
  }
}
#endif

// Wipes keystream left on the stack. Not ldp::secure_zero: a non-template inline function from this
// TU could be the copy the linker keeps for every caller.
template <class Arch>
inline void wipe(unsigned char* p, std::size_t n, Arch) noexcept {
  std::memset(p, 0, n);
#if defined(__GNUC__) || defined(__clang__)
  __asm__ __volatile__("" : : "r"(p) : "memory");
#endif
}

template <class Arch>
inline void quarter_round(u32x<Arch>& a, u32x<Arch>& b, u32x<Arch>& c, u32x<Arch>& d) noexcept {
  a += b;
  d ^= a;
  d = rotl<16, Arch>(d, Arch{});
  c += d;
  b ^= c;
  b = rotl<12, Arch>(b, Arch{});
  a += b;
  d ^= a;
  d = rotl<8, Arch>(d, Arch{});
  c += d;
  b ^= c;
  b = rotl<7, Arch>(b, Arch{});
}

// In-lane 4x4 transpose of 32-bit words: xsimd's zip_lo/zip_hi interleave within each 128-bit lane,
// so afterwards 128-bit chunk c of r[j] holds words 4g..4g+3 of block 4c + j.
template <class Arch>
inline void transpose4_in_lane(u32x<Arch> r[4]) noexcept {
  using u64 = u64x<Arch>;
  const u32x<Arch> t0 = xsimd::zip_lo(r[0], r[1]), t1 = xsimd::zip_hi(r[0], r[1]);
  const u32x<Arch> t2 = xsimd::zip_lo(r[2], r[3]), t3 = xsimd::zip_hi(r[2], r[3]);
  const u64 a0 = xsimd::bitwise_cast<u64>(t0), a1 = xsimd::bitwise_cast<u64>(t1);
  const u64 a2 = xsimd::bitwise_cast<u64>(t2), a3 = xsimd::bitwise_cast<u64>(t3);
  r[0] = xsimd::bitwise_cast<u32x<Arch>>(xsimd::zip_lo(a0, a2));
  r[1] = xsimd::bitwise_cast<u32x<Arch>>(xsimd::zip_hi(a0, a2));
  r[2] = xsimd::bitwise_cast<u32x<Arch>>(xsimd::zip_lo(a1, a3));
  r[3] = xsimd::bitwise_cast<u32x<Arch>>(xsimd::zip_hi(a1, a3));
}

// Vertical layout: lane b of every state vector belongs to block b (docs/performance.md 3).
struct chacha20_blocks_kernel {
  template <class Arch>
  void operator()(Arch, const uint32_t key[8], const uint32_t nonce[3], uint32_t counter, unsigned char* out,
                  std::size_t nblocks) const noexcept;
};

template <class Arch>
void chacha20_blocks_kernel::operator()(Arch, const uint32_t key[8], const uint32_t nonce[3], uint32_t counter,
                                        unsigned char* out, std::size_t nblocks) const noexcept {
  using v = u32x<Arch>;
  constexpr std::size_t lanes = v::size;
  constexpr std::size_t chunks = lanes / 4;  // 128-bit chunks per register
  alignas(Arch::alignment()) uint32_t lane_index[lanes];
  for (std::size_t i = 0; i < lanes; ++i) lane_index[i] = static_cast<uint32_t>(i);
  const v lane_offset = v::load_aligned(lane_index);

  // Whole groups go straight to `out`; a final partial group is computed in full on the stack and
  // cut, which is cheaper than the scalar path for anything but a single block on SSE2/NEON.
  alignas(Arch::alignment()) unsigned char last_group[64 * lanes];
  for (std::size_t done = 0; done < nblocks; done += lanes) {
    const bool whole = done + lanes <= nblocks;
    unsigned char* base = whole ? out + 64 * done : last_group;
    v in[16] = {v(0x61707865u),
                v(0x3320646eu),
                v(0x79622d32u),
                v(0x6b206574u),
                v(key[0]),
                v(key[1]),
                v(key[2]),
                v(key[3]),
                v(key[4]),
                v(key[5]),
                v(key[6]),
                v(key[7]),
                v(counter + static_cast<uint32_t>(done)) + lane_offset,
                v(nonce[0]),
                v(nonce[1]),
                v(nonce[2])};
    v x[16];
    for (int i = 0; i < 16; ++i) x[i] = in[i];
    for (int round = 0; round < 10; ++round) {
      quarter_round<Arch>(x[0], x[4], x[8], x[12]);
      quarter_round<Arch>(x[1], x[5], x[9], x[13]);
      quarter_round<Arch>(x[2], x[6], x[10], x[14]);
      quarter_round<Arch>(x[3], x[7], x[11], x[15]);
      quarter_round<Arch>(x[0], x[5], x[10], x[15]);
      quarter_round<Arch>(x[1], x[6], x[11], x[12]);
      quarter_round<Arch>(x[2], x[7], x[8], x[13]);
      quarter_round<Arch>(x[3], x[4], x[9], x[14]);
    }
    for (int g = 0; g < 4; ++g) {
      v r[4] = {x[4 * g] + in[4 * g], x[4 * g + 1] + in[4 * g + 1], x[4 * g + 2] + in[4 * g + 2],
                x[4 * g + 3] + in[4 * g + 3]};
      transpose4_in_lane<Arch>(r);
      for (int j = 0; j < 4; ++j) {
        if constexpr (chunks == 1) {
          // Byte-typed: `out` may sit at any offset (a DRBG buffer), and a uint32 or uint64
          // pointer lets ARMv7 NEON assume an alignment it does not have (a bus error).
          xsimd::bitwise_cast<xsimd::batch<uint8_t, Arch>>(r[j]).store_unaligned(base + 64 * j + 16 * g);
        } else {
          alignas(Arch::alignment()) uint32_t tmp[lanes];
          r[j].store_aligned(tmp);
          for (std::size_t c = 0; c < chunks; ++c) {
            std::memcpy(base + 64 * (4 * c + j) + 16 * g, tmp + 4 * c, 16);
          }
        }
      }
    }
    if (!whole) {
      std::memcpy(out + 64 * done, last_group, 64 * (nblocks - done));
      wipe(last_group, sizeof last_group, Arch{});
    }
  }
}

}  // namespace ldp::kernels::detail

#define LDP_KERNELS_DEFINE_CHACHA20(ARCH, ID)                                                                       \
  template void ldp::kernels::detail::chacha20_blocks_kernel::operator()<ARCH>(                                     \
      ARCH, const uint32_t*, const uint32_t*, uint32_t, unsigned char*, std::size_t) const noexcept;                \
  void ldp::kernels::detail::chacha20_blocks_##ID(const uint32_t key[8], const uint32_t nonce[3], uint32_t counter, \
                                                  unsigned char* out, std::size_t nblocks) noexcept {               \
    chacha20_blocks_kernel{}(ARCH{}, key, nonce, counter, out, nblocks);                                            \
  }

#endif
