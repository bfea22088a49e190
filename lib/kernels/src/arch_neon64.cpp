// Kernel table for xsimd::neon64; compiled with that architecture's flags only (see CMakeLists.txt).
#include "arch_tables.h"
#include "simd/bernoulli.h"
#include "simd/chacha20.h"
#include "simd/column_popcount.h"
#include "simd/fwht.h"
#include "simd/olh_support.h"

LDP_KERNELS_DEFINE_CHACHA20(xsimd::neon64, neon64)
LDP_KERNELS_DEFINE_BERNOULLI(xsimd::neon64, neon64)
LDP_KERNELS_DEFINE_FWHT(xsimd::neon64, neon64)
LDP_KERNELS_DEFINE_COLUMN_POPCOUNT(xsimd::neon64, neon64)
LDP_KERNELS_DEFINE_OLH_SUPPORT(xsimd::neon64, neon64)

namespace ldp::kernels::detail {
const table neon64_table{arch::neon64,
                         "neon64",
                         chacha20_blocks_neon64,
                         1,
                         bernoulli_chunks_neon64,
                         fwht_i32_neon64,
                         column_popcount_neon64,
                         olh_support_neon64,
                         fwht_f32_neon64,
                         rotate_i32_neon64,
                         rotate_f32_neon64,
                         nullptr,
                         sip_pairs_scalar};
}
