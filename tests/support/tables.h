// The kernel tables this CPU can run: every test of a kernel repeats itself over them, so each SIMD
// path is compared with the scalar reference on every architecture the suite runs on (natively on
// x86, under qemu-user on ARM and RISC-V).
#ifndef LDP_TESTS_SUPPORT_TABLES_H
#define LDP_TESTS_SUPPORT_TABLES_H

#include <vector>

#include "ldp/kernels.h"
#include "ldp/platform.h"
#include "ldp/random/drbg.h"

namespace ldp::test {

inline std::vector<const kernels::table*> runnable_tables() {
  const cpu_features cpu = platform::detect_cpu();
  std::vector<const kernels::table*> out;
  for (const kernels::table* t : kernels::compiled()) {
    if (kernels::supported(*t, cpu)) out.push_back(t);
  }
  return out;
}

// A seed derived from a test's name, so every randomized test is reproducible and independent of
// the others (docs/mechanisms.md D.3 rule 1).
inline void seed_from_name(const char* name, unsigned char seed[32]) {
  uint64_t h = 0xcbf29ce484222325u;  // FNV-1a, spread over four words
  for (int w = 0; w < 4; ++w) {
    for (const char* p = name; *p != 0; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 0x100000001b3u;
    h = (h ^ static_cast<uint64_t>(w)) * 0x100000001b3u;
    for (int i = 0; i < 8; ++i) seed[8 * w + i] = static_cast<unsigned char>(h >> (8 * i));
  }
}

// A generator keyed from a test name, on the given table (the dispatcher's choice by default).
inline random::drbg seeded_drbg(const char* name, const kernels::table& t) {
  unsigned char seed[32];
  seed_from_name(name, seed);
  return random::drbg(seed, t);
}

inline random::drbg seeded_drbg(const char* name) { return seeded_drbg(name, kernels::select(platform::detect_cpu())); }

}  // namespace ldp::test

#endif
