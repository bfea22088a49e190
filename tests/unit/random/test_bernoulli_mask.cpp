// The lane-parallel Bernoulli kernel (docs/mechanisms.md D.1): its bits equal an independent model of
// the definition in kernel_table.h, every table equals the scalar reference, and the mask filler
// handles lengths, edges and bad arguments.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ldp/base/bits.h"
#include "ldp/random.h"
#include "tables.h"

namespace {

// The definition, written the slow way: lane j compares the full bits-bit number u_j built from the
// first `bits` words with the threshold. Digits the kernel did not read cannot change the result,
// so the model reads them all, whatever the kernel consumed.
std::vector<uint64_t> model_chunk(uint64_t threshold, unsigned bits, const unsigned char* rnd) {
  std::vector<uint64_t> out(4, 0);
  for (int lane = 0; lane < 256; ++lane) {
    uint64_t u = 0;
    for (unsigned s = 0; s < bits; ++s) {
      const uint64_t w = ldp::load_le64(rnd + 32 * s + 8 * (lane / 64));
      u = (u << 1) | ((w >> (lane % 64)) & 1);
    }
    if (u < threshold) out[lane / 64] |= uint64_t{1} << (lane % 64);
  }
  return out;
}

}  // namespace

TEST_CASE("one chunk matches the definition, and every table matches the scalar kernel") {
  unsigned char seed[32];
  ldp::test::seed_from_name("bernoulli chunk model", seed);
  ldp::random::drbg rng(seed, ldp::kernels::scalar());
  std::vector<unsigned char> rnd(32 * 32);
  const struct {
    uint64_t threshold;
    unsigned bits;
  } cases[] = {{0x80000000u, 32}, {0x19999999u, 32}, {77309411u, 32}, {1, 32}, {0xffffffffu, 32}, {5, 3}, {1, 1},
               {0x1234u, 16}};
  for (auto c : cases) {
    CAPTURE(c.threshold);
    for (int trial = 0; trial < 50; ++trial) {
      rng.fill(rnd);
      uint64_t want[4];
      std::size_t used = 0;
      REQUIRE(ldp::kernels::scalar().bernoulli_chunks(want, 1, c.threshold, c.bits, rnd.data(), 32, &used) == 1);
      CHECK(used <= c.bits);
      const auto model = model_chunk(c.threshold, c.bits, rnd.data());
      CHECK(std::vector<uint64_t>(want, want + 4) == model);
      for (const auto* t : ldp::test::runnable_tables()) {
        const std::string table_name = t->name;
        CAPTURE(table_name);
        uint64_t got[4];
        std::size_t got_used = 0;
        REQUIRE(t->bernoulli_chunks(got, 1, c.threshold, c.bits, rnd.data(), 32, &got_used) == 1);
        CHECK(got_used == used);
        CHECK(std::vector<uint64_t>(got, got + 4) == model);
      }
    }
  }
}

TEST_CASE("the kernel stops at the worst-case budget and reports what it read") {
  std::vector<unsigned char> rnd(32 * 40, 0xff);  // all-ones words: a threshold digit 1 never decides
  uint64_t out[8];
  std::size_t used = 0;
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    // 0xffffffff: every lane ties on all 32 digits, reading 32 words per chunk.
    CHECK(t->bernoulli_chunks(out, 2, 0xffffffffu, 32, rnd.data(), 40, &used) == 1);
    CHECK(used == 32);
    CHECK(out[0] == 0);
    CHECK(t->bernoulli_chunks(out, 2, 0xffffffffu, 32, rnd.data(), 31, &used) == 0);
    CHECK(used == 0);
  }
}

