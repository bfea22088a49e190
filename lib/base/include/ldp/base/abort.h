// Broken invariants (never bad input) end in ldp_abort(), a link-time replaceable hook in the spirit
// of Highway's SetAbortFunc but without a mutable global: firmware defines its own
//   extern "C" void ldp_abort(const char* file, int line, const char* message)
// and the linker prefers it over the weak default, which prints (on hosted targets) and aborts.
// The hook must not return.
#ifndef LDP_BASE_ABORT_H
#define LDP_BASE_ABORT_H

#include "ldp/base/config.h"

extern "C" [[noreturn]] void ldp_abort(const char* file, int line, const char* message);

#if LDP_CONFIG_ASSERTS
#define LDP_ASSERT(cond) ((cond) ? static_cast<void>(0) : ldp_abort(__FILE__, __LINE__, "assertion failed: " #cond))
#else
#define LDP_ASSERT(cond) static_cast<void>(0)
#endif

#endif
