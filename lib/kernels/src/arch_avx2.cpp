// Kernel table for xsimd::avx2; compiled with that architecture's flags only (see CMakeLists.txt).
#include "arch_tables.h"
#include "simd/bernoulli.h"
#include "simd/chacha20.h"
#include "simd/column_popcount.h"
#include "simd/fwht.h"
#include "simd/olh_support.h"
#include "simd/sip_pairs.h"

LDP_KERNELS_DEFINE_CHACHA20(xsimd::avx2, avx2)
LDP_KERNELS_DEFINE_BERNOULLI(xsimd::avx2, avx2)
LDP_KERNELS_DEFINE_FWHT(xsimd::avx2, avx2)
LDP_KERNELS_DEFINE_SIP_PAIRS(xsimd::avx2, avx2)
LDP_KERNELS_DEFINE_COLUMN_POPCOUNT(xsimd::avx2, avx2)
LDP_KERNELS_DEFINE_OLH_SUPPORT(xsimd::avx2, avx2)

namespace ldp::kernels::detail {
const table avx2_table{arch::avx2,
                       "avx2",
                       chacha20_blocks_avx2,
                       2,
                       bernoulli_chunks_avx2,
                       fwht_i32_avx2,
                       column_popcount_avx2,
                       olh_support_avx2,
                       fwht_f32_avx2,
                       rotate_i32_avx2,
                       rotate_f32_avx2,
                       crc32c_sse42,
                       sip_pairs_avx2};
}
