#include "ldp/base/abort.h"

#include <cstdlib>
#if defined(__STDC_HOSTED__) && __STDC_HOSTED__ && !defined(LDP_BARE_METAL)
#include <cstdio>
#define LDP_ABORT_CAN_PRINT 1
#endif

#if defined(__GNUC__) || defined(__clang__)
#define LDP_WEAK __attribute__((weak))
#else
#define LDP_WEAK
#endif

extern "C" LDP_WEAK void ldp_abort(const char* file, int line, const char* message) {
#ifdef LDP_ABORT_CAN_PRINT
  std::fprintf(stderr, "ldpkit: %s:%d: %s\n", file, line, message);
  std::abort();
#else
  // Bare metal: newlib's abort() goes through raise(), whose signal table is allocated on the heap,
  // so the default hook traps instead. Firmware normally installs its own (log, then reset).
  (void)file;
  (void)line;
  (void)message;
  for (;;) __builtin_trap();
#endif
}
