// Independence of the random streams (docs/mechanisms.md A.10 item 4): adjacent bits, bytes and words of
// the DRBG, and bits of the Bernoulli masks at the lags where reuse bugs show. Each p-value check
// is at 1e-7 (a test case with m checks fails a correct build with probability <= m * 1e-7).
// The same statistics are run on deliberately broken generators, which they must reject: a test
// that cannot fail proves nothing.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "ldp/random.h"
#include "stats.h"
#include "tables.h"

namespace {

constexpr double alpha_check = 1e-7;

using bit_source = std::function<bool(std::size_t)>;

// 2x2 contingency of (bit i, bit i + lag) over disjoint pairs: i runs over the first half of each
// block of 2 * lag bits, so no bit is used twice.
double pair_p_value(const bit_source& bit, std::size_t nbits, std::size_t lag) {
  std::vector<std::vector<uint64_t>> table(2, std::vector<uint64_t>(2, 0));
  for (std::size_t base = 0; base + 2 * lag <= nbits; base += 2 * lag) {
    for (std::size_t i = base; i < base + lag; ++i) ++table[bit(i)][bit(i + lag)];
  }
  return ldp::test::chi_square_independence(table).p_value;
}

double adjacent_byte_p_value(const std::vector<unsigned char>& bytes) {
  std::vector<std::vector<uint64_t>> table(256, std::vector<uint64_t>(256, 0));
  for (std::size_t i = 0; i + 1 < bytes.size(); i += 2) ++table[bytes[i]][bytes[i + 1]];
  return ldp::test::chi_square_independence(table).p_value;
}

// Top 4 bits of adjacent 32-bit words.
double adjacent_word_p_value(const std::vector<uint32_t>& words) {
  std::vector<std::vector<uint64_t>> table(16, std::vector<uint64_t>(16, 0));
  for (std::size_t i = 0; i + 1 < words.size(); i += 2) ++table[words[i] >> 28][words[i + 1] >> 28];
  return ldp::test::chi_square_independence(table).p_value;
}

const std::size_t mask_lags[] = {1, 2, 7, 8, 9, 32, 63, 64, 65, 255, 256, 257};

}  // namespace

TEST_CASE("DRBG: adjacent bits, bytes and words are independent") {
  auto rng = ldp::test::seeded_drbg("drbg independence");
  std::vector<unsigned char> bytes(1 << 24);  // 8M byte pairs: about 128 per cell of 256 x 256
  rng.fill(bytes);
  CHECK(adjacent_byte_p_value(bytes) > alpha_check);
  const bit_source bit = [&](std::size_t i) { return ((bytes[i / 8] >> (i % 8)) & 1) != 0; };
  for (std::size_t lag : {1, 7, 8, 32, 64}) {
    CAPTURE(lag);
    CHECK(pair_p_value(bit, 1 << 22, lag) > alpha_check);
  }
  std::vector<uint32_t> words(1 << 20);
  for (auto& w : words) w = rng.next_u32();
  CHECK(adjacent_word_p_value(words) > alpha_check);
}

TEST_CASE("the stream tests reject a generator that reuses words or bytes") {
  auto rng = ldp::test::seeded_drbg("broken stream", ldp::kernels::scalar());
  std::vector<uint32_t> words(1 << 20);
  for (std::size_t i = 0; i < words.size(); i += 2) words[i] = words[i + 1] = rng.next_u32();
  CHECK(adjacent_word_p_value(words) < 1e-12);
  std::vector<unsigned char> bytes(1 << 24);
  rng.fill(bytes);
  // Each odd byte shares 7 of its 8 bits with the byte before it.
  for (std::size_t i = 1; i < bytes.size(); i += 2) {
    bytes[i] = static_cast<unsigned char>((bytes[i - 1] << 1) | (bytes[i] & 1));
  }
  CHECK(adjacent_byte_p_value(bytes) < 1e-12);
}

TEST_CASE("Bernoulli masks: bits at reuse-prone lags are independent, on every table") {
  constexpr std::size_t k = 1 << 16, masks = 64;  // 4M bits per threshold
  for (const auto* t : ldp::test::runnable_tables()) {
    for (uint64_t threshold : {uint64_t{429496730}, uint64_t{77309411}}) {
      auto rng = ldp::test::seeded_drbg("mask independence", *t);
      std::vector<uint64_t> bits(masks * k / 64);
      for (std::size_t m = 0; m < masks; ++m) {
        REQUIRE(ldp::random::fill_bernoulli_mask(rng, ldp::span<uint64_t>(bits.data() + m * (k / 64), k / 64), k,
                                                 threshold) == ldp::status::ok);
      }
      const bit_source bit = [&](std::size_t i) { return ((bits[i / 64] >> (i % 64)) & 1) != 0; };
      for (std::size_t lag : mask_lags) {
        const std::string table_name = t->name;
        CAPTURE(table_name);
        CAPTURE(threshold);
        CAPTURE(lag);
        CHECK(pair_p_value(bit, masks * k, lag) > alpha_check);
      }
    }
  }
}

TEST_CASE("the mask test rejects Fuchsia Cobalt's byte-indexing bug") {
  // Byte b's bit i compared word r[b + i] (instead of r[8b + i]) with the threshold, so adjacent
  // bytes share 7 of their 8 words. The same lag test must flag it at lag 7.
  auto rng = ldp::test::seeded_drbg("cobalt bug", ldp::kernels::scalar());
  constexpr std::size_t nbytes = 1 << 19;
  const uint32_t threshold = 429496730;
  std::vector<uint32_t> r(nbytes + 8);
  for (auto& w : r) w = rng.next_u32();
  std::vector<unsigned char> mask(nbytes, 0);
  for (std::size_t b = 0; b < nbytes; ++b) {
    for (int i = 0; i < 8; ++i) {
      if (r[b + i] < threshold) mask[b] = static_cast<unsigned char>(mask[b] | (1u << i));
    }
  }
  const bit_source bit = [&](std::size_t i) { return ((mask[i / 8] >> (i % 8)) & 1) != 0; };
  CHECK(pair_p_value(bit, 8 * nbytes, 7) < 1e-12);
}
