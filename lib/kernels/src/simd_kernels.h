// xsimd implementations of the kernel table, templated on the xsimd architecture and explicitly
// instantiated once per architecture in arch_<name>.cpp, each compiled with that architecture's
// flags (the pattern of xsimd's test/doc/sum.hpp). Include only from those translation units.
//
// Everything here is a template on Arch, or calls the out-of-line scalar reference: a non-template
// inline helper would be emitted in every arch TU and the linker could keep an AVX2 copy for all
// callers (PERFORMANCE.md 9, trap 6).
#ifndef LDP_KERNELS_SRC_SIMD_KERNELS_H
#define LDP_KERNELS_SRC_SIMD_KERNELS_H

#include <xsimd/xsimd.hpp>

#include <cstring>
#include <type_traits>
#include <utility>

#include "scalar.h"

#if defined(__AVX512F__) || defined(__AVX2__) || defined(__SSSE3__)
#include <immintrin.h>
#endif

namespace ldp::kernels::detail {

template <class Arch>
using u32x = xsimd::batch<uint32_t, Arch>;
template <class Arch>
using u64x = xsimd::batch<uint64_t, Arch>;

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
    const __m256i m = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0,
                                       1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
    return _mm256_shuffle_epi8(x, m);
  } else if constexpr (N == 8) {
    const __m256i m = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1,
                                       2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
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
  a += b; d ^= a; d = rotl<16, Arch>(d, Arch{});
  c += d; b ^= c; b = rotl<12, Arch>(b, Arch{});
  a += b; d ^= a; d = rotl<8, Arch>(d, Arch{});
  c += d; b ^= c; b = rotl<7, Arch>(b, Arch{});
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

// Vertical layout: lane b of every state vector belongs to block b (PERFORMANCE.md 3).
struct chacha20_blocks_kernel {
  template <class Arch>
  void operator()(Arch, const uint32_t key[8], const uint32_t nonce[3], uint32_t counter,
                  unsigned char* out, std::size_t nblocks) const noexcept;
};

template <class Arch>
void chacha20_blocks_kernel::operator()(Arch, const uint32_t key[8], const uint32_t nonce[3],
                                        uint32_t counter, unsigned char* out,
                                        std::size_t nblocks) const noexcept {
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
    v in[16] = {v(0x61707865u), v(0x3320646eu), v(0x79622d32u), v(0x6b206574u),
                v(key[0]),      v(key[1]),      v(key[2]),      v(key[3]),
                v(key[4]),      v(key[5]),      v(key[6]),      v(key[7]),
                v(counter + static_cast<uint32_t>(done)) + lane_offset,
                v(nonce[0]),    v(nonce[1]),    v(nonce[2])};
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

// The lane-parallel Bernoulli of kernel_table.h, 256 lanes as 256 / (64 * batch size) registers.
// x & ~r is written out: xsimd 8.1's bitwise_andnot(a, b) is ~a & b on x86 but a & ~b on NEON.
struct bernoulli_chunks_kernel {
  template <class Arch>
  std::size_t operator()(Arch, uint64_t* out, std::size_t nchunks, uint64_t threshold,
                         unsigned bits, const unsigned char* rnd, std::size_t rnd_words,
                         std::size_t* words_used) const noexcept;
};

template <class Arch>
std::size_t bernoulli_chunks_kernel::operator()(Arch, uint64_t* out, std::size_t nchunks,
                                                uint64_t threshold, unsigned bits,
                                                const unsigned char* rnd, std::size_t rnd_words,
                                                std::size_t* words_used) const noexcept {
  using v = u64x<Arch>;
  constexpr std::size_t regs = 4 / v::size;
  static_assert(regs >= 1 && regs * v::size == 4, "a chunk is 256 bits");
  const uint64_t one = uint64_t{1} << bits;
  if (threshold == 0 || threshold == one) {
    const uint64_t fill = threshold == 0 ? 0 : ~uint64_t{0};
    for (std::size_t i = 0; i < 4 * nchunks; ++i) out[i] = fill;
    *words_used = 0;
    return nchunks;
  }
  // Digits at and below the lowest set bit of the threshold are never read.
  int lowest = 0;
  while (((threshold >> lowest) & 1) == 0) ++lowest;
  std::size_t used = 0, done = 0;
  for (; done < nchunks && rnd_words - used >= bits; ++done, out += 4) {
    v undecided[regs], result[regs];
    for (std::size_t k = 0; k < regs; ++k) {
      undecided[k] = v(~uint64_t{0});
      result[k] = v(uint64_t{0});
    }
    for (int digit = static_cast<int>(bits) - 1; digit >= lowest; --digit) {
      // Byte loads: the words come from the DRBG buffer at any offset (see the ChaCha20 store).
      const unsigned char* word = rnd + bernoulli_word_bytes * used++;
      const auto load = [word](std::size_t k) {
        return xsimd::bitwise_cast<v>(xsimd::batch<uint8_t, Arch>::load_unaligned(word + 8 * k * v::size));
      };
      v any(uint64_t{0});
      if ((threshold >> digit) & 1) {
        for (std::size_t k = 0; k < regs; ++k) {
          const v r = load(k);
          result[k] |= undecided[k] & ~r;
          undecided[k] &= r;
          any |= undecided[k];
        }
      } else {
        for (std::size_t k = 0; k < regs; ++k) {
          const v r = load(k);
          undecided[k] &= ~r;
          any |= undecided[k];
        }
      }
      if (xsimd::none(any != v(uint64_t{0}))) break;
    }
    for (std::size_t k = 0; k < regs; ++k) result[k].store_unaligned(out + k * v::size);
  }
  *words_used = used;
  return done;
}

// -------------------------------------------------------------------------------------------------
// Fast Walsh-Hadamard transform and randomized Hadamard rotation, in uint32_t (int32 modulo 2^32)
// and in float (kernel_table.h; MECHANISMS.md B.4; PERFORMANCE.md 1-2).
//
// Arithmetic on uint32_t lanes wraps. For float, every table must reproduce the scalar reference's
// roundings, and it does so because each element goes through the same butterflies in the same
// order: level h (elements j and j + 2^h) after level h - 1, each output a + b or a - b of the same
// two values. Reordering independent butterflies (blocks, passes, depth first) changes no bit, and
// neither does the in-register form of a level, swap(x) + negate_upper(x): the lower lane gets
// b + a = a + b, the upper one a + (-b) = a - b, both exact identities of IEEE 754 (negation is a
// sign-bit flip, never 0 - x, which differs at +0); nor does an FMA whose multiplier is +-1
// (fma(b, +-1, a) rounds a +- b once, like the add). The schedule, for L lanes per register:
// - first pass: 8 registers of contiguous data (AVX-512: 16 of 256 bits, see fwht_first_arch); the
//   log2(L) in-register levels (a lane swap plus a negation of the upper lanes, then one add), then
//   3 (4) levels across the registers;
// - the remaining levels in as few radix-8 (or 4, 2) passes as possible, each loading the registers
//   `stride` elements apart, doing up to 3 levels and storing them back;
// - depth first above 2^block_log2 elements: a pass waits until every sub-block below it is done,
//   so all passes but the outermost few run in L1 or L2.
// The rotation's signs are applied to the registers the first pass loads, and its scale to the
// registers the last pass stores, so D and d^-1/2 add no pass over memory. Passes are bound by
// stores (one per register per pass) except the first, bound by the in-register shuffles and by
// each register's chain of dependent operations (hence the rotation reads its sign rows one group
// ahead, fwht_first_pass_r). Lengths below one first-pass group go to the scalar reference.

template <class T, class Arch>
using fwht_vec = xsimd::batch<T, Arch>;

// The lane swap of an in-register level: lanes j and j ^ H exchanged.
template <unsigned H, class Arch>
struct fwht_swap_index {
  static constexpr uint32_t get(std::size_t i, std::size_t) noexcept {
    return static_cast<uint32_t>(i ^ H);
  }
};

template <unsigned H, class Arch>
inline u32x<Arch> fwht_swap(u32x<Arch> x, xsimd::generic) noexcept {
  return xsimd::swizzle(x, xsimd::make_batch_constant<u32x<Arch>, fwht_swap_index<H, Arch>>());
}
#if XSIMD_WITH_SSE2
template <unsigned H, class Arch>
inline u32x<Arch> fwht_swap(u32x<Arch> x, xsimd::sse2) noexcept {
  if constexpr (H == 1) {
    return _mm_shuffle_epi32(x, 0xB1);  // 1 0 3 2
  } else {
    static_assert(H == 2, "4 lanes");
    return _mm_shuffle_epi32(x, 0x4E);  // 2 3 0 1
  }
}
#endif
#if XSIMD_WITH_AVX2
template <unsigned H, class Arch>
inline u32x<Arch> fwht_swap(u32x<Arch> x, xsimd::avx2) noexcept {
  if constexpr (H == 1) {
    return _mm256_shuffle_epi32(x, 0xB1);
  } else if constexpr (H == 2) {
    return _mm256_shuffle_epi32(x, 0x4E);
  } else {
    static_assert(H == 4, "8 lanes");
    return _mm256_permute2x128_si256(x, x, 0x01);  // swap the 128-bit halves
  }
}
#endif
#if XSIMD_WITH_NEON
template <unsigned H, class Arch>
inline u32x<Arch> fwht_swap(u32x<Arch> x, xsimd::neon) noexcept {
  if constexpr (H == 1) {
    return vrev64q_u32(x);
  } else {
    static_assert(H == 2, "4 lanes");
    return vextq_u32(x, x, 2);
  }
}
#endif

// The lanes j with bit H set negated: two's complement for uint32_t, the sign bit for float.
template <unsigned H, class T, class Arch>
inline fwht_vec<T, Arch> fwht_negate_upper(fwht_vec<T, Arch> x, xsimd::generic) noexcept {
  constexpr std::size_t lanes = u32x<Arch>::size;
  alignas(Arch::alignment()) uint32_t mask[lanes];
  for (std::size_t j = 0; j < lanes; ++j) mask[j] = (j & H) != 0 ? ~uint32_t{0} : 0;
  const u32x<Arch> m = u32x<Arch>::load_aligned(mask);
  if constexpr (std::is_same_v<T, float>) {
    const u32x<Arch> bits = xsimd::bitwise_cast<u32x<Arch>>(x) ^ (m & u32x<Arch>(0x80000000u));
    return xsimd::bitwise_cast<fwht_vec<T, Arch>>(bits);
  } else {
    return (x ^ m) - m;
  }
}
#if XSIMD_WITH_AVX2
template <unsigned H>
constexpr int fwht_lane_sign(int j) noexcept {
  return (j & static_cast<int>(H)) != 0 ? -1 : 1;
}

template <unsigned H, class T, class Arch>
inline fwht_vec<T, Arch> fwht_negate_upper(fwht_vec<T, Arch> x, xsimd::avx2) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return fwht_negate_upper<H, T, Arch>(x, xsimd::generic{});
  } else {
    return _mm256_sign_epi32(
        x, _mm256_setr_epi32(fwht_lane_sign<H>(0), fwht_lane_sign<H>(1), fwht_lane_sign<H>(2),
                             fwht_lane_sign<H>(3), fwht_lane_sign<H>(4), fwht_lane_sign<H>(5),
                             fwht_lane_sign<H>(6), fwht_lane_sign<H>(7)));
  }
}
#endif

