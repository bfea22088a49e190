// The int32 Walsh-Hadamard transform and the column popcount of kernel_table.h: each against an
// independent slow model of its definition, and every compiled table against the scalar reference,
// bit for bit (docs/mechanisms.md B.4 "Tests"; docs/performance.md 2 and 7).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tables.h"

namespace {

std::vector<int32_t> random_i32(ldp::random::drbg& rng, std::size_t n) {
  std::vector<int32_t> out(n);
  for (auto& x : out) x = static_cast<int32_t>(rng.next_u32());
  return out;
}

// out[r] = sum_y (-1)^popcount(r & y) in[y] (mod 2^32), straight from the definition.
std::vector<int32_t> dense_hadamard(const std::vector<int32_t>& in) {
  const std::size_t n = in.size();
  std::vector<int32_t> out(n);
  for (std::size_t r = 0; r < n; ++r) {
    uint32_t acc = 0;
    for (std::size_t y = 0; y < n; ++y) {
      unsigned parity = 0;
      for (std::size_t m = r & y; m != 0; m &= m - 1) parity ^= 1u;
      const uint32_t v = static_cast<uint32_t>(in[y]);
      acc = parity != 0 ? acc - v : acc + v;
    }
    out[r] = static_cast<int32_t>(acc);
  }
  return out;
}

// The per-bit loop of the definition: bit j of report i is bit j % 8 of its byte j / 8.
void naive_column_popcount(const unsigned char* reports, std::size_t n, std::size_t stride, std::size_t nbits,
                           uint64_t* counts) {
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char* row = reports + i * stride;
    for (std::size_t j = 0; j < nbits; ++j) counts[j] += (row[j / 8] >> (j % 8)) & 1u;
  }
}

// Runs one table's column_popcount on `reports` (exactly (n - 1) * stride + ceil(nbits / 8) bytes,
// so any read past the last report's bit vector is out of bounds) with counts starting at `start`
// and two sentinels after them.
std::vector<uint64_t> run_popcount(const ldp::kernels::table& t, const std::vector<unsigned char>& reports,
                                   std::size_t n, std::size_t stride, std::size_t nbits,
                                   const std::vector<uint64_t>& start) {
  std::vector<uint64_t> counts(start);
  counts.push_back(0xdeadbeefu);
  counts.push_back(0xfeedfaceu);
  t.column_popcount(reports.empty() ? nullptr : reports.data(), n, stride, nbits, counts.data());
  CHECK(counts[nbits] == 0xdeadbeefu);
  CHECK(counts[nbits + 1] == 0xfeedfaceu);
  counts.resize(nbits);
  return counts;
}

std::vector<unsigned char> report_buffer(std::size_t n, std::size_t stride, std::size_t nbits) {
  return std::vector<unsigned char>(n == 0 ? 0 : (n - 1) * stride + (nbits + 7) / 8);
}

}  // namespace

TEST_CASE("fwht_i32 equals the dense Hadamard product, n = 1 .. 1024, every table") {
  auto rng = ldp::test::seeded_drbg("fwht dense");
  for (unsigned log2n = 0; log2n <= 10; ++log2n) {
    CAPTURE(log2n);
    for (int trial = 0; trial < 2; ++trial) {
      const auto x = random_i32(rng, std::size_t{1} << log2n);
      const auto want = dense_hadamard(x);
      for (const auto* t : ldp::test::runnable_tables()) {
        const std::string name = t->name;
        CAPTURE(name);
        auto got = x;
        t->fwht_i32(got.data(), log2n);
        CHECK(got == want);
      }
    }
  }
}

