// OLH support counting (kernel_table.h; docs/performance.md 5), vectorized over candidates: each 64-bit
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
#ifndef LDP_KERNELS_SRC_SIMD_OLH_SUPPORT_H
#define LDP_KERNELS_SRC_SIMD_OLH_SUPPORT_H

#include "common.h"

namespace ldp::kernels::detail {

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
  const i32 below = xsimd::select(xsimd::bitwise_cast<i32>(x) < xsimd::bitwise_cast<i32>(limit), i32(1), i32(0));
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
  void operator()(Arch, const uint64_t* a, const uint64_t* b, const uint32_t* bucket, std::size_t n_reports, uint32_t g,
                  const uint32_t* items, std::size_t n_items, uint64_t* support) const noexcept;
};

template <class Arch>
void olh_support_kernel::operator()(Arch, const uint64_t* a, const uint64_t* b, const uint32_t* bucket,
                                    std::size_t n_reports, uint32_t g, const uint32_t* items, std::size_t n_items,
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

#define LDP_KERNELS_DEFINE_OLH_SUPPORT(ARCH, ID)                                                                    \
  template void ldp::kernels::detail::olh_support_kernel::operator()<ARCH>(                                         \
      ARCH, const uint64_t*, const uint64_t*, const uint32_t*, std::size_t, uint32_t, const uint32_t*, std::size_t, \
      uint64_t*) const noexcept;                                                                                    \
  void ldp::kernels::detail::olh_support_##ID(const uint64_t* a, const uint64_t* b, const uint32_t* bucket,         \
                                              std::size_t n_reports, uint32_t g, const uint32_t* items,             \
                                              std::size_t n_items, uint64_t* support) noexcept {                    \
    olh_support_kernel{}(ARCH{}, a, b, bucket, n_reports, g, items, n_items, support);                              \
  }

#endif