// swapped + x with the lanes j that have bit H set negated. For float, where there is an FMA it
// is fma(x, c, swapped) with c = +-1: the product is exact, so the one rounding is the add's, and
// the xor of the negation disappears.
template <unsigned H, class T, class Arch>
inline fwht_vec<T, Arch> fwht_add_signed(fwht_vec<T, Arch> swapped, fwht_vec<T, Arch> x,
                                         xsimd::generic) noexcept {
  return swapped + fwht_negate_upper<H, T, Arch>(x, Arch{});
}
#if XSIMD_WITH_AVX2 && defined(__FMA__)
template <unsigned H, class T, class Arch>
inline fwht_vec<T, Arch> fwht_add_signed(fwht_vec<T, Arch> swapped, fwht_vec<T, Arch> x,
                                         xsimd::avx2) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    const __m256 c = _mm256_setr_ps(
        static_cast<float>(fwht_lane_sign<H>(0)), static_cast<float>(fwht_lane_sign<H>(1)),
        static_cast<float>(fwht_lane_sign<H>(2)), static_cast<float>(fwht_lane_sign<H>(3)),
        static_cast<float>(fwht_lane_sign<H>(4)), static_cast<float>(fwht_lane_sign<H>(5)),
        static_cast<float>(fwht_lane_sign<H>(6)), static_cast<float>(fwht_lane_sign<H>(7)));
    return _mm256_fmadd_ps(x, c, swapped);
  } else {
    return fwht_add_signed<H, T, Arch>(swapped, x, xsimd::generic{});
  }
}
#endif

// One in-register level: lanes j and j ^ H (H < L) are a butterfly pair.
template <unsigned H, class T, class Arch>
inline fwht_vec<T, Arch> fwht_lane_level(fwht_vec<T, Arch> x) noexcept {
  using v = fwht_vec<T, Arch>;
  const v swapped =
      xsimd::bitwise_cast<v>(fwht_swap<H, Arch>(xsimd::bitwise_cast<u32x<Arch>>(x), Arch{}));
  return fwht_add_signed<H, T, Arch>(swapped, x, Arch{});
}

// All log2(L) in-register levels of one register.
template <class T, class Arch>
inline fwht_vec<T, Arch> fwht_in_register(fwht_vec<T, Arch> x) noexcept {
  constexpr std::size_t lanes = fwht_vec<T, Arch>::size;
  static_assert(lanes == 4 || lanes == 8, "4 or 8 lanes");
  x = fwht_lane_level<1, T, Arch>(x);
  x = fwht_lane_level<2, T, Arch>(x);
  if constexpr (lanes == 8) x = fwht_lane_level<4, T, Arch>(x);
  return x;
}

// The rotation's signs D (kernel_table.h) for one register: lane j is negated when bit Shift + j of
// `word` is set. The L bits select a row of a constant table (2^L rows of L lanes: 256 B for 4
// lanes, 8 KiB for 8), so a register's signs cost a scalar bit-field extract and one operation with
// a memory operand, instead of vector operations on the shuffle and shift ports that the first
// pass already saturates. A row lane holds Neg for a negated lane and Pos for a kept one:
// the sign bit for float (xor), +-1 for AVX2 int32 (vpsignd), all ones or zero for other int32
// (xor, subtract).
template <std::size_t L, uint32_t Neg, uint32_t Pos>
struct fwht_sign_rows {
  struct rows {
    alignas(64) uint32_t lanes[(std::size_t{1} << L) * L];
  };
  static constexpr rows make() noexcept {
    rows r{};
    for (std::size_t b = 0; b < (std::size_t{1} << L); ++b) {
      for (std::size_t j = 0; j < L; ++j) r.lanes[b * L + j] = ((b >> j) & 1u) != 0 ? Neg : Pos;
    }
    return r;
  }
  static constexpr rows table = make();
};

