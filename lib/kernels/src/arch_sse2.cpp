// Kernel table for xsimd::sse2; compiled with that architecture's flags only (see CMakeLists.txt).
#include "arch_tables.h"
#include "simd/bernoulli.h"
#include "simd/chacha20.h"
#include "simd/column_popcount.h"
#include "simd/fwht.h"
#include "simd/olh_support.h"

LDP_KERNELS_DEFINE_CHACHA20(xsimd::sse2, sse2)
LDP_KERNELS_DEFINE_BERNOULLI(xsimd::sse2, sse2)
LDP_KERNELS_DEFINE_FWHT(xsimd::sse2, sse2)
LDP_KERNELS_DEFINE_COLUMN_POPCOUNT(xsimd::sse2, sse2)
LDP_KERNELS_DEFINE_OLH_SUPPORT(xsimd::sse2, sse2)

namespace ldp::kernels::detail {
const table sse2_table{arch::sse2,
                       "sse2",
                       chacha20_blocks_sse2,
                       2,
                       bernoulli_chunks_sse2,
                       fwht_i32_sse2,
                       column_popcount_sse2,
                       olh_support_sse2,
                       fwht_f32_sse2,
                       rotate_i32_sse2,
                       rotate_f32_sse2,
                       nullptr,
                       sip_pairs_scalar};
}
