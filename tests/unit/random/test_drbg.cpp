// The ChaCha20 DRBG: reproducible from a seed, identical on every kernel table, keyed from an
// entropy source, and forward secure (fast key erasure).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ldp/random.h"
#include "tables.h"

namespace {

std::vector<unsigned char> draw_mixed(ldp::random::drbg& rng) {
  // A fixed mix of small, odd, word and bulk requests, as callers make them.
  std::vector<unsigned char> out;
  const std::size_t sizes[] = {1, 7, 64, 991, 2000, 3, 5000, 12};
  for (std::size_t s : sizes) {
    std::vector<unsigned char> part(s);
    rng.fill(part);
    out.insert(out.end(), part.begin(), part.end());
    const uint32_t w = rng.next_u32();
    const uint64_t q = rng.next_u64();
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<unsigned char>(w >> (8 * i)));
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(q >> (8 * i)));
  }
  return out;
}

bool contains(const unsigned char* hay, std::size_t hay_size, const unsigned char* needle, std::size_t size) {
  return std::search(hay, hay + hay_size, needle, needle + size) != hay + hay_size;
}

}  // namespace

TEST_CASE("same seed, same calls, same bytes on every kernel table") {
  unsigned char seed[32];
  ldp::test::seed_from_name("drbg determinism", seed);
  ldp::random::drbg reference(seed, ldp::kernels::scalar());
  const auto want = draw_mixed(reference);
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    ldp::random::drbg rng(seed, *t);
    CHECK(draw_mixed(rng) == want);
  }
  seed[0] ^= 1;
  ldp::random::drbg other(seed, ldp::kernels::scalar());
  CHECK(draw_mixed(other) != want);
}

TEST_CASE("the stream is 992-byte unit outputs, each keyed by the previous unit's last 32 bytes") {
  unsigned char seed[32];
  ldp::test::seed_from_name("drbg layout", seed);
  ldp::random::drbg rng(seed, ldp::kernels::scalar());
  std::vector<unsigned char> got(3 * 992);
  rng.fill(got.data(), 100);  // through the buffer
  rng.fill(got.data() + 100, got.size() - 100);
  const unsigned char nonce[12] = {};
  unsigned char key[32], unit[1024];
  std::memcpy(key, seed, 32);
  for (int u = 0; u < 3; ++u) {
    REQUIRE(ldp::random::chacha20_keystream(ldp::kernels::scalar(), key, nonce, 0, unit) == ldp::status::ok);
    CHECK(std::memcmp(got.data() + 992 * u, unit, 992) == 0);
    std::memcpy(key, unit + 992, 32);
  }
}

TEST_CASE("the stream does not depend on how it is read") {
  unsigned char seed[32];
  ldp::test::seed_from_name("drbg read pattern", seed);
  ldp::random::drbg whole(seed, ldp::kernels::scalar());
  std::vector<unsigned char> want(20000);
  whole.fill(want);
  ldp::random::drbg pieces(seed, ldp::kernels::scalar());
  ldp::random::drbg sizes(seed, ldp::kernels::scalar());  // drives the split sizes
  std::vector<unsigned char> got;
  while (got.size() < want.size()) {
    const std::size_t left = want.size() - got.size();
    switch (sizes.next_u32() % 4) {
      case 0: {  // a word
        if (left < 8) break;
        const uint64_t w = pieces.next_u64();
        for (int i = 0; i < 8; ++i) got.push_back(static_cast<unsigned char>(w >> (8 * i)));
        continue;
      }
      case 1: {  // peek and consume part of it
        const auto view = pieces.peek(1 + sizes.next_u32() % 1024);
        const std::size_t n = std::min<std::size_t>({view.size(), left, 1 + sizes.next_u32() % 700});
        got.insert(got.end(), view.data(), view.data() + n);
        pieces.consume(n);
        continue;
      }
      default: break;
    }
    const std::size_t n = std::min<std::size_t>(left, 1 + sizes.next_u32() % 3000);
    std::vector<unsigned char> part(n);
    pieces.fill(part);
    got.insert(got.end(), part.begin(), part.end());
  }
  CHECK(got == want);
}

TEST_CASE("a captured state reveals neither the seed nor earlier output") {
  unsigned char seed[32];
  ldp::test::seed_from_name("drbg erasure", seed);
  ldp::random::drbg rng(seed, ldp::kernels::scalar());
  unsigned char small[48], bulk[4096];
  rng.fill(small, sizeof small);
  rng.fill(bulk, sizeof bulk);
  const uint64_t word = rng.next_u64();
  unsigned char state[sizeof(ldp::random::drbg)];
  std::memcpy(state, static_cast<const void*>(&rng), sizeof state);
  CHECK_FALSE(contains(state, sizeof state, seed, 16));
  CHECK_FALSE(contains(state, sizeof state, small, 16));
  CHECK_FALSE(contains(state, sizeof state, small + 32, 16));
  CHECK_FALSE(contains(state, sizeof state, bulk + 4080, 16));
  unsigned char word_bytes[8];
  std::memcpy(word_bytes, &word, 8);
  CHECK_FALSE(contains(state, sizeof state, word_bytes, 8));
}

TEST_CASE("keying from an entropy source") {
  struct counter_source {
    static ldp::status fill(void* ctx, unsigned char* out, std::size_t n) {
      auto* next = static_cast<unsigned char*>(ctx);
      for (std::size_t i = 0; i < n; ++i) out[i] = (*next)++;
      return ldp::status::ok;
    }
    static ldp::status broken(void*, unsigned char*, std::size_t) { return ldp::status::entropy_failure; }
  };
  unsigned char first = 0;
  unsigned char seed[32];
  for (int i = 0; i < 32; ++i) seed[i] = static_cast<unsigned char>(i);
  unsigned char other_seed[32];
  std::memset(other_seed, 0xff, sizeof other_seed);
  ldp::random::drbg from_seed(seed);
  ldp::random::drbg keyed(other_seed);
  REQUIRE(ldp::random::drbg::from_entropy(counter_source::fill, &first, &keyed) == ldp::status::ok);
  CHECK(keyed.next_u64() == from_seed.next_u64());

  ldp::random::drbg untouched(seed);
  CHECK(ldp::random::drbg::from_entropy(counter_source::broken, nullptr, &untouched) == ldp::status::entropy_failure);
  CHECK(ldp::random::drbg::from_entropy(nullptr, nullptr, &untouched) == ldp::status::entropy_failure);
  ldp::random::drbg again(seed);
  CHECK(untouched.next_u64() == again.next_u64());
}