// x with the signs of `row` applied, and the table it comes from, per element type and arch.
template <class T, class Arch>
inline fwht_vec<T, Arch> fwht_sign_row(fwht_vec<T, Arch> x, std::size_t row,
                                       xsimd::generic) noexcept {
  constexpr std::size_t lanes = u32x<Arch>::size;
  if constexpr (std::is_same_v<T, float>) {
    using rows = fwht_sign_rows<lanes, 0x80000000u, 0>;
    const u32x<Arch> sign = u32x<Arch>::load_aligned(rows::table.lanes + row * lanes);
    return xsimd::bitwise_cast<fwht_vec<T, Arch>>(xsimd::bitwise_cast<u32x<Arch>>(x) ^ sign);
  } else {
    using rows = fwht_sign_rows<lanes, ~uint32_t{0}, 0>;
    const u32x<Arch> m = u32x<Arch>::load_aligned(rows::table.lanes + row * lanes);
    return (x ^ m) - m;
  }
}
#if XSIMD_WITH_AVX2
template <class T, class Arch>
inline fwht_vec<T, Arch> fwht_sign_row(fwht_vec<T, Arch> x, std::size_t row, xsimd::avx2) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return fwht_sign_row<T, Arch>(x, row, xsimd::generic{});
  } else {
    using rows = fwht_sign_rows<8, ~uint32_t{0}, 1>;
    return _mm256_sign_epi32(x, u32x<Arch>::load_aligned(rows::table.lanes + row * 8));
  }
}
#endif

// The row of register K of a first-pass group whose signs start at `bytes`: bits K * L to
// K * L + L - 1, read as bytes (every xsimd architecture is little endian, so byte j of the sign
// words holds bits 8j .. 8j + 7). A byte load is one instruction per index, and the 8 indices that
// fwht_first_pass_r reads ahead then fit the general registers; extracted from words with shifts
// they make the loop spill (the float rotation 1-2 % slower at 2^10, AVX2 and SSE2).
#if defined(__BYTE_ORDER__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "sign bytes in little-endian order");
#endif
template <std::size_t K, class Arch>
inline std::size_t fwht_sign_index(const unsigned char* bytes) noexcept {
  constexpr std::size_t lanes = u32x<Arch>::size;
  static_assert(lanes == 4 || lanes == 8, "a table row per register");
  if constexpr (lanes == 8) {
    return bytes[K];
  } else {
    return (bytes[K / 2] >> (4 * (K % 2))) & 15u;
  }
}

// a - b. For float on x86 with FMA it is fnmadd(b, 1, a), the same single rounding, issued to the
// FMA units: AMD cores (Zen) add on two other pipes, so the butterflies' adds and subtracts then
// use all four; on Intel cores both run on the same two ports, at the same cost.
template <class T, class Arch>
inline fwht_vec<T, Arch> fwht_sub(fwht_vec<T, Arch> a, fwht_vec<T, Arch> b, xsimd::generic) noexcept {
  return a - b;
}
#if XSIMD_WITH_AVX2 && defined(__FMA__)
template <class T, class Arch>
inline fwht_vec<T, Arch> fwht_sub(fwht_vec<T, Arch> a, fwht_vec<T, Arch> b, xsimd::avx2) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return _mm256_fnmadd_ps(b, _mm256_set1_ps(1.0f), a);
  } else {
    return a - b;
  }
}
#endif
#if XSIMD_WITH_AVX512F
template <class T, class Arch>
inline fwht_vec<T, Arch> fwht_sub(fwht_vec<T, Arch> a, fwht_vec<T, Arch> b, xsimd::avx512f) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return _mm512_fnmadd_ps(b, _mm512_set1_ps(1.0f), a);
  } else {
    return a - b;
  }
}
#endif

// One radix-2 butterfly: (a, b) -> (a + b, a - b). AddUnits: a - b as a subtraction even where
// fwht_sub would issue it to the FMA units (the rounding is the same).
template <class T, class Arch, bool AddUnits>
inline void fwht_butterfly(fwht_vec<T, Arch>& a, fwht_vec<T, Arch>& b) noexcept {
  const fwht_vec<T, Arch> sum = a + b;
  if constexpr (AddUnits) {
    b = a - b;
  } else {
    b = fwht_sub<T, Arch>(a, b, Arch{});
  }
  a = sum;
}

// The level H across registers: pair m is (j, j + H) with j = (m / H) * 2H + m % H. Written as
// folds over index sequences so that every index is a constant and r[] lives in registers (a loop
// that the compiler does not unroll completely leaves the array on the stack).
template <std::size_t H, class T, class Arch, bool AddUnits, std::size_t... M>
inline void fwht_level(fwht_vec<T, Arch>* r, std::index_sequence<M...>) noexcept {
  (fwht_butterfly<T, Arch, AddUnits>(r[(M / H) * 2 * H + M % H], r[(M / H) * 2 * H + M % H + H]),
   ...);
}

// log2(R) levels across R registers: r[j] and r[j + h] are elements h register strides apart.
// FirstOnAddUnits: the first level subtracts on the add units (fwht_butterfly). Sixteen registers
// are two radix-8 halves, then the level between them: the same butterflies, in pieces small
// enough for the compiler to inline (an out-of-line call keeps r[] in memory).
template <std::size_t R, class T, class Arch, bool FirstOnAddUnits = false>
inline void fwht_butterflies(fwht_vec<T, Arch>* r) noexcept {
  static_assert(R == 2 || R == 4 || R == 8 || R == 16, "radix 2, 4, 8 or 16");
  if constexpr (R == 16) {
    fwht_butterflies<8, T, Arch, FirstOnAddUnits>(r);
    fwht_butterflies<8, T, Arch, FirstOnAddUnits>(r + 8);
    fwht_level<8, T, Arch, false>(r, std::make_index_sequence<8>{});
  } else {
    fwht_level<1, T, Arch, FirstOnAddUnits>(r, std::make_index_sequence<R / 2>{});
    if constexpr (R >= 4) fwht_level<2, T, Arch, false>(r, std::make_index_sequence<R / 2>{});
    if constexpr (R >= 8) fwht_level<4, T, Arch, false>(r, std::make_index_sequence<R / 2>{});
  }
}

template <class T, class Arch, std::size_t... K>
inline void fwht_load(fwht_vec<T, Arch>* r, const T* p, std::size_t stride,
                      std::index_sequence<K...>) noexcept {
  ((r[K] = fwht_vec<T, Arch>::load_unaligned(p + K * stride)), ...);
}

template <class T, class Arch, std::size_t... K>
inline void fwht_store(const fwht_vec<T, Arch>* r, T* p, std::size_t stride,
                       std::index_sequence<K...>) noexcept {
  (r[K].store_unaligned(p + K * stride), ...);
}

