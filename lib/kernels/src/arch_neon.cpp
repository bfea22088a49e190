// Kernel table for xsimd::neon; compiled with that architecture's flags only (see CMakeLists.txt).
#include "arch_tables.h"
#include "simd/bernoulli.h"
#include "simd/chacha20.h"
#include "simd/column_popcount.h"
#include "simd/fwht.h"
#include "simd/olh_support.h"

LDP_KERNELS_DEFINE_CHACHA20(xsimd::neon, neon)
LDP_KERNELS_DEFINE_BERNOULLI(xsimd::neon, neon)
LDP_KERNELS_DEFINE_FWHT(xsimd::neon, neon)
LDP_KERNELS_DEFINE_COLUMN_POPCOUNT(xsimd::neon, neon)
LDP_KERNELS_DEFINE_OLH_SUPPORT(xsimd::neon, neon)

namespace ldp::kernels::detail {
const table neon_table{arch::neon,
                       "neon",
                       chacha20_blocks_neon,
                       1,
                       bernoulli_chunks_neon,
                       fwht_i32_neon,
                       column_popcount_neon,
                       olh_support_neon,
                       fwht_f32_neon,
                       rotate_i32_neon,
                       rotate_f32_neon,
                       nullptr,
                       sip_pairs_scalar};
}
