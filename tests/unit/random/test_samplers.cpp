// Exact samplers: edge cases and the exact paths of each algorithm, driven by scripted words.
#include <doctest/doctest.h>

#include <deque>
#include <vector>

#include "ldp/random.h"
#include "tables.h"

namespace {

// Hands out a fixed script of words, then a counter; lets a test steer each branch.
struct scripted {
  std::deque<uint64_t> words;
  uint64_t next = 0;
  std::size_t reads = 0;
  uint64_t take() {
    ++reads;
    if (words.empty()) return next++;
    const uint64_t w = words.front();
    words.pop_front();
    return w;
  }
  uint32_t next_u32() { return static_cast<uint32_t>(take()); }
  uint64_t next_u64() { return take(); }
};

}  // namespace

TEST_CASE("uniform_below: Lemire's rejection zone is exact") {
  // n = 3: 2^32 mod 3 = 1, so only a product whose low word is 0 is rejected (x = 0).
  scripted s{{0, 0x80000000u}};
  CHECK(ldp::random::uniform_below(s, 3) == 1);  // 0x80000000 * 3 >> 32
  CHECK(s.reads == 2);
  scripted t{{0xffffffffu}};
  CHECK(ldp::random::uniform_below(t, 3) == 2);
  CHECK(t.reads == 1);
  scripted zero{{}};
  CHECK(ldp::random::uniform_below(zero, 0) == 0);
  CHECK(ldp::random::uniform_below(zero, 1) == 0);
  // 64-bit: n = 2^33 + 1 uses the 128-bit product.
  const uint64_t n = (uint64_t{1} << 33) + 1;
  scripted big{{~uint64_t{0}}};
  CHECK(ldp::random::uniform_below64(big, n) == n - 1);
}

TEST_CASE("uniform_below stays in range on a real generator") {
  unsigned char seed[32];
  ldp::test::seed_from_name("uniform range", seed);
  ldp::random::drbg rng(seed);
  const uint32_t ns[] = {1, 2, 3, 10, 1000, 0x80000001u, 0xffffffffu};
  for (uint32_t n : ns) {
    for (int i = 0; i < 2000; ++i) CHECK(ldp::random::uniform_below(rng, n) < n);
  }
  for (int i = 0; i < 2000; ++i) {
    CHECK(ldp::random::uniform_below64(rng, (uint64_t{1} << 40) + 3) < (uint64_t{1} << 40) + 3);
  }
}

TEST_CASE("bernoulli: thresholds 0 and 2^bits, and the comparison") {
  scripted s{{0, 0xffffffffu, 0x7fffffffu, 0x80000000u}};
  CHECK(ldp::random::bernoulli(s, 0) == false);                 // u = 0 is not below 0
  CHECK(ldp::random::bernoulli(s, uint64_t{1} << 32) == true);  // certain
  CHECK(ldp::random::bernoulli(s, 0x80000000u) == true);        // 0x7fffffff < 2^31
  CHECK(ldp::random::bernoulli(s, 0x80000000u) == false);       // 2^31 is not
  scripted w{{uint64_t{5} << 61}};
  CHECK(ldp::random::bernoulli(w, 6, 3) == true);  // top 3 bits = 5 < 6
  scripted x{{uint64_t{3} << 62}};
  CHECK(ldp::random::bernoulli(x, 3, 34) == false);  // 64-bit path: u = 3 << 32
}

TEST_CASE("bern_exp: gamma = 0 is certain, and the K-parity rule") {
  scripted s{{7}};
  CHECK(ldp::random::bern_exp(s, 0, 5));
  CHECK(s.reads == 1);  // one uniform_below(5) = 0 >= 0 stops at K = 1 (odd)
  // gamma = 1/2: draws below a = 1 continue. Word 0 -> uniform_below(2) = 0 < 1 (K becomes 2),
  // then 0xffffffff -> uniform_below(4) = 3 >= 1 stops: K = 2 is even, so false.
  scripted e{{0, 0xffffffffu}};
  CHECK_FALSE(ldp::random::bern_exp(e, 1, 2));
}

TEST_CASE("geometric and discrete Laplace: the CKS steps on scripted words") {
  // t = 1 (t_num = t_den = 1): U = uniform_below(1) = 0 consumes one word; bern_exp(0, 1) is
  // certain (one word); then V counts bern_exp(1, 1) successes. A success needs K to reach an odd
  // stop: words 0 (continue, K=2), 0 (continue, K=3), max (stop): K = 3 odd, success.
  // Then a failure: max (stop at K = 1)... K = 1 is odd, a success too, so failure needs K even:
  // words 0, max: K = 2, failure.
  scripted s{{0, 0, 0, 0, 0xffffffffu, 0, 0xffffffffu, 0}};
  CHECK(ldp::random::geometric(s, 1, 1) == 1);
  // Sign bit: the last scripted word 0 has low bit 0, so the sample stays positive.
  scripted d{{0, 0, 0, 0, 0xffffffffu, 0, 0xffffffffu, 0}};
  CHECK(ldp::random::discrete_laplace(d, 1, 1) == 1);
  // A negative zero is rejected and redrawn: U=0, accept, V=0 (words 0, max: failure), sign 1;
  // the second round repeats it with sign 0 and returns 0 after ten reads, not five.
  scripted z{{0, 0, 0, 0xffffffffu, 1, 0, 0, 0, 0xffffffffu, 0}};
  CHECK(ldp::random::discrete_laplace(z, 1, 1) == 0);
  CHECK(z.reads == 10);
}

TEST_CASE("discrete Laplace is reproducible from a seed") {
  unsigned char seed[32];
  ldp::test::seed_from_name("dlap reproducible", seed);
  ldp::random::drbg a(seed), b(seed);
  for (int i = 0; i < 1000; ++i) {
    CHECK(ldp::random::discrete_laplace(a, 65536 * 3, 65536) == ldp::random::discrete_laplace(b, 65536 * 3, 65536));
  }
}