// Register K of a group holds elements K * L .. K * L + L - 1 of the group, which starts on a
// multiple of 32 (8 or 16 registers of 4 or 8 lanes); rows[K] is its sign row.
template <class Arch, std::size_t... K>
inline void fwht_sign_indices(std::size_t* rows, const uint32_t* words,
                              std::index_sequence<K...>) noexcept {
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(words);
  ((rows[K] = fwht_sign_index<K, Arch>(bytes)), ...);
}

template <class T, class Arch, std::size_t... K>
inline void fwht_signs_all(fwht_vec<T, Arch>* r, const std::size_t* rows,
                           std::index_sequence<K...>) noexcept {
  ((r[K] = fwht_sign_row<T, Arch>(r[K], rows[K], Arch{})), ...);
}

template <class T, class Arch, std::size_t... K>
inline void fwht_in_register_all(fwht_vec<T, Arch>* r, std::index_sequence<K...>) noexcept {
  ((r[K] = fwht_in_register<T, Arch>(r[K])), ...);
}

template <class T, class Arch, std::size_t... K>
inline void fwht_scale_all(fwht_vec<T, Arch>* r, fwht_vec<T, Arch> scale,
                           std::index_sequence<K...>) noexcept {
  ((r[K] = r[K] * scale), ...);
}

// What a rotation adds to the plain transform: the signs D, read by the first pass, and the scale
// s, applied by the last pass.
template <class T>
struct fwht_extras {
  const uint32_t* signs;
  T scale;
};

// Levels 0 .. log2(L * R) - 1 of x[0 .. n), n a multiple of L * R: R registers of contiguous data.
// A register's sign row takes two dependent loads (its index, then the row) before the first
// operation of its chain. On x86 with 8 registers the row indices of the next group are therefore
// read while this group is transformed: at 2^10 on a Zen 4 core the float rotation is then 4 %
// faster (AVX2 and SSE2), the int32 one 0-2 %. (Sixteen indices would not fit the general
// registers next to the loop's own; NEON is not measured and reads them in place.) xsimd 8.1
// derives avx from generic, not from sse2, hence the two tests for x86.
template <std::size_t R, class T, class Arch, bool Signs, bool Scaled>
inline void fwht_first_pass_r(T* x, std::size_t n, const fwht_extras<T>& extras) noexcept {
  using v = fwht_vec<T, Arch>;
  constexpr std::size_t lanes = v::size;
  constexpr bool x86 = std::is_base_of_v<xsimd::sse2, Arch> || std::is_base_of_v<xsimd::avx, Arch>;
  constexpr bool ahead = Signs && R == 8 && x86;
  using regs = std::make_index_sequence<R>;
  [[maybe_unused]] std::size_t rows[R];
  if constexpr (ahead) fwht_sign_indices<Arch>(rows, extras.signs, regs{});
  for (std::size_t i = 0; i < n; i += R * lanes) {
    v r[R];
    fwht_load<T, Arch>(r, x + i, lanes, regs{});
    if constexpr (ahead) {
      fwht_signs_all<T, Arch>(r, rows, regs{});
      const std::size_t next = i + R * lanes < n ? i + R * lanes : i;  // the last group: its own
      fwht_sign_indices<Arch>(rows, extras.signs + next / 32, regs{});
    } else if constexpr (Signs) {
      fwht_sign_indices<Arch>(rows, extras.signs + i / 32, regs{});
      fwht_signs_all<T, Arch>(r, rows, regs{});
    }
    fwht_in_register_all<T, Arch>(r, regs{});
    fwht_butterflies<R, T, Arch>(r);
    if constexpr (Scaled) fwht_scale_all<T, Arch>(r, v(extras.scale), regs{});
    fwht_store<T, Arch>(r, x + i, lanes, regs{});
  }
}

// Levels log2(stride) .. log2(stride * R) - 1 of x[0 .. n); stride a multiple of L, n a multiple
// of R * stride. Scaled (the rotation's last pass): the multiplies by the scale occupy the FMA
// units, so the first level subtracts on the add units (Zen 4: the float rotation 2-3 % faster
// at 2^10, AVX2 and AVX-512; cores that issue adds and FMAs to the same ports are unaffected).
template <std::size_t R, class T, class Arch, bool Scaled>
inline void fwht_pass(T* x, std::size_t n, std::size_t stride, T scale) noexcept {
  using v = fwht_vec<T, Arch>;
  using regs = std::make_index_sequence<R>;
  for (std::size_t block = 0; block < n; block += R * stride) {
    for (std::size_t j = block; j < block + stride; j += v::size) {
      v r[R];
      fwht_load<T, Arch>(r, x + j, stride, regs{});
      fwht_butterflies<R, T, Arch, Scaled>(r);
      if constexpr (Scaled) fwht_scale_all<T, Arch>(r, v(scale), regs{});
      fwht_store<T, Arch>(r, x + j, stride, regs{});
    }
  }
}

// The registers of the first pass. AVX-512 runs it on 16 registers of 256 bits (AVX512VL gives 32
// of them) rather than on 8 of 512: its top in-register level (a swap of 256-bit halves and an FMA
// per register) becomes one add or subtract between registers, and the rotation's signs come from
// the row table instead of a mask register per vector. Measured on a Zen 4 core against the 512-bit
// first pass, at 2^10 / 2^16 / 2^20: int32 transform 14 / 11 / 7 % faster, float transform about
// 1 % faster, int32 rotation 16 / 11 / 9 %, float rotation 5 / 1 / 1 % (8 / 2 / 1 % with the scaled
// pass of fwht_pass). The tag is fma3<avx2>, not avx2, so that no template instance of the avx512
// unit is also one of the avx2 unit's (PERFORMANCE.md 9, trap 6).
template <class Arch, class = void>
struct fwht_first_arch {
  using type = Arch;
};
#if XSIMD_WITH_AVX512F
static_assert(XSIMD_WITH_FMA3_AVX2, "the avx512 unit is compiled with AVX2 and FMA");
template <class Arch>
struct fwht_first_arch<Arch, std::enable_if_t<std::is_base_of_v<xsimd::avx512f, Arch>>> {
  using type = xsimd::fma3<xsimd::avx2>;
};
#endif

// The schedule's constants. Measured on a Zen 4/5 class core (AVX2 and AVX-512): passes of 16
// full-width registers (first pass or radix 16) are slower everywhere, from spills with 16 vector
// registers and, with 32, from 16 streams at a large power-of-two stride sharing L1 sets. The plain
// transform gains nothing from cache blocks other than 2^13 elements between 2^11 and 2^15; the
// rotation needs the first pass to run on whole blocks (a block of 2^13 is one first pass and its
// passes, while with 2^12 the lengths 2^13, 2^16, 2^19 start with 4 KiB pieces, each of which
// fetches the sign-row table back into L1: 1.2x instead of 1.1x the plain transform).
template <class T, class Arch>
struct fwht_shape {
  using first_arch = typename fwht_first_arch<Arch>::type;
  static constexpr std::size_t first_lanes = fwht_vec<T, first_arch>::size;
  // 8 registers; 16 when they are half the width of the other passes' (AVX-512).
  static constexpr unsigned first_regs_log2 = first_lanes < fwht_vec<T, Arch>::size ? 4 : 3;
  static constexpr unsigned first_levels = (first_lanes == 4 ? 2 : 3) + first_regs_log2;
  static constexpr unsigned max_pass_levels = 3;  // radix 8 at most
  static constexpr unsigned block_log2 = 13;      // 32 KiB of float: passes below run in L1/L2
};

