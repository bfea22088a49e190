// The 128-bit arithmetic under the server's exact samplers (ldp/server/central/exact_sampling.h): it runs on
// 32-bit targets without __int128, so it is checked by its defining inequalities, not by a wider type.
#include <doctest/doctest.h>

#include "ldp/random.h"
#include "ldp/server/central/exact_sampling.h"
#include "tables.h"

namespace {

using ldp::server::detail::wide;

}  // namespace

TEST_CASE("div_ceil(a, d) is the least q with q d >= a") {
  auto rng = ldp::test::seeded_drbg("div_ceil");
  const wide edges[] = {{0, 0}, {0, 1}, {0, 64}, {0, 65}, {0, 66}, {1, 0}, {0, ~uint64_t{0}}, {uint64_t{1} << 62, 0},
                        {~uint64_t{0} >> 4, ~uint64_t{0}}};
  for (int i = 0; i < 20000; ++i) {
    const wide a = i < 9 ? edges[i] : wide{rng.next_u64() >> (i % 64), rng.next_u64()};
    for (uint32_t d : {1u, 3u, 65u, 0xffffffffu, static_cast<uint32_t>(rng.next_u32() | 1u)}) {
      const wide q = ldp::server::detail::div_ceil(a, d);
      wide qd, below;
      REQUIRE(ldp::server::detail::times(q, d, &qd));
      CHECK_FALSE(ldp::server::detail::less(qd, a));  // q d >= a
      if (!ldp::server::detail::is_zero(q)) {
        REQUIRE(ldp::server::detail::times(ldp::server::detail::minus(q, {0, 1}), d, &below));
        CHECK(ldp::server::detail::less(below, a));  // (q - 1) d < a
      }
    }
  }
  const wide sum = ldp::server::detail::plus({1, ~uint64_t{0}}, {2, 1});
  CHECK((sum.hi == 4 && sum.lo == 0));
}
