// Kernel table for xsimd::avx512bw; compiled with that architecture's flags only.
// The Bernoulli chunk is 256 lanes by definition, so this table reuses the AVX2 entry point (from
// arch_avx2.cpp) rather than instantiating the AVX2 kernel a second time under AVX-512 flags, and so
// does OLH support counting (its 32x32->64 multiplies gain little from 512-bit registers). Its
// CRC32C is crc32c_vpclmul.cpp's.
#include "arch_tables.h"
#include "simd/chacha20.h"
#include "simd/column_popcount.h"
#include "simd/fwht.h"
#include "simd/sip_pairs.h"

LDP_KERNELS_DEFINE_CHACHA20(xsimd::avx512bw, avx512)
LDP_KERNELS_DEFINE_FWHT(xsimd::avx512bw, avx512)
LDP_KERNELS_DEFINE_SIP_PAIRS(xsimd::avx512bw, avx512)
LDP_KERNELS_DEFINE_COLUMN_POPCOUNT(xsimd::avx512bw, avx512)

namespace ldp::kernels::detail {
const table avx512_table{arch::avx512,          "avx512",          chacha20_blocks_avx512, 3,
                         bernoulli_chunks_avx2, fwht_i32_avx512,   column_popcount_avx512, olh_support_avx2,
                         fwht_f32_avx512,       rotate_i32_avx512, rotate_f32_avx512,      crc32c_vpclmul,
                         sip_pairs_avx512};
}