// The first pass; it is also the last one when `last`.
template <class T, class Arch, bool Signs, bool Scaled>
inline void fwht_first_pass(T* x, std::size_t n, const fwht_extras<T>& extras, bool last) noexcept {
  using shape = fwht_shape<T, Arch>;
  using first_arch = typename shape::first_arch;
  constexpr std::size_t regs = std::size_t{1} << shape::first_regs_log2;
  if constexpr (Scaled) {
    if (last) {
      fwht_first_pass_r<regs, T, first_arch, Signs, true>(x, n, extras);
      return;
    }
  }
  fwht_first_pass_r<regs, T, first_arch, Signs, false>(x, n, extras);
}

// One pass of `levels` levels (1 to 3) from level log2(stride) on.
template <class T, class Arch, bool Scaled>
inline void fwht_pass_levels(T* x, std::size_t n, std::size_t stride, unsigned levels,
                             T scale) noexcept {
  switch (levels) {
    case 1: fwht_pass<2, T, Arch, Scaled>(x, n, stride, scale); break;
    case 2: fwht_pass<4, T, Arch, Scaled>(x, n, stride, scale); break;
    default: fwht_pass<8, T, Arch, Scaled>(x, n, stride, scale); break;
  }
}

// The first pass, then passes[0 .. count) (levels per pass, low levels first), on 2^log2n elements;
// Scaled: the last pass applies the scale. Depth first: while a block is larger than
// 2^block_log2, its top pass waits until every sub-block it spans has been transformed, so all but
// the outermost passes run in cache.
template <class T, class Arch, bool Signs, bool Scaled>
void fwht_schedule(T* x, unsigned log2n, const unsigned char* passes, unsigned count,
                   const fwht_extras<T>& extras) noexcept {
  using shape = fwht_shape<T, Arch>;
  const std::size_t n = std::size_t{1} << log2n;
  if (count == 0 || log2n <= shape::block_log2) {
    fwht_first_pass<T, Arch, Signs, Scaled>(x, n, extras, count == 0);
    unsigned done = shape::first_levels;
    for (unsigned i = 0; i < count; ++i) {
      const std::size_t stride = std::size_t{1} << done;
      if (Scaled && i + 1 == count) {
        fwht_pass_levels<T, Arch, Scaled>(x, n, stride, passes[i], extras.scale);
      } else {
        fwht_pass_levels<T, Arch, false>(x, n, stride, passes[i], extras.scale);
      }
      done += passes[i];
    }
    return;
  }
  const unsigned top = passes[count - 1];
  const unsigned sub = log2n - top;
  for (std::size_t k = 0; k < (std::size_t{1} << top); ++k) {
    const std::size_t first = k << sub;  // a multiple of 32: sub >= first_levels >= 5
    const fwht_extras<T> part{Signs ? extras.signs + first / 32 : nullptr, extras.scale};
    fwht_schedule<T, Arch, Signs, false>(x + first, sub, passes, count - 1, part);
  }
  fwht_pass_levels<T, Arch, Scaled>(x, n, std::size_t{1} << sub, top, extras.scale);
}

// The transform on T = uint32_t or float, with the rotation's signs (Signs) and scale (Scaled).
template <class T, bool Signs, bool Scaled>
struct hadamard_kernel {
  template <class Arch>
  void operator()(Arch, T* x, const uint32_t* signs, unsigned log2n) const noexcept;
};

template <class T, bool Signs, bool Scaled>
template <class Arch>
void hadamard_kernel<T, Signs, Scaled>::operator()(Arch, T* x, const uint32_t* signs,
                                                   unsigned log2n) const noexcept {
  using shape = fwht_shape<T, Arch>;
  if (log2n < shape::first_levels) {
    if constexpr (std::is_same_v<T, float>) {
      if constexpr (Signs) {
        rotate_f32_scalar(x, signs, log2n);
      } else {
        fwht_f32_scalar(x, log2n);
      }
    } else if constexpr (Signs) {
      rotate_i32_scalar(reinterpret_cast<int32_t*>(x), signs, log2n);
    } else {
      fwht_i32_scalar(reinterpret_cast<int32_t*>(x), log2n);
    }
    return;
  }
  // The levels above the first pass, in as few passes as possible, spread evenly (the larger ones
  // last: the outer passes are bound by memory, not by the butterflies).
  const unsigned rest = log2n - shape::first_levels;
  const unsigned count = (rest + shape::max_pass_levels - 1) / shape::max_pass_levels;
  unsigned char passes[32];
  for (unsigned i = 0; i < count; ++i) {
    passes[i] = static_cast<unsigned char>(rest / count + (i >= count - rest % count ? 1 : 0));
  }
  fwht_extras<T> extras{signs, T{1}};
  if constexpr (Scaled) extras.scale = rotation_scale(log2n);
  fwht_schedule<T, Arch, Signs, Scaled>(x, log2n, passes, count, extras);
}

// -------------------------------------------------------------------------------------------------
// Column popcount (kernel_table.h; PERFORMANCE.md 7): a carry-save positional population count.
//
// One register holds W bytes = 8W bit positions of a report. Per column register, the running
// count of every position is kept bit-sliced: 16 * ctr + 8 * eights + 4 * fours + 2 * twos + ones,
// where ones..eights are bit planes and ctr[b] holds, in byte c, the sixteens of position 8c + b.
// Sixteen reports are added with a Harley-Seal tree of 15 carry-save adders (5 logic operations
// each); its sixteens plane is spread into ctr[0..7] with a 16-bit shift and a 0x0101 mask per bit.
// ctr is flushed into the 64-bit counts at most every 255 groups, before a byte can wrap.
//
// Reports are taken in blocks of about 16 KiB, so a block read for the first column register is
// still in L1 for the others. A bit vector that is not a multiple of W bytes ends with a register
// that overlaps the one before it (it flushes only positions not yet counted); one shorter than W bytes,
// and the last partial group of 16 reports, are copied into a zero-padded buffer. Only the bytes
// [0, ceil(nbits / 8)) of a report are ever read.

template <class Arch>
using u8x = xsimd::batch<uint8_t, Arch>;
template <class Arch>
using u16x = xsimd::batch<uint16_t, Arch>;

template <class Arch>
struct popcount_state {
  u8x<Arch> ones, twos, fours, eights;
  u8x<Arch> ctr[8];
};

template <class Arch>
inline void popcount_clear(popcount_state<Arch>& s) noexcept {
  const u8x<Arch> zero(uint8_t{0});
  s.ones = s.twos = s.fours = s.eights = zero;
  for (int b = 0; b < 8; ++b) s.ctr[b] = zero;
}

// a + b + c = 2 * high + low, bitwise.
template <class Arch>
inline void popcount_csa(u8x<Arch>& high, u8x<Arch>& low, u8x<Arch> a, u8x<Arch> b,
                         u8x<Arch> c) noexcept {
  const u8x<Arch> u = a ^ b;
  high = (a & b) | (u & c);
  low = u ^ c;
}

