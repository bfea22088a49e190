// Link-time replacement of ldp_abort (lib/base/include/ldp/base/abort.h): the strong definition
// below must win over the library's weak default.
#include <cstdio>
#include <cstdlib>

#include "ldp/base/abort.h"

extern "C" void ldp_abort(const char* file, int line, const char* message) {
  (void)file;
  (void)line;
  std::printf("custom hook: %s\n", message);
  std::fflush(stdout);
  std::_Exit(0);
}

int main(int argc, char**) {
  const int value = argc;  // 1 when run without arguments: not known at compile time
  LDP_ASSERT(value == 2);
  std::puts("LDP_ASSERT did not call the hook");
  return 1;
}
