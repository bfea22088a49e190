// The 128-bit integers of ldp/base/int128.h, under the server's exact sums and samplers. They run on
// 32-bit targets without __int128, so they are checked by their defining inequalities, and against
// __int128 where the host has it.
#include <doctest/doctest.h>

#include <cmath>

#include "ldp/base/int128.h"
#include "ldp/random.h"
#include "tables.h"

TEST_CASE("div_ceil(a, d) is the least q with q d >= a") {
  auto rng = ldp::test::seeded_drbg("div_ceil");
  const ldp::u128 edges[] = {{0, 0},
                             {0, 1},
                             {0, 64},
                             {0, 65},
                             {0, 66},
                             {1, 0},
                             {0, ~uint64_t{0}},
                             {uint64_t{1} << 62, 0},
                             {~uint64_t{0} >> 4, ~uint64_t{0}}};
  for (int i = 0; i < 20000; ++i) {
    const ldp::u128 a = i < 9 ? edges[i] : ldp::u128{rng.next_u64() >> (i % 64), rng.next_u64()};
    for (uint32_t d : {1u, 3u, 65u, 0xffffffffu, static_cast<uint32_t>(rng.next_u32() | 1u)}) {
      const ldp::u128 q = ldp::div_ceil(a, d);
      ldp::u128 qd, below;
      REQUIRE(ldp::checked_mul(q, d, &qd));
      CHECK_FALSE(qd < a);  // q d >= a
      if (q != ldp::u128{}) {
        REQUIRE(ldp::checked_mul(q - ldp::u128{0, 1}, d, &below));
        CHECK(below < a);  // (q - 1) d < a
      }
    }
  }
  const ldp::u128 sum = ldp::u128{1, ~uint64_t{0}} + ldp::u128{2, 1};
  CHECK((sum.hi == 4 && sum.lo == 0));
  ldp::u128 product;
  CHECK_FALSE(ldp::checked_mul(ldp::u128{uint64_t{1} << 63, 0}, 2, &product));
  CHECK_FALSE(ldp::checked_mul(ldp::u128{1, ~uint64_t{0}}, ~uint64_t{0}, &product));
}

TEST_CASE("i128: two's complement sums of int64 values, magnitude and double") {
  auto rng = ldp::test::seeded_drbg("i128");
  ldp::i128 sum;
  double reference = 0;
#if defined(__SIZEOF_INT128__)
  __extension__ typedef __int128 native_i128;  // __extension__: not ISO C++, the host's reference
  __extension__ typedef unsigned __int128 native_u128;
  native_i128 native = 0;
#endif
  for (int i = 0; i < 20000; ++i) {
    const auto v = static_cast<int64_t>(rng.next_u64());
    sum = i % 3 == 0 ? sum - ldp::to_i128(v) : sum + ldp::to_i128(v);
    reference += i % 3 == 0 ? -static_cast<double>(v) : static_cast<double>(v);
#if defined(__SIZEOF_INT128__)
    native += i % 3 == 0 ? -static_cast<native_i128>(v) : static_cast<native_i128>(v);
    REQUIRE(sum.lo == static_cast<uint64_t>(native));
    REQUIRE(sum.hi == static_cast<uint64_t>(static_cast<native_u128>(native) >> 64));
    const native_u128 m = native < 0 ? -static_cast<native_u128>(native) : static_cast<native_u128>(native);
    REQUIRE(ldp::magnitude(sum).lo == static_cast<uint64_t>(m));
    REQUIRE(ldp::magnitude(sum).hi == static_cast<uint64_t>(m >> 64));
    REQUIRE(ldp::is_negative(sum) == (native < 0));
#endif
  }
  CHECK(ldp::to_double(sum) == doctest::Approx(reference).epsilon(1e-9));
  CHECK(ldp::to_double(ldp::to_i128(-5)) == -5.0);
  CHECK(ldp::to_double(ldp::i128{1, 0}) == std::ldexp(1.0, 64));
  CHECK(ldp::is_negative(ldp::to_i128(-1)));
  CHECK(ldp::magnitude(ldp::to_i128(INT64_MIN)).lo == uint64_t{1} << 63);
}