// Adds the 16 rows p, p + stride, ..., p + 15 * stride (W bytes each).
template <class Arch>
inline void popcount_add16(popcount_state<Arch>& s, const unsigned char* p,
                           std::size_t stride) noexcept {
  using v = u8x<Arch>;
  using w = u16x<Arch>;
  const auto row = [p, stride](std::size_t k) { return v::load_unaligned(p + k * stride); };
  v twos_a, twos_b, fours_a, fours_b, eights_a, eights_b, sixteens;
  popcount_csa<Arch>(twos_a, s.ones, s.ones, row(0), row(1));
  popcount_csa<Arch>(twos_b, s.ones, s.ones, row(2), row(3));
  popcount_csa<Arch>(fours_a, s.twos, s.twos, twos_a, twos_b);
  popcount_csa<Arch>(twos_a, s.ones, s.ones, row(4), row(5));
  popcount_csa<Arch>(twos_b, s.ones, s.ones, row(6), row(7));
  popcount_csa<Arch>(fours_b, s.twos, s.twos, twos_a, twos_b);
  popcount_csa<Arch>(eights_a, s.fours, s.fours, fours_a, fours_b);
  popcount_csa<Arch>(twos_a, s.ones, s.ones, row(8), row(9));
  popcount_csa<Arch>(twos_b, s.ones, s.ones, row(10), row(11));
  popcount_csa<Arch>(fours_a, s.twos, s.twos, twos_a, twos_b);
  popcount_csa<Arch>(twos_a, s.ones, s.ones, row(12), row(13));
  popcount_csa<Arch>(twos_b, s.ones, s.ones, row(14), row(15));
  popcount_csa<Arch>(fours_b, s.twos, s.twos, twos_a, twos_b);
  popcount_csa<Arch>(eights_b, s.fours, s.fours, fours_a, fours_b);
  popcount_csa<Arch>(sixteens, s.eights, s.eights, eights_a, eights_b);
  // Byte c of ctr[b] += bit b of byte c of sixteens: shifting 16-bit lanes moves both bytes at
  // once, and the 0x0101 mask drops what crossed from the high byte into the low one.
  const w low_bits(uint16_t{0x0101});
  w t = xsimd::bitwise_cast<w>(sixteens);
  for (int b = 0; b < 8; ++b) {
    s.ctr[b] += xsimd::bitwise_cast<v>(t & low_bits);
    if (b < 7) t = t >> 1;
  }
}

// counts[8 * (off + c) + b] += weight * lane[c] bit b, for positions in [first, nbits).
template <class Arch>
inline void popcount_add_plane(u8x<Arch> plane, uint64_t weight, std::size_t off, std::size_t first,
                               std::size_t nbits, uint64_t* counts) noexcept {
  constexpr std::size_t width = u8x<Arch>::size;
  alignas(Arch::alignment()) uint8_t bytes[width];
  plane.store_aligned(bytes);
  for (std::size_t c = 0; c < width; ++c) {
    const unsigned value = bytes[c];
    if (value == 0) continue;
    for (unsigned b = 0; b < 8; ++b) {
      const std::size_t pos = 8 * (off + c) + b;
      if (pos >= first && pos < nbits) counts[pos] += weight * ((value >> b) & 1u);
    }
  }
}

// counts += 16 * ctr, then ctr = 0.
template <class Arch>
inline void popcount_flush(popcount_state<Arch>& s, std::size_t off, std::size_t first,
                           std::size_t nbits, uint64_t* counts) noexcept {
  constexpr std::size_t width = u8x<Arch>::size;
  alignas(Arch::alignment()) uint8_t bytes[8][width];
  for (int b = 0; b < 8; ++b) {
    s.ctr[b].store_aligned(bytes[b]);
    s.ctr[b] = u8x<Arch>(uint8_t{0});
  }
  for (std::size_t c = 0; c < width; ++c) {
    for (unsigned b = 0; b < 8; ++b) {
      const std::size_t pos = 8 * (off + c) + b;
      if (pos >= first && pos < nbits) counts[pos] += uint64_t{16} * bytes[b][c];
    }
  }
}

// The final flush plus the four planes.
template <class Arch>
inline void popcount_finish(popcount_state<Arch>& s, std::size_t off, std::size_t first,
                            std::size_t nbits, uint64_t* counts) noexcept {
  popcount_flush<Arch>(s, off, first, nbits, counts);
  popcount_add_plane<Arch>(s.ones, 1, off, first, nbits, counts);
  popcount_add_plane<Arch>(s.twos, 2, off, first, nbits, counts);
  popcount_add_plane<Arch>(s.fours, 4, off, first, nbits, counts);
  popcount_add_plane<Arch>(s.eights, 8, off, first, nbits, counts);
}

struct column_popcount_kernel {
  template <class Arch>
  void operator()(Arch, const unsigned char* reports, std::size_t n_reports, std::size_t stride,
                  std::size_t nbits, uint64_t* counts) const noexcept;
};

template <class Arch>
void column_popcount_kernel::operator()(Arch, const unsigned char* reports, std::size_t n_reports,
                                        std::size_t stride, std::size_t nbits,
                                        uint64_t* counts) const noexcept {
  constexpr std::size_t width = u8x<Arch>::size;  // bytes per column register
  constexpr std::size_t max_groups = 255;         // flushes keep the byte counters below 256
  constexpr std::size_t super_regs = 16;          // column registers whose state is kept at once
  constexpr std::size_t block_bytes = 16384;      // report bytes per block (L1)
  if (n_reports == 0 || nbits == 0) return;
  const std::size_t nbytes = (nbits + 7) / 8;
  alignas(Arch::alignment()) unsigned char pad[16 * width];

  if (nbytes < width) {
    // Shorter than one register: every group goes through the zero-padded buffer.
    std::memset(pad, 0, sizeof pad);
    popcount_state<Arch> s;
    popcount_clear<Arch>(s);
    std::size_t pending = 0;
    for (std::size_t row = 0; row < n_reports; row += 16) {
      const std::size_t rows = n_reports - row < 16 ? n_reports - row : 16;
      for (std::size_t r = 0; r < rows; ++r) {
        std::memcpy(pad + r * width, reports + (row + r) * stride, nbytes);
      }
      for (std::size_t r = rows; r < 16; ++r) std::memset(pad + r * width, 0, nbytes);
      if (pending == max_groups) {
        popcount_flush<Arch>(s, 0, 0, nbits, counts);
        pending = 0;
      }
      popcount_add16<Arch>(s, pad, width);
      ++pending;
    }
    popcount_finish<Arch>(s, 0, 0, nbits, counts);
    return;
  }

  // Column register q reads bytes [off, off + W), off = min(q * W, nbytes - W), and owns the
  // positions from 8 * q * W on.
  const std::size_t nregs = (nbytes + width - 1) / width;
  for (std::size_t q0 = 0; q0 < nregs; q0 += super_regs) {
    const std::size_t nq = nregs - q0 < super_regs ? nregs - q0 : super_regs;
    popcount_state<Arch> state[super_regs];
    std::size_t offs[super_regs];
    for (std::size_t q = 0; q < nq; ++q) {
      popcount_clear<Arch>(state[q]);
      const std::size_t off = (q0 + q) * width;
      offs[q] = off + width <= nbytes ? off : nbytes - width;
    }
    std::size_t block_groups = block_bytes / (16 * nq * width);
    if (block_groups == 0) block_groups = 1;
    const std::size_t block_rows = 16 * block_groups;
    std::size_t pending = 0;
    for (std::size_t row = 0; row < n_reports; row += block_rows) {
      const std::size_t rows = n_reports - row < block_rows ? n_reports - row : block_rows;
      const std::size_t full = rows / 16, part = rows % 16;
      const std::size_t groups = full + (part != 0 ? 1 : 0);
      if (pending + groups > max_groups) {
        for (std::size_t q = 0; q < nq; ++q) {
          popcount_flush<Arch>(state[q], offs[q], 8 * (q0 + q) * width, nbits, counts);
        }
        pending = 0;
      }
      const unsigned char* block = reports + row * stride;
      for (std::size_t q = 0; q < nq; ++q) {
        popcount_state<Arch> s = state[q];
        const unsigned char* p = block + offs[q];
        for (std::size_t g = 0; g < full; ++g) popcount_add16<Arch>(s, p + 16 * g * stride, stride);
        if (part != 0) {
          const unsigned char* tail = p + 16 * full * stride;
          for (std::size_t r = 0; r < part; ++r) {
            std::memcpy(pad + r * width, tail + r * stride, width);
          }
          std::memset(pad + part * width, 0, (16 - part) * width);
          popcount_add16<Arch>(s, pad, width);
        }
        state[q] = s;
      }
      pending += groups;
    }
    for (std::size_t q = 0; q < nq; ++q) {
      popcount_finish<Arch>(state[q], offs[q], 8 * (q0 + q) * width, nbits, counts);
    }
  }
}


