// OLH report keys in bulk (kernel_table.h sip_pairs): ldp::sip_pairs instantiated for one
// architecture, so the unit's flags apply to it. SipHash is adds, xors and rotations of 64-bit
// words, independent across seeds, so GCC and Clang vectorize the loop across seeds: with AVX-512
// (vprolq) 4.2 ns a seed against 23.8 ns scalar on Zen 5, with AVX2 (two shifts and an or per
// rotation) 11.6 ns. With SSE2 it came out slower than scalar (27 ns), so that table and the
// NEON ones (not measured) use the scalar entry.
#ifndef LDP_KERNELS_SRC_SIMD_SIP_PAIRS_H
#define LDP_KERNELS_SRC_SIMD_SIP_PAIRS_H

#include "ldp/base/siphash.h"

#define LDP_KERNELS_DEFINE_SIP_PAIRS(ARCH, ID)                                                             \
  void ldp::kernels::detail::sip_pairs_##ID(const uint64_t start[4], const uint64_t* seeds, std::size_t n, \
                                            uint64_t* a, uint64_t* b) noexcept {                           \
    ldp::sip_pairs<ARCH>(start, seeds, n, a, b);                                                           \
  }

#endif
