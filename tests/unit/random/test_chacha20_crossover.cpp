// Small outputs run on the scalar table below each table's measured crossover (kernel_table.h,
// chacha20_min_blocks): the ChaCha20 entry point and the DRBG take the table that
// kernels::chacha20_blocks_for() names, and the bytes do not depend on the choice.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ldp/random.h"
#include "tables.h"

namespace {

const unsigned char key[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                               17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
const unsigned char nonce[12] = {0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0};

// A table whose chacha20_blocks counts its calls before running the wrapped table's: the test seam
// that shows which table a caller chose.
std::size_t wide_calls = 0;
ldp::kernels::chacha20_blocks_fn wrapped = nullptr;

void counting_blocks(const uint32_t k[8], const uint32_t n[3], uint32_t counter, unsigned char* out,
                     std::size_t nblocks) noexcept {
  ++wide_calls;
  wrapped(k, n, counter, out, nblocks);
}

ldp::kernels::table counting_table(std::size_t min_blocks) {
  ldp::kernels::table t = *ldp::test::runnable_tables().back();  // the widest this CPU runs
  wrapped = t.chacha20_blocks;
  t.chacha20_blocks = counting_blocks;
  t.chacha20_min_blocks = min_blocks;
  wide_calls = 0;
  return t;
}

std::vector<unsigned char> keystream(const ldp::kernels::table& t, std::size_t size) {
  std::vector<unsigned char> out(size);
  REQUIRE(ldp::random::chacha20_keystream(t, key, nonce, 7, out) == ldp::status::ok);
  return out;
}

// Request sizes in bytes around `blocks` whole blocks: one short, exact, one over, and a block more.
std::vector<std::size_t> sizes_around(std::size_t blocks) {
  const std::size_t b = 64 * blocks;
  std::vector<std::size_t> out = {b + 1, b + 63, b + 64, b + 65};
  if (b >= 64) out.insert(out.end(), {b - 64, b - 63, b - 1, b});
  return out;
}

// The drbg stream read in requests of the given sizes, then one word.
std::vector<unsigned char> drbg_reads(const ldp::kernels::table& t, const std::vector<std::size_t>& sizes) {
  unsigned char seed[32];
  ldp::test::seed_from_name("chacha20 crossover drbg", seed);
  ldp::random::drbg rng(seed, t);
  std::vector<unsigned char> out;
  for (std::size_t s : sizes) {
    std::vector<unsigned char> part(s);
    rng.fill(part);
    out.insert(out.end(), part.begin(), part.end());
  }
  const uint64_t w = rng.next_u64();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(w >> (8 * i)));
  return out;
}

}  // namespace

TEST_CASE("chacha20_keystream runs the wide table from its crossover on, the scalar one below") {
  for (std::size_t min_blocks : {std::size_t{1}, std::size_t{3}, std::size_t{5}}) {
    for (std::size_t size : sizes_around(min_blocks)) {
      CAPTURE(min_blocks);
      CAPTURE(size);
      const ldp::kernels::table t = counting_table(min_blocks);
      const auto got = keystream(t, size);
      const std::size_t whole = size / 64;
      const bool partial = size % 64 != 0;
      // The whole blocks are one call, the trailing partial block another (one block).
      const std::size_t want_calls = (whole != 0 && whole >= min_blocks ? 1 : 0) + (partial && min_blocks <= 1 ? 1 : 0);
      CHECK(wide_calls == want_calls);
      CHECK(got == keystream(ldp::kernels::scalar(), size));
    }
  }
}

TEST_CASE("the drbg refills through the crossover: a unit is wide from a crossover of unit_blocks down") {
  const std::size_t unit = ldp::random::drbg::unit_blocks;
  const std::vector<std::size_t> sizes = {1, 64, 63, 65, 1000, 4096, 64};
  const auto want = drbg_reads(ldp::kernels::scalar(), sizes);
  {
    const ldp::kernels::table t = counting_table(unit);
    CHECK(drbg_reads(t, sizes) == want);
    CHECK(wide_calls > 0);
  }
  {
    const ldp::kernels::table t = counting_table(unit + 1);
    CHECK(drbg_reads(t, sizes) == want);
    CHECK(wide_calls == 0);
  }
}

TEST_CASE("every table's bytes are the scalar table's for requests straddling its crossover") {
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    CHECK(t->chacha20_min_blocks >= 1);
    const std::vector<std::size_t> sizes = sizes_around(t->chacha20_min_blocks);
    for (std::size_t size : sizes) {
      CAPTURE(size);
      CHECK(keystream(*t, size) == keystream(ldp::kernels::scalar(), size));
    }
    CHECK(drbg_reads(*t, sizes) == drbg_reads(ldp::kernels::scalar(), sizes));
  }
}

TEST_CASE("the scalar table always runs itself") {
  const bool itself =
      ldp::kernels::chacha20_blocks_for(ldp::kernels::scalar(), 1) == ldp::kernels::scalar().chacha20_blocks;
  CHECK(itself);
  CHECK(ldp::kernels::scalar().chacha20_min_blocks == 1);
}
