// What the running CPU can execute, as plain data. platform/ fills it in (CPUID + XGETBV on x86,
// hwcaps on aarch64); kernels/ chooses an implementation from it. Keeping the struct here lets the
// kernels stay independent of the operating system.
#ifndef LDP_BASE_CPU_FEATURES_H
#define LDP_BASE_CPU_FEATURES_H

namespace ldp {

struct cpu_features {
  bool sse2 = false;
  bool avx2 = false;     // AVX2 + FMA + BMI2 + SSE4.2, and the OS saves YMM state
  bool avx512 = false;   // AVX-512 F/BW/VL, and the OS saves ZMM state
  bool neon = false;     // 32-bit ARM Advanced SIMD
  bool neon64 = false;   // AArch64 Advanced SIMD (always present on AArch64)
  bool arm_aes = false;  // ARMv8 crypto extensions (reported; no kernel uses them yet)
};

}  // namespace ldp

#endif
