// platform/: the OS entropy source and CPU feature detection.
#include <doctest/doctest.h>

#include <cstring>

#include "ldp/kernels.h"
#include "ldp/platform.h"
#include "ldp/random/drbg.h"

TEST_CASE("the entropy source fills buffers and seeds a drbg") {
  unsigned char a[300] = {}, b[300] = {};
  REQUIRE(ldp::platform::fill_entropy(nullptr, a, sizeof a) == ldp::status::ok);
  REQUIRE(ldp::platform::fill_entropy(nullptr, b, sizeof b) == ldp::status::ok);
  CHECK(std::memcmp(a, b, sizeof a) != 0);  // equal with probability 2^-2400
  unsigned char seed[32] = {};
  ldp::random::drbg rng(seed);
  REQUIRE(ldp::random::drbg::from_entropy(ldp::platform::fill_entropy, nullptr, &rng) == ldp::status::ok);
  ldp::random::drbg zero(seed);
  CHECK(rng.next_u64() != zero.next_u64());
}

TEST_CASE("cpu features are consistent with the build") {
  const ldp::cpu_features f = ldp::platform::detect_cpu();
  CHECK((!f.avx512 || f.avx2));
#if defined(__x86_64__)
  CHECK(f.sse2);  // baseline of x86-64
#endif
#if defined(__aarch64__)
  CHECK(f.neon64);
#endif
  // The selected table is supported, and native() needs no detection to be safe.
  CHECK(ldp::kernels::supported(ldp::kernels::select(f), f));
  CHECK(ldp::kernels::supported(ldp::kernels::native(), f));
  CHECK(ldp::kernels::compiled()[0] == &ldp::kernels::scalar());
}