// -------------------------------------------------------------------------------------------------
// OLH support counting (kernel_table.h; PERFORMANCE.md 5), vectorized over candidates: each 64-bit
// lane holds one candidate v, and every report's key is broadcast.
//
// With v < 2^32, t = ((a v + b) mod 2^64) >> 32 is, modulo 2^32,
//   ((a_lo v + b) >> 32) + a_hi v
// (a_lo v + b is taken mod 2^64, and a_hi v only matters mod 2^32 because it enters shifted by 32).
// So t is two 32x32->64 multiplies, an add, a shift and an add, and only the low 32 bits of the
// lane are right. The bucket test needs no third multiply: (t g) >> 32 == y exactly when t lies in
// [lo_y, hi_y) with lo_y = ceil(y 2^32 / g), hi_y = ceil((y + 1) 2^32 / g), i.e. when
// (t - lo_y) mod 2^32 < w_y = hi_y - lo_y <= 2^31 (g >= 2). Adding (2^31 - lo_y) << 32 to b once per
// report makes the low half of the lane (t - lo_y + 2^31) mod 2^32, which as a signed 32-bit
// number is below w_y - 2^31 exactly in that case: one signed 32-bit compare. A bucket >= g gets
// w = 0, which nothing is below. The compare mask is subtracted from 32-bit counters, so the low
// half of each accumulator lane counts matches and the high half (garbage compares) is ignored.
//
// Reports are taken in blocks of olh_block: the per-report constants (b', a_hi, w - 2^31) are
// computed once per block into arrays on the stack, and the block (16 KiB with a) stays in L1 while
// every group of candidates passes over it; a group of R registers of candidates stays in registers
// with its counters for the whole block. g = 1 (every bucket range is all of [0, 2^32)) goes to
// the scalar reference.

// x * y on the low 32 bits of every 64-bit lane (the high halves are ignored), a 64-bit product.
template <class Arch>
inline u64x<Arch> olh_mul32(u64x<Arch> x, u64x<Arch> y, xsimd::generic) noexcept {
  const u64x<Arch> low(uint64_t{0xffffffffu});
  return (x & low) * (y & low);
}
#if XSIMD_WITH_SSE2
template <class Arch>
inline u64x<Arch> olh_mul32(u64x<Arch> x, u64x<Arch> y, xsimd::sse2) noexcept {
  return _mm_mul_epu32(x, y);
}
#endif
#if XSIMD_WITH_AVX2
template <class Arch>
inline u64x<Arch> olh_mul32(u64x<Arch> x, u64x<Arch> y, xsimd::avx2) noexcept {
  return _mm256_mul_epu32(x, y);
}
#endif
#if XSIMD_WITH_NEON
template <class Arch>
inline u64x<Arch> olh_mul32(u64x<Arch> x, u64x<Arch> y, xsimd::neon) noexcept {
  return vmull_u32(vmovn_u64(x), vmovn_u64(y));
}
#endif

// acc - (limit > x), on signed 32-bit lanes (the mask is all ones where true).
template <class Arch>
inline u64x<Arch> olh_count(u64x<Arch> acc, u64x<Arch> limit, u64x<Arch> x, xsimd::generic) noexcept {
  using i32 = xsimd::batch<int32_t, Arch>;
  const i32 below = xsimd::select(xsimd::bitwise_cast<i32>(x) < xsimd::bitwise_cast<i32>(limit),
                                  i32(1), i32(0));
  return xsimd::bitwise_cast<u64x<Arch>>(xsimd::bitwise_cast<i32>(acc) + below);
}
#if XSIMD_WITH_SSE2
template <class Arch>
inline u64x<Arch> olh_count(u64x<Arch> acc, u64x<Arch> limit, u64x<Arch> x, xsimd::sse2) noexcept {
  return _mm_sub_epi32(acc, _mm_cmpgt_epi32(limit, x));
}
#endif
#if XSIMD_WITH_AVX2
template <class Arch>
inline u64x<Arch> olh_count(u64x<Arch> acc, u64x<Arch> limit, u64x<Arch> x, xsimd::avx2) noexcept {
  return _mm256_sub_epi32(acc, _mm256_cmpgt_epi32(limit, x));
}
#endif
#if XSIMD_WITH_NEON
template <class Arch>
inline u64x<Arch> olh_count(u64x<Arch> acc, u64x<Arch> limit, u64x<Arch> x, xsimd::neon) noexcept {
  const uint32x4_t gt = vcgtq_s32(vreinterpretq_s32_u64(limit), vreinterpretq_s32_u64(x));
  return vreinterpretq_u64_u32(vsubq_u32(vreinterpretq_u32_u64(acc), gt));
}
#endif

struct olh_support_kernel {
  template <class Arch>
  void operator()(Arch, const uint64_t* a, const uint64_t* b, const uint32_t* bucket,
                  std::size_t n_reports, uint32_t g, const uint32_t* items, std::size_t n_items,
                  uint64_t* support) const noexcept;
};

