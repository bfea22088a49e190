// Device side of ProjUnit and FastProjUnit (ldp/device/projected_unit.h, docs/mechanisms.md B.8): the
// int32 direction of the projection, the seed drawn first (a report's projection does not depend on
// x), the projection the report's seed names, and the context's checks.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "device_context.h"
#include "ldp/device/projected_unit.h"
#include "ldp/random.h"
#include "ldp/wire.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

// A generator that replays a drbg's stream and counts the words it hands out.
struct counting_rng {
  ldp::random::drbg* inner;
  uint64_t words = 0;
  uint32_t next_u32() {
    ++words;
    return inner->next_u32();
  }
  uint64_t next_u64() {
    words += 2;
    return inner->next_u64();
  }
};

}  // namespace

TEST_CASE("projected_direction: the smallest shift with ||w||^2 < 2^62, magnitudes rounded down") {
  std::vector<int32_t> w(3);
  // Already small: unchanged.
  const std::vector<int64_t> small = {3, -4, 0};
  CHECK(ldp::device::projected_direction(small, w) == 25);
  CHECK(w == std::vector<int32_t>{3, -4, 0});
  // ||y||^2 = 3 * 2^62: bit length 64, so e = 1; each |y_i| = 2^31 halves exactly.
  const std::vector<int64_t> big = {int64_t{1} << 31, -(int64_t{1} << 31), int64_t{1} << 31};
  CHECK(ldp::device::projected_direction(big, w) == 3 * (uint64_t{1} << 60));
  CHECK(w == std::vector<int32_t>{1 << 30, -(1 << 30), 1 << 30});
  // ||y||^2 just above 2^67 (bit length 68): e = 3, not 2 (2 * 2^62 would not fit); magnitudes round
  // toward zero on both signs.
  const std::vector<int64_t> odd = {(int64_t{1} << 33) + 15, -((int64_t{1} << 33) + 15), 7};
  CHECK(ldp::device::projected_direction(odd, w) == 2 * (uint64_t{1} << 60) + 2 * (uint64_t{1} << 31) + 2);
  CHECK(w == std::vector<int32_t>{(1 << 30) + 1, -((1 << 30) + 1), 0});
  // The largest projections a block allows (|y_j| <= ||x||_1 < 2^31, k = 2^16) stay below 2^62.
  std::vector<int64_t> huge(65536, (int64_t{1} << 31) - 1);
  std::vector<int32_t> hw(huge.size());
  CHECK(ldp::device::projected_direction(huge, hw) < (uint64_t{1} << 62));
  CHECK(hw[0] >= (1 << 22));
  const std::vector<int64_t> zero = {0, 0, 0};
  CHECK(ldp::device::projected_direction(zero, w) == 0);
}

TEST_CASE("the report's seed is the generator's first draw, and the report has k coordinates") {
  for (const mechanism m : {mechanism::projunit, mechanism::fastprojunit}) {
    CAPTURE(ldp::wire::mechanism_name(m));
    const auto p = m == mechanism::projunit ? ldp::wire::make_projunit(20, 5, 1.0, 16, 1.0).block
                                            : ldp::wire::make_fastprojunit(20, 5, 1.0, 16, 1.0).block;
    ldp::test::owned_context<ldp::device::projected_unit_context> c(p);
    REQUIRE(c.code == status::ok);
    unsigned char seed[32];
    ldp::test::seed_from_name("projected seed first", seed);
    ldp::random::drbg a(seed), b(seed);
    std::vector<int64_t> x(20, 0);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int64_t>(i * 1000) - 9000;
    ldp::wire::report r;
    counting_rng counted{&a};
    REQUIRE(c->fields(x, counted, &r) == status::ok);
    CHECK(r.seed == b.next_u64());
    CHECK(r.values.size() == 5);
    for (int64_t v : r.values) CHECK(std::llabs(v) <= 32767);
    // Wrong input size: nothing is drawn.
    const uint64_t before = counted.words;
    std::vector<int64_t> shorter(19, 0);
    CHECK(c->fields(shorter, counted, &r) == status::invalid_argument);
    CHECK(counted.words == before);
  }
}

TEST_CASE("init: only projected blocks, with their workspace") {
  const auto p = ldp::wire::make_projunit(100, 10, 1.0, 16, 1.0).block;
  // One row of G (4 words), d~ = 128 int32, k int64 and k int32.
  CHECK(ldp::device::projected_unit_context::workspace_size(p) == 128 * 4 + 4 * 4 + 10 * 8 + 10 * 4);
  const auto f = ldp::wire::make_fastprojunit(100, 10, 1.0, 16, 1.0).block;
  CHECK(ldp::device::projected_unit_context::workspace_size(f) == 128 * 4 + 4 * 4 + 10 * 8 + 10 * 4);
  std::vector<uint64_t> words(ldp::device::projected_unit_context::workspace_size(p) / 8);
  ldp::span<std::byte> all(reinterpret_cast<std::byte*>(words.data()), words.size() * 8);
  ldp::device::projected_unit_context c;
  CHECK(ldp::device::projected_unit_context::init(all.subspan(0, all.size() - 8), p, &c) ==
        status::workspace_too_small);
  CHECK(ldp::device::projected_unit_context::init(all, p, &c) == status::ok);
  CHECK(ldp::device::projected_unit_context::init(all, ldp::test::example_params(mechanism::privunitg), &c) ==
        status::invalid_argument);
  CHECK(ldp::device::projected_unit_context::init(all, ldp::test::example_params(mechanism::l2_ball), &c) ==
        status::invalid_argument);
  ldp::device::unit_vector_context u;
  std::vector<uint64_t> more(1024);
  CHECK(ldp::device::unit_vector_context::init(
            ldp::span<std::byte>(reinterpret_cast<std::byte*>(more.data()), more.size() * 8), p, &u) ==
        status::invalid_argument);
}

TEST_CASE("golden device bytes on every kernel table (a change of any stream or step changes them)") {
  for (const mechanism m : {mechanism::projunit, mechanism::fastprojunit}) {
    const auto p = m == mechanism::projunit ? ldp::wire::make_projunit(12, 4, 1.0, 16, 2.0).block
                                            : ldp::wire::make_fastprojunit(12, 4, 1.0, 16, 2.0).block;
    std::vector<int64_t> x(12);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = (i % 3 == 0 ? 1 : -1) * static_cast<int64_t>(5000 + 700 * i);
    std::string first;
    for (const ldp::kernels::table* t : ldp::test::runnable_tables()) {
      CAPTURE(t->name);
      unsigned char seed[32];
      ldp::test::seed_from_name("projected golden", seed);
      ldp::random::drbg rng(seed, *t);
      std::vector<unsigned char> out;
      REQUIRE(ldp::test::report_of<ldp::device::projected_unit_context>(p, ldp::span<const int64_t>(x), rng, &out) ==
              status::ok);
      CHECK(out.size() == 10 + 8 + 8);
      const std::string hex = ldp::test::to_hex(out.data() + 10, out.size() - 10);
      if (first.empty()) first = hex;
      CHECK(hex == first);
      // The seed (the drbg's first 8 bytes) is the same for both; the coordinates are not.
      CHECK(hex ==
            (m == mechanism::projunit ? "58b9f9669faa38620af493fd12fc6e01" : "58b9f9669faa3862840f0bff7bfcc706"));
    }
  }
}
