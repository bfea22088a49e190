// Table selection (docs/architecture.md, "SIMD kernels"): run time from cpu_features on servers, compile
// time (native) on devices. Compiled without architecture flags.
#include "arch_tables.h"
#include "scalar.h"

namespace ldp::kernels {
namespace {

const table* const compiled_tables[] = {
    &scalar(),
#if defined(LDP_KERNELS_HAVE_SSE2)
    &detail::sse2_table,
#endif
#if defined(LDP_KERNELS_HAVE_AVX2)
    &detail::avx2_table,
#endif
#if defined(LDP_KERNELS_HAVE_AVX512)
    &detail::avx512_table,
#endif
#if defined(LDP_KERNELS_HAVE_NEON)
    &detail::neon_table,
#endif
#if defined(LDP_KERNELS_HAVE_NEON64)
    &detail::neon64_table,
#endif
};

}  // namespace

span<const table* const> compiled() noexcept {
  return {compiled_tables, sizeof(compiled_tables) / sizeof(compiled_tables[0])};
}

bool supported(const table& t, const cpu_features& cpu) noexcept {
  switch (t.id) {
    case arch::scalar: return true;
    case arch::sse2: return cpu.sse2;
    case arch::avx2: return cpu.avx2;
    case arch::avx512: return cpu.avx512 && cpu.avx2;  // also runs the AVX2 Bernoulli entry point
    case arch::neon: return cpu.neon;
    case arch::neon64: return cpu.neon64;
  }
  return false;
}

const table& select(const cpu_features& cpu) noexcept {
  const table* best = &scalar();
  for (const table* t : compiled()) {
    if (supported(*t, cpu)) best = t;
  }
  return *best;
}

chacha20_blocks_fn chacha20_blocks_for(const table& t, std::size_t nblocks) noexcept {
  return nblocks < t.chacha20_min_blocks ? scalar().chacha20_blocks : t.chacha20_blocks;
}

const table& native() noexcept {
#if defined(LDP_KERNELS_HAVE_NEON64)
  return detail::neon64_table;
#elif defined(LDP_KERNELS_HAVE_NEON)
  return detail::neon_table;
#elif defined(LDP_KERNELS_HAVE_SSE2)
  return detail::sse2_table;
#else
  return scalar();
#endif
}

}  // namespace ldp::kernels