TEST_CASE("fwht_i32 twice multiplies by n (mod 2^32), every table") {
  auto rng = ldp::test::seeded_drbg("fwht involution");
  for (unsigned log2n : {0u, 1u, 2u, 3u, 5u, 7u, 9u, 12u, 13u, 16u, 18u}) {
    CAPTURE(log2n);
    const std::size_t n = std::size_t{1} << log2n;
    const auto x = random_i32(rng, n);
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = t->name;
      CAPTURE(name);
      auto y = x;
      t->fwht_i32(y.data(), log2n);
      t->fwht_i32(y.data(), log2n);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const uint32_t want = static_cast<uint32_t>(x[i]) * static_cast<uint32_t>(n);
        bad += static_cast<uint32_t>(y[i]) != want;
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("fwht_i32: every table equals the scalar reference bit for bit") {
  auto rng = ldp::test::seeded_drbg("fwht tables");
  std::vector<unsigned> sizes;
  for (unsigned l = 0; l <= 16; ++l) sizes.push_back(l);
  sizes.push_back(20);  // three levels of the depth-first recursion
  for (unsigned log2n : sizes) {
    CAPTURE(log2n);
    const std::size_t n = std::size_t{1} << log2n;
    // Random words, and the extremes of int32, whose sums wrap at every level.
    auto x = random_i32(rng, n + 1);
    std::vector<int32_t> extreme(n + 1);
    for (std::size_t i = 0; i < n + 1; ++i) extreme[i] = (i % 3 == 0) ? INT32_MIN : INT32_MAX;
    for (const auto* input : {&x, &extreme}) {
      auto want = *input;
      ldp::kernels::scalar().fwht_i32(want.data(), log2n);
      CHECK(want[n] == (*input)[n]);  // nothing written past the end
      for (const auto* t : ldp::test::runnable_tables()) {
        const std::string name = t->name;
        CAPTURE(name);
        auto got = *input;
        t->fwht_i32(got.data(), log2n);
        CHECK(got == want);
        // Not aligned to anything wider than 4 bytes.
        auto shifted = *input;
        shifted.insert(shifted.begin(), 0x5a5a5a5a);
        t->fwht_i32(shifted.data() + 1, log2n);
        CHECK(shifted[0] == 0x5a5a5a5a);
        CHECK(std::equal(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(n), shifted.begin() + 1));
      }
    }
  }
}

TEST_CASE("fwht_i32 of a unit vector and of a constant vector") {
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string name = t->name;
    CAPTURE(name);
    for (unsigned log2n : {4u, 11u, 14u}) {
      const std::size_t n = std::size_t{1} << log2n;
      std::vector<int32_t> x(n, 0);
      x[0] = 3;
      t->fwht_i32(x.data(), log2n);
      CHECK(x == std::vector<int32_t>(n, 3));
      t->fwht_i32(x.data(), log2n);  // back to 3n * e_0
      std::vector<int32_t> want(n, 0);
      want[0] = static_cast<int32_t>(3 * n);
      CHECK(x == want);
    }
  }
}

TEST_CASE("column_popcount equals the per-bit loop, every table") {
  auto rng = ldp::test::seeded_drbg("column popcount");
  const auto tables = ldp::test::runnable_tables();
  const std::size_t report_counts[] = {0, 1, 7, 255, 256, 1000};
  const std::size_t bit_counts[] = {1, 7, 8, 63, 64, 65, 1000, 1024};
  for (std::size_t n : report_counts) {
    for (std::size_t nbits : bit_counts) {
      const std::size_t nbytes = (nbits + 7) / 8;
      const std::size_t strides[] = {nbytes, nbytes + 1, nbytes + 13, 2 * nbytes + 64};
      for (std::size_t stride : strides) {
        CAPTURE(n);
        CAPTURE(nbits);
        CAPTURE(stride);
        // Random bytes everywhere, including the padding bits past nbits and the bytes between
        // reports: none of them may be counted.
        auto reports = report_buffer(n, stride, nbits);
        if (!reports.empty()) rng.fill(reports.data(), reports.size());
        std::vector<uint64_t> start(nbits);
        for (auto& c : start) c = rng.next_u32();
        std::vector<uint64_t> want(start);
        naive_column_popcount(reports.data(), n, stride, nbits, want.data());
        for (const auto* t : tables) {
          const std::string name = t->name;
          CAPTURE(name);
          CHECK(run_popcount(*t, reports, n, stride, nbits, start) == want);
        }
      }
    }
  }
}

TEST_CASE("column_popcount: many reports, sparse and saturated, across counter flushes") {
  auto rng = ldp::test::seeded_drbg("column popcount flush");
  const auto tables = ldp::test::runnable_tables();
  // 255 groups of 16 reports fill the byte counters; 9000 and 20000 bits need several blocks of
  // column registers on every table.
  const struct {
    std::size_t n, nbits;
  } shapes[] = {{4079, 24}, {4080, 300}, {4081, 2048}, {9000, 300}, {4100, 9000}, {600, 20000}};
  for (const auto shape : shapes) {
    const std::size_t n = shape.n, nbits = shape.nbits;
    {
      const std::size_t stride = (nbits + 7) / 8 + (nbits % 3);
      CAPTURE(n);
      CAPTURE(nbits);
      for (int density = 0; density < 3; ++density) {
        CAPTURE(density);
        auto reports = report_buffer(n, stride, nbits);
        if (density == 0) {
          std::memset(reports.data(), 0xff, reports.size());  // every counter reaches n
        } else {
          rng.fill(reports.data(), reports.size());
          if (density == 1) {  // about 1 bit in 16 set, like a unary report with small q
            std::vector<unsigned char> other(reports.size());
            rng.fill(other.data(), other.size());
            for (std::size_t i = 0; i < reports.size(); ++i) {
              reports[i] = static_cast<unsigned char>(reports[i] & other[i]);
            }
            rng.fill(other.data(), other.size());
            for (std::size_t i = 0; i < reports.size(); ++i) {
              reports[i] = static_cast<unsigned char>(reports[i] & other[i]);
            }
          }
        }
        const std::vector<uint64_t> start(nbits, 7);
        std::vector<uint64_t> want(start);
        naive_column_popcount(reports.data(), n, stride, nbits, want.data());
        if (density == 0) CHECK(want == std::vector<uint64_t>(nbits, 7 + n));
        for (const auto* t : tables) {
          const std::string name = t->name;
          CAPTURE(name);
          CHECK(run_popcount(*t, reports, n, stride, nbits, start) == want);
        }
      }
    }
  }
}
