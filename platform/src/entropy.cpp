#include "ldp/platform/entropy.h"

#if defined(LDP_BARE_METAL)
extern "C" int ldp_platform_entropy(unsigned char* out, std::size_t size);
#elif defined(_WIN32)
#include <bcrypt.h>
#include <windows.h>
#pragma comment(lib, "bcrypt.lib")
#elif defined(__APPLE__)
#include <stdlib.h>
#elif defined(__linux__) || defined(__ANDROID__)
#include <errno.h>
#include <sys/random.h>
#else
#error "ldpkit: no entropy source for this platform; build with LDP_BARE_METAL and a hook"
#endif

namespace ldp::platform {

status fill_entropy(void* context, unsigned char* out, std::size_t size) noexcept {
  (void)context;
#if defined(LDP_BARE_METAL)
  return ldp_platform_entropy(out, size) == 0 ? status::ok : status::entropy_failure;
#elif defined(_WIN32)
  while (size != 0) {
    const ULONG n = size > 0x10000000u ? 0x10000000u : static_cast<ULONG>(size);
    if (BCryptGenRandom(nullptr, out, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) {
      return status::entropy_failure;
    }
    out += n;
    size -= n;
  }
  return status::ok;
#elif defined(__APPLE__)
  arc4random_buf(out, size);
  return status::ok;
#else
  // getrandom may return fewer bytes than asked (above 256 bytes) or be interrupted by a signal.
  while (size != 0) {
    const ssize_t n = getrandom(out, size, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return status::entropy_failure;
    }
    out += n;
    size -= static_cast<std::size_t>(n);
  }
  return status::ok;
#endif
}

}  // namespace ldp::platform
