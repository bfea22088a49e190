// Fast Walsh-Hadamard transform and randomized Hadamard rotation, in uint32_t (int32 modulo 2^32)
// and in float (kernel_table.h; docs/mechanisms.md B.4; docs/performance.md 1-2).
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
#ifndef LDP_KERNELS_SRC_SIMD_FWHT_H
#define LDP_KERNELS_SRC_SIMD_FWHT_H

#include "common.h"

namespace ldp::kernels::detail {

template <class T, class Arch>
using fwht_vec = xsimd::batch<T, Arch>;

// The lane swap of an in-register level: lanes j and j ^ H exchanged.
template <unsigned H, class Arch>
struct fwht_swap_index {
  static constexpr uint32_t get(std::size_t i, std::size_t) noexcept { return static_cast<uint32_t>(i ^ H); }
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
        x, _mm256_setr_epi32(fwht_lane_sign<H>(0), fwht_lane_sign<H>(1), fwht_lane_sign<H>(2), fwht_lane_sign<H>(3),
                             fwht_lane_sign<H>(4), fwht_lane_sign<H>(5), fwht_lane_sign<H>(6), fwht_lane_sign<H>(7)));
  }
}
#endif

// swapped + x with the lanes j that have bit H set negated. For float, where there is an FMA it
// is fma(x, c, swapped) with c = +-1: the product is exact, so the one rounding is the add's, and
// the xor of the negation disappears.
template <unsigned H, class T, class Arch>
inline fwht_vec<T, Arch> fwht_add_signed(fwht_vec<T, Arch> swapped, fwht_vec<T, Arch> x, xsimd::generic) noexcept {
  return swapped + fwht_negate_upper<H, T, Arch>(x, Arch{});
}
#if XSIMD_WITH_AVX2 && defined(__FMA__)
template <unsigned H, class T, class Arch>
inline fwht_vec<T, Arch> fwht_add_signed(fwht_vec<T, Arch> swapped, fwht_vec<T, Arch> x, xsimd::avx2) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    const __m256 c = _mm256_setr_ps(static_cast<float>(fwht_lane_sign<H>(0)), static_cast<float>(fwht_lane_sign<H>(1)),
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
  const v swapped = xsimd::bitwise_cast<v>(fwht_swap<H, Arch>(xsimd::bitwise_cast<u32x<Arch>>(x), Arch{}));
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
inline fwht_vec<T, Arch> fwht_sign_row(fwht_vec<T, Arch> x, std::size_t row, xsimd::generic) noexcept {
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
  (fwht_butterfly<T, Arch, AddUnits>(r[(M / H) * 2 * H + M % H], r[(M / H) * 2 * H + M % H + H]), ...);
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
inline void fwht_load(fwht_vec<T, Arch>* r, const T* p, std::size_t stride, std::index_sequence<K...>) noexcept {
  ((r[K] = fwht_vec<T, Arch>::load_unaligned(p + K * stride)), ...);
}

template <class T, class Arch, std::size_t... K>
inline void fwht_store(const fwht_vec<T, Arch>* r, T* p, std::size_t stride, std::index_sequence<K...>) noexcept {
  (r[K].store_unaligned(p + K * stride), ...);
}

// Register K of a group holds elements K * L .. K * L + L - 1 of the group, which starts on a
// multiple of 32 (8 or 16 registers of 4 or 8 lanes); rows[K] is its sign row.
template <class Arch, std::size_t... K>
inline void fwht_sign_indices(std::size_t* rows, const uint32_t* words, std::index_sequence<K...>) noexcept {
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(words);
  ((rows[K] = fwht_sign_index<K, Arch>(bytes)), ...);
}

template <class T, class Arch, std::size_t... K>
inline void fwht_signs_all(fwht_vec<T, Arch>* r, const std::size_t* rows, std::index_sequence<K...>) noexcept {
  ((r[K] = fwht_sign_row<T, Arch>(r[K], rows[K], Arch{})), ...);
}

template <class T, class Arch, std::size_t... K>
inline void fwht_in_register_all(fwht_vec<T, Arch>* r, std::index_sequence<K...>) noexcept {
  ((r[K] = fwht_in_register<T, Arch>(r[K])), ...);
}

template <class T, class Arch, std::size_t... K>
inline void fwht_scale_all(fwht_vec<T, Arch>* r, fwht_vec<T, Arch> scale, std::index_sequence<K...>) noexcept {
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
// unit is also one of the avx2 unit's (docs/performance.md 9, trap 6).
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
inline void fwht_pass_levels(T* x, std::size_t n, std::size_t stride, unsigned levels, T scale) noexcept {
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
void hadamard_kernel<T, Signs, Scaled>::operator()(Arch, T* x, const uint32_t* signs, unsigned log2n) const noexcept {
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

}  // namespace ldp::kernels::detail

#define LDP_KERNELS_DEFINE_FWHT(ARCH, ID)                                                                          \
  template void ldp::kernels::detail::hadamard_kernel<uint32_t, false, false>::operator()<ARCH>(                   \
      ARCH, uint32_t*, const uint32_t*, unsigned) const noexcept;                                                  \
  template void ldp::kernels::detail::hadamard_kernel<float, false, false>::operator()<ARCH>(                      \
      ARCH, float*, const uint32_t*, unsigned) const noexcept;                                                     \
  template void ldp::kernels::detail::hadamard_kernel<uint32_t, true, false>::operator()<ARCH>(                    \
      ARCH, uint32_t*, const uint32_t*, unsigned) const noexcept;                                                  \
  template void ldp::kernels::detail::hadamard_kernel<float, true, true>::operator()<ARCH>(                        \
      ARCH, float*, const uint32_t*, unsigned) const noexcept;                                                     \
  void ldp::kernels::detail::fwht_i32_##ID(int32_t* data, unsigned log2n) noexcept {                               \
    hadamard_kernel<uint32_t, false, false>{}(ARCH{}, reinterpret_cast<uint32_t*>(data), nullptr, log2n);          \
  }                                                                                                                \
  void ldp::kernels::detail::fwht_f32_##ID(float* data, unsigned log2n) noexcept {                                 \
    hadamard_kernel<float, false, false>{}(ARCH{}, data, nullptr, log2n);                                          \
  }                                                                                                                \
  void ldp::kernels::detail::rotate_i32_##ID(int32_t* data, const uint32_t* sign_words, unsigned log2n) noexcept { \
    hadamard_kernel<uint32_t, true, false>{}(ARCH{}, reinterpret_cast<uint32_t*>(data), sign_words, log2n);        \
  }                                                                                                                \
  void ldp::kernels::detail::rotate_f32_##ID(float* data, const uint32_t* sign_words, unsigned log2n) noexcept {   \
    hadamard_kernel<float, true, true>{}(ARCH{}, data, sign_words, log2n);                                         \
  }

#endif
