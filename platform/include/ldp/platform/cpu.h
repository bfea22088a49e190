// CPU feature detection for kernel dispatch (docs/performance.md 9, trap 5). On x86 it reads CPUID and
// checks with XGETBV that the OS saves YMM/ZMM state, the check xsimd 8.1 lacks; AArch64 always has
// NEON and reports the AES extension from hwcaps; 32-bit ARM reports NEON from hwcaps on Linux.
#ifndef LDP_PLATFORM_CPU_H
#define LDP_PLATFORM_CPU_H

#include "ldp/base/cpu_features.h"

namespace ldp::platform {

[[nodiscard]] cpu_features detect_cpu() noexcept;

}  // namespace ldp::platform

#endif
