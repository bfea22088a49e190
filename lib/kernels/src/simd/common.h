// xsimd implementations of the kernel table, templated on the xsimd architecture and explicitly
// instantiated once per architecture in arch_<name>.cpp, each compiled with that architecture's
// flags (the pattern of xsimd's test/doc/sum.hpp). Include only from those translation units.
//
// Everything in these headers is a template on Arch, or calls the out-of-line scalar reference: a
// non-template inline helper would be emitted in every arch TU and the linker could keep an AVX2
// copy for all callers (docs/performance.md 9, trap 6).
//
// Each kernel header ends with its LDP_KERNELS_DEFINE_<KERNEL>(ARCH, ID) macro: the explicit
// instantiations for one architecture, used by arch_<name>.cpp. Each defines an out-of-line entry
// point with external linkage, so another table may point at it (AVX-512 keeps the 256-bit
// Bernoulli chunk of AVX2) without instantiating the same template in two TUs, and a unit includes
// only the kernels it instantiates. This header holds what they all use.
#ifndef LDP_KERNELS_SRC_SIMD_COMMON_H
#define LDP_KERNELS_SRC_SIMD_COMMON_H

#include <xsimd/xsimd.hpp>

#include <cstring>
#include <type_traits>
#include <utility>

#include "../scalar.h"

#if defined(__AVX512F__) || defined(__AVX2__) || defined(__SSSE3__)
#include <immintrin.h>
#endif

namespace ldp::kernels::detail {

template <class Arch>
using u32x = xsimd::batch<uint32_t, Arch>;
template <class Arch>
using u64x = xsimd::batch<uint64_t, Arch>;

}  // namespace ldp::kernels::detail

#endif
