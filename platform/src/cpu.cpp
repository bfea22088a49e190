#include "ldp/platform/cpu.h"

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#define LDP_CPU_X86 1
#if defined(_MSC_VER) && !defined(__clang__)
#include <immintrin.h>
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#elif defined(__aarch64__) && (defined(__linux__) || defined(__ANDROID__))
#define LDP_CPU_AARCH64_LINUX 1
#include <sys/auxv.h>
#elif defined(__arm__) && (defined(__linux__) || defined(__ANDROID__))
#define LDP_CPU_ARM_LINUX 1
#include <sys/auxv.h>
#endif

namespace ldp::platform {
namespace {

#if defined(LDP_CPU_X86)
struct regs {
  unsigned a, b, c, d;
};

regs cpuid(unsigned leaf, unsigned subleaf) {
  regs r{0, 0, 0, 0};
#if defined(_MSC_VER) && !defined(__clang__)
  int v[4];
  __cpuidex(v, static_cast<int>(leaf), static_cast<int>(subleaf));
  r = {unsigned(v[0]), unsigned(v[1]), unsigned(v[2]), unsigned(v[3])};
#else
  if (leaf > static_cast<unsigned>(__get_cpuid_max(leaf & 0x80000000u, nullptr))) return r;
  __cpuid_count(leaf, subleaf, r.a, r.b, r.c, r.d);
#endif
  return r;
}

unsigned long long xgetbv0() {
#if defined(_MSC_VER) && !defined(__clang__)
  return _xgetbv(0);
#else
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
#endif
}

constexpr bool bit(unsigned word, int n) { return ((word >> n) & 1u) != 0; }
#endif

}  // namespace

cpu_features detect_cpu() noexcept {
  cpu_features f;
#if defined(LDP_CPU_X86)
  const regs l1 = cpuid(1, 0);
  f.sse2 = bit(l1.d, 26);  // EDX bit 26 (xsimd 8.1 reads ECX bit 26, which is XSAVE)
  const bool osxsave = bit(l1.c, 27), avx = bit(l1.c, 28), fma = bit(l1.c, 12), sse42 = bit(l1.c, 20);
  if (!osxsave || !avx) return f;
  const unsigned long long xcr0 = xgetbv0();
  const bool ymm_saved = (xcr0 & 0x6u) == 0x6u;
  const bool zmm_saved = (xcr0 & 0xE6u) == 0xE6u;
  const regs l7 = cpuid(7, 0);
  const bool avx2 = bit(l7.b, 5), bmi2 = bit(l7.b, 8);
  f.avx2 = ymm_saved && fma && avx2 && bmi2 && sse42;  // the AVX2 table's CRC32C uses SSE4.2
  f.avx512 = f.avx2 && zmm_saved && bit(l7.b, 16) && bit(l7.b, 30) && bit(l7.b, 31);  // F, BW, VL
#elif defined(__aarch64__) || defined(_M_ARM64)
  f.neon64 = true;
#if defined(LDP_CPU_AARCH64_LINUX) && defined(HWCAP_AES)
  f.arm_aes = (getauxval(AT_HWCAP) & HWCAP_AES) != 0;
#endif
#elif defined(LDP_CPU_ARM_LINUX)
  f.neon = (getauxval(AT_HWCAP) & (1ul << 12)) != 0;  // HWCAP_NEON
#elif defined(__ARM_NEON)
  f.neon = true;
#endif
  return f;
}

}  // namespace ldp::platform