TEST_CASE("mask filler: every table gives the same bits for every length and threshold") {
  unsigned char seed[32];
  ldp::test::seed_from_name("bernoulli mask tables", seed);
  const std::size_t lengths[] = {0, 1, 63, 64, 65, 255, 256, 257, 1000, 4096 + 5, 70000};
  const uint64_t thresholds[] = {0, 1, 0x80000000u, 0x19999999u, 77309411u, 0xffffffffu, uint64_t{1} << 32};
  for (std::size_t n : lengths) {
    for (uint64_t th : thresholds) {
      CAPTURE(n);
      CAPTURE(th);
      std::vector<uint64_t> want((n + 63) / 64 + 1, 0xdeadbeef);
      ldp::random::drbg ref(seed, ldp::kernels::scalar());
      REQUIRE(ldp::random::fill_bernoulli_mask(ref, want, n, th) == ldp::status::ok);
      const uint64_t after = ref.next_u64();
      CHECK(want.back() == 0xdeadbeef);  // the word past the mask is untouched
      if (n % 64 != 0) CHECK((want[n / 64] >> (n % 64)) == 0);
      if (th == 0) {
        for (std::size_t i = 0; i < n / 64; ++i) CHECK(want[i] == 0);
      }
      if (th == (uint64_t{1} << 32) && n >= 64) CHECK(want[0] == ~uint64_t{0});
      for (const auto* t : ldp::test::runnable_tables()) {
        const std::string table_name = t->name;
        CAPTURE(table_name);
        std::vector<uint64_t> got(want.size(), 0xdeadbeef);
        ldp::random::drbg rng(seed, *t);
        REQUIRE(ldp::random::fill_bernoulli_mask(rng, got, n, th) == ldp::status::ok);
        CHECK(got == want);
        CHECK(rng.next_u64() == after);  // and leaves the generator at the same position
      }
    }
  }
}

TEST_CASE("mask filler rejects bad arguments") {
  unsigned char seed[32] = {};
  ldp::random::drbg rng(seed);
  std::vector<uint64_t> out(4);
  CHECK(ldp::random::fill_bernoulli_mask(rng, out, 256, 1, 0) == ldp::status::invalid_argument);
  CHECK(ldp::random::fill_bernoulli_mask(rng, out, 256, 1, 33) == ldp::status::invalid_argument);
  CHECK(ldp::random::fill_bernoulli_mask(rng, out, 256, 9, 3) == ldp::status::invalid_argument);
  CHECK(ldp::random::fill_bernoulli_mask(rng, out, 257, 1) == ldp::status::buffer_too_small);
  CHECK(ldp::random::fill_bernoulli_mask(rng, out, 256, 8, 3) == ldp::status::ok);
  CHECK(out[0] == ~uint64_t{0});
}

TEST_CASE("kernels read and write byte buffers at any offset") {
  // The DRBG hands out its buffer at arbitrary offsets; on ARMv7 NEON a typed pointer with a
  // wrong alignment assumption faults (a bus error under qemu and on hardware).
  auto rng = ldp::test::seeded_drbg("unaligned kernels", ldp::kernels::scalar());
  std::vector<unsigned char> storage(32 * 40 + 8);
  rng.fill(storage);
  const uint32_t key[8] = {1, 2, 3, 4, 5, 6, 7, 8}, nonce[3] = {9, 10, 11};
  for (std::size_t offset = 0; offset < 8; ++offset) {
    CAPTURE(offset);
    uint64_t want[8], got[8];
    std::size_t want_used = 0, got_used = 0;
    const unsigned char* rnd = storage.data() + offset;
    REQUIRE(ldp::kernels::scalar().bernoulli_chunks(want, 2, 429496730u, 32, rnd, 40, &want_used) >= 1);
    std::vector<unsigned char> want_stream(64 * 9 + 8), got_stream(64 * 9 + 8);
    ldp::kernels::scalar().chacha20_blocks(key, nonce, 0, want_stream.data() + offset, 9);
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string table_name = t->name;
      CAPTURE(table_name);
      const std::size_t done = t->bernoulli_chunks(got, 2, 429496730u, 32, rnd, 40, &got_used);
      CHECK(got_used == want_used);
      CHECK(std::vector<uint64_t>(got, got + 4 * done) == std::vector<uint64_t>(want, want + 4 * done));
      std::fill(got_stream.begin(), got_stream.end(), 0);
      t->chacha20_blocks(key, nonce, 0, got_stream.data() + offset, 9);
      CHECK(
          std::equal(got_stream.begin() + offset, got_stream.begin() + offset + 64 * 9, want_stream.begin() + offset));
    }
  }
}
