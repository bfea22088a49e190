// The operating system's entropy source, in the shape of random::entropy_fn so that it can seed a
// drbg directly: getrandom() on Linux and Android, arc4random_buf() on Apple platforms,
// BCryptGenRandom() on Windows. Bare-metal builds (LDP_BARE_METAL) call the firmware's hook
//   extern "C" int ldp_platform_entropy(unsigned char* out, size_t size);   // 0 on success
// which the firmware must define (a missing hook is a link error, never a silent weak default).
#ifndef LDP_PLATFORM_ENTROPY_H
#define LDP_PLATFORM_ENTROPY_H

#include <cstddef>

#include "ldp/base/status.h"

namespace ldp::platform {

// Fills `size` bytes; entropy_failure if the source fails. `context` is unused (pass nullptr).
[[nodiscard]] status fill_entropy(void* context, unsigned char* out, std::size_t size) noexcept;

}  // namespace ldp::platform

#endif