template <class Arch>
void olh_support_kernel::operator()(Arch, const uint64_t* a, const uint64_t* b,
                                    const uint32_t* bucket, std::size_t n_reports, uint32_t g,
                                    const uint32_t* items, std::size_t n_items,
                                    uint64_t* support) const noexcept {
  using v = u64x<Arch>;
  using w32 = u32x<Arch>;
  constexpr std::size_t lanes = v::size;
  constexpr std::size_t regs = 4;              // candidate registers per group
  constexpr std::size_t group = regs * lanes;  // candidates per group
  constexpr std::size_t olh_block = 512;       // reports per block; the 32-bit counters hold it
  if (n_reports == 0 || n_items == 0) return;
  if (g < 2) {
    olh_support_scalar(a, b, bucket, n_reports, g, items, n_items, support);
    return;
  }
  alignas(Arch::alignment()) uint64_t values[group];
  alignas(Arch::alignment()) uint64_t counts[group];
  uint64_t b_shifted[olh_block];
  uint32_t a_high[olh_block], limit[olh_block];
  for (std::size_t u0 = 0; u0 < n_reports; u0 += olh_block) {
    const std::size_t nu = n_reports - u0 < olh_block ? n_reports - u0 : olh_block;
    for (std::size_t j = 0; j < nu; ++j) {
      const uint64_t y = bucket[u0 + j];
      uint64_t lo = 0, width = 0;
      if (y < g) {
        lo = ((y << 32) + g - 1) / g;
        width = (((y + 1) << 32) + g - 1) / g - lo;  // <= 2^31
      }
      b_shifted[j] = b[u0 + j] + ((uint64_t{0x80000000u} - lo) << 32);
      a_high[j] = static_cast<uint32_t>(a[u0 + j] >> 32);
      limit[j] = static_cast<uint32_t>(width) ^ 0x80000000u;  // w - 2^31 as int32
    }
    const uint64_t* a_block = a + u0;
    for (std::size_t i0 = 0; i0 < n_items; i0 += group) {
      const std::size_t ni = n_items - i0 < group ? n_items - i0 : group;
      for (std::size_t j = 0; j < group; ++j) values[j] = j < ni ? items[i0 + j] : 0;
      v x[regs], acc[regs];
      for (std::size_t k = 0; k < regs; ++k) {
        x[k] = v::load_aligned(values + k * lanes);
        acc[k] = v(uint64_t{0});
      }
      for (std::size_t j = 0; j < nu; ++j) {
        const v lo(a_block[j]), kb(b_shifted[j]);
        const v hi = xsimd::bitwise_cast<v>(w32(a_high[j]));
        const v lim = xsimd::bitwise_cast<v>(w32(limit[j]));
        for (std::size_t k = 0; k < regs; ++k) {
          const v t = ((olh_mul32<Arch>(x[k], lo, Arch{}) + kb) >> 32) + olh_mul32<Arch>(x[k], hi, Arch{});
          acc[k] = olh_count<Arch>(acc[k], lim, t, Arch{});
        }
      }
      for (std::size_t k = 0; k < regs; ++k) acc[k].store_aligned(counts + k * lanes);
      for (std::size_t j = 0; j < ni; ++j) support[i0 + j] += counts[j] & 0xffffffffu;
    }
  }
}

}  // namespace ldp::kernels::detail

// Explicit instantiations for one architecture, used by arch_<name>.cpp. Each defines an
// out-of-line entry point with external linkage, so another table may point at it (AVX-512 keeps
// the 256-bit Bernoulli chunk of AVX2) without instantiating the same template in two TUs.
#define LDP_KERNELS_DEFINE_CHACHA20(ARCH, ID)                                                         \
  template void ldp::kernels::detail::chacha20_blocks_kernel::operator()<ARCH>(                       \
      ARCH, const uint32_t*, const uint32_t*, uint32_t, unsigned char*, std::size_t) const noexcept; \
  void ldp::kernels::detail::chacha20_blocks_##ID(const uint32_t key[8], const uint32_t nonce[3],   \
                                                   uint32_t counter, unsigned char* out,            \
                                                   std::size_t nblocks) noexcept {                  \
    chacha20_blocks_kernel{}(ARCH{}, key, nonce, counter, out, nblocks);                             \
  }

#define LDP_KERNELS_DEFINE_BERNOULLI(ARCH, ID)                                                        \
  template std::size_t ldp::kernels::detail::bernoulli_chunks_kernel::operator()<ARCH>(              \
      ARCH, uint64_t*, std::size_t, uint64_t, unsigned, const unsigned char*, std::size_t,           \
      std::size_t*) const noexcept;                                                                  \
  std::size_t ldp::kernels::detail::bernoulli_chunks_##ID(                                           \
      uint64_t* out, std::size_t nchunks, uint64_t threshold, unsigned bits,                         \
      const unsigned char* rnd, std::size_t rnd_words, std::size_t* words_used) noexcept {           \
    return bernoulli_chunks_kernel{}(ARCH{}, out, nchunks, threshold, bits, rnd, rnd_words,           \
                                     words_used);                                                    \
  }

#define LDP_KERNELS_DEFINE_FWHT(ARCH, ID)                                                             \
  template void ldp::kernels::detail::hadamard_kernel<uint32_t, false, false>::operator()<ARCH>(     \
      ARCH, uint32_t*, const uint32_t*, unsigned) const noexcept;                                    \
  template void ldp::kernels::detail::hadamard_kernel<float, false, false>::operator()<ARCH>(        \
      ARCH, float*, const uint32_t*, unsigned) const noexcept;                                       \
  template void ldp::kernels::detail::hadamard_kernel<uint32_t, true, false>::operator()<ARCH>(      \
      ARCH, uint32_t*, const uint32_t*, unsigned) const noexcept;                                    \
  template void ldp::kernels::detail::hadamard_kernel<float, true, true>::operator()<ARCH>(          \
      ARCH, float*, const uint32_t*, unsigned) const noexcept;                                       \
  void ldp::kernels::detail::fwht_i32_##ID(int32_t* data, unsigned log2n) noexcept {                 \
    hadamard_kernel<uint32_t, false, false>{}(ARCH{}, reinterpret_cast<uint32_t*>(data), nullptr,    \
                                              log2n);                                                \
  }                                                                                                  \
  void ldp::kernels::detail::fwht_f32_##ID(float* data, unsigned log2n) noexcept {                   \
    hadamard_kernel<float, false, false>{}(ARCH{}, data, nullptr, log2n);                            \
  }                                                                                                  \
  void ldp::kernels::detail::rotate_i32_##ID(int32_t* data, const uint32_t* sign_words,              \
                                              unsigned log2n) noexcept {                             \
    hadamard_kernel<uint32_t, true, false>{}(ARCH{}, reinterpret_cast<uint32_t*>(data), sign_words, \
                                             log2n);                                                 \
  }                                                                                                  \
  void ldp::kernels::detail::rotate_f32_##ID(float* data, const uint32_t* sign_words,                \
                                              unsigned log2n) noexcept {                             \
    hadamard_kernel<float, true, true>{}(ARCH{}, data, sign_words, log2n);                           \
  }

#define LDP_KERNELS_DEFINE_COLUMN_POPCOUNT(ARCH, ID)                                                  \
  template void ldp::kernels::detail::column_popcount_kernel::operator()<ARCH>(                      \
      ARCH, const unsigned char*, std::size_t, std::size_t, std::size_t, uint64_t*) const noexcept;  \
  void ldp::kernels::detail::column_popcount_##ID(const unsigned char* reports,                      \
                                                   std::size_t n_reports, std::size_t stride,        \
                                                   std::size_t nbits, uint64_t* counts) noexcept {   \
    column_popcount_kernel{}(ARCH{}, reports, n_reports, stride, nbits, counts);                     \
  }

#define LDP_KERNELS_DEFINE_OLH_SUPPORT(ARCH, ID)                                                      \
  template void ldp::kernels::detail::olh_support_kernel::operator()<ARCH>(                          \
      ARCH, const uint64_t*, const uint64_t*, const uint32_t*, std::size_t, uint32_t,               \
      const uint32_t*, std::size_t, uint64_t*) const noexcept;                                       \
  void ldp::kernels::detail::olh_support_##ID(const uint64_t* a, const uint64_t* b,                 \
                                               const uint32_t* bucket, std::size_t n_reports,       \
                                               uint32_t g, const uint32_t* items,                   \
                                               std::size_t n_items, uint64_t* support) noexcept {   \
    olh_support_kernel{}(ARCH{}, a, b, bucket, n_reports, g, items, n_items, support);               \
  }

#endif
