// The public per-report projections of ProjUnit and FastProjUnit (ldp/random/projection.h,
// docs/mechanisms.md B.8): every kernel table against a naive reference that reads the keystream in
// one piece and multiplies by dense matrices, the transpose as the adjoint, the row sample, and golden
// values that pin the streams (docs/wire_format.md 3.6) on every architecture.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "ldp/base/bits.h"
#include "ldp/random.h"
#include "ldp/random/rotation.h"
#include "tables.h"

namespace {

using ldp::span;
namespace random = ldp::random;

std::vector<int64_t> test_vector(std::size_t d, uint64_t salt) {
  std::vector<int64_t> x(d);
  uint64_t h = 0x9e3779b97f4a7c15u ^ salt;
  for (auto& v : x) {
    h = h * 6364136223846793005u + 1442695040888963407u;
    v = static_cast<int64_t>(h >> 40) - (int64_t{1} << 23);  // |x_i| < 2^23
  }
  return x;
}

// G_{j,i} from the whole keystream: row j starts at byte 64 * j * ceil(d / 512).
int naive_sign(const std::vector<unsigned char>& stream, uint32_t d, uint32_t j, uint32_t i) {
  const std::size_t bit = std::size_t{j} * random::projection_row_blocks(d) * 512 + i;
  return (stream[bit / 8] >> (bit % 8)) & 1 ? -1 : 1;
}

std::vector<unsigned char> whole_stream(const unsigned char key[32], uint32_t d, uint32_t k) {
  std::vector<unsigned char> stream(std::size_t{k} * random::projection_row_blocks(d) * 64);
  REQUIRE(random::chacha20_keystream(ldp::kernels::scalar(), key, random::projection_nonce, 0, stream) ==
          ldp::status::ok);
  return stream;
}

int hadamard(uint32_t r, uint32_t c) { return ldp::popcount32(r & c) % 2 == 0 ? 1 : -1; }

}  // namespace

TEST_CASE("ProjUnit: G x and G^T q on every kernel table equal the dense products") {
  for (const uint32_t d : {1u, 31u, 64u, 513u, 784u}) {
    for (const uint32_t k : {1u, 7u, 40u}) {
      unsigned char key[32];
      random::projection_key(0x0123456789abcdefu + d + k, key);
      const auto stream = whole_stream(key, d, k);
      const auto x = test_vector(d, d);
      const auto q = test_vector(k, k + 1);
      std::vector<int64_t> want_y(k, 0), want_t(d, 0);
      for (uint32_t j = 0; j < k; ++j) {
        for (uint32_t i = 0; i < d; ++i) {
          want_y[j] += naive_sign(stream, d, j, i) * x[i];
          want_t[i] += naive_sign(stream, d, j, i) * q[j];
        }
      }
      for (const ldp::kernels::table* t : ldp::test::runnable_tables()) {
        CAPTURE(t->name);
        CAPTURE(d);
        CAPTURE(k);
        std::vector<uint32_t> row(random::projection_row_words(d));
        std::vector<int64_t> y(k), back(d);
        const std::vector<int32_t> x32(x.begin(), x.end());
        REQUIRE(random::rademacher_project(*t, key, x32, row, y) == ldp::status::ok);
        REQUIRE(random::rademacher_transpose(*t, key, q, row, back) == ldp::status::ok);
        CHECK(y == want_y);
        CHECK(back == want_t);
      }
    }
  }
}

TEST_CASE("ProjUnit: rows are independent of the order they are drawn in and need their workspace") {
  unsigned char key[32];
  random::projection_key(7, key);
  std::vector<uint32_t> a(random::projection_row_words(600)), b(a.size());
  REQUIRE(random::projection_row_signs(ldp::kernels::scalar(), key, 600, 3, a) == ldp::status::ok);
  REQUIRE(random::projection_row_signs(ldp::kernels::scalar(), key, 600, 2, b) == ldp::status::ok);
  CHECK(a != b);
  REQUIRE(random::projection_row_signs(ldp::kernels::scalar(), key, 600, 3, b) == ldp::status::ok);
  CHECK(a == b);
  std::vector<uint32_t> small(a.size() - 1);
  CHECK(random::projection_row_signs(ldp::kernels::scalar(), key, 600, 0, small) == ldp::status::invalid_argument);
}

TEST_CASE("FastProjUnit: (H D x)_S and D H S^T q on every kernel table equal the dense products") {
  for (const uint32_t n : {1u, 2u, 64u, 1024u}) {
    for (const uint32_t k : {1u, 5u, 64u}) {
      if (k > n) continue;
      unsigned char key[32];
      random::projection_key(0xfeedface00000000u + n * 131 + k, key);
      std::vector<uint32_t> signs(random::rotation_sign_words(n));
      REQUIRE(random::rotation_signs(key, n, signs) == ldp::status::ok);
      std::vector<uint32_t> rows;
      random::for_each_sampled_row(key, n, k, [&](uint32_t j, uint32_t i) {
        CHECK(j == rows.size());
        rows.push_back(i);
      });
      REQUIRE(rows.size() == k);
      for (std::size_t j = 1; j < rows.size(); ++j) CHECK(rows[j - 1] < rows[j]);
      const auto x = test_vector(n, n);
      const auto q = test_vector(k, k + 2);
      std::vector<int64_t> want_y(k, 0), want_t(n, 0);
      for (uint32_t j = 0; j < k; ++j) {
        for (uint32_t i = 0; i < n; ++i) {
          const int s = (signs[i / 32] >> (i % 32)) & 1 ? -1 : 1;
          want_y[j] += hadamard(rows[j], i) * s * x[i];
          want_t[i] += hadamard(rows[j], i) * s * q[j];
        }
      }
      for (const ldp::kernels::table* t : ldp::test::runnable_tables()) {
        CAPTURE(t->name);
        CAPTURE(n);
        CAPTURE(k);
        std::vector<int32_t> work(x.begin(), x.end()), back(n);
        std::vector<uint32_t> sign_work(signs.size());
        std::vector<int64_t> y(k);
        REQUIRE(random::fast_project(*t, key, work, sign_work, y) == ldp::status::ok);
        REQUIRE(random::fast_transpose(*t, key, q, sign_work, back) == ldp::status::ok);
        CHECK(y == want_y);
        CHECK(std::vector<int64_t>(back.begin(), back.end()) == want_t);
      }
    }
  }
  unsigned char key[32];
  random::projection_key(1, key);
  std::vector<int32_t> x(48);
  std::vector<uint32_t> signs(2);
  std::vector<int64_t> y(4);
  CHECK(random::fast_project(ldp::kernels::scalar(), key, x, signs, y) == ldp::status::invalid_argument);
}

TEST_CASE("FastProjUnit: every row is sampled, each k-subset shape is reachable") {
  // 300 seeds, n = 8, k = 3: each row has probability 3/8 per seed, so missing one has probability
  // 8 (5/8)^300 < 1e-60 (and the stream is fixed: this is a check of the selection rule, not luck).
  std::vector<int> hits(8, 0);
  std::set<std::vector<uint32_t>> subsets;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    unsigned char key[32];
    random::projection_key(seed, key);
    std::vector<uint32_t> rows;
    random::for_each_sampled_row(key, 8, 3, [&](uint32_t, uint32_t i) { rows.push_back(i); });
    for (uint32_t i : rows) ++hits[i];
    subsets.insert(rows);
  }
  for (int h : hits) CHECK(h > 60);
  CHECK(subsets.size() == 56);  // all C(8, 3) subsets; P(one missing in 300 draws) < 56 (55/56)^300 < 1e-2
}

TEST_CASE("Golden projection values (docs/wire_format.md 3.6): the same on every architecture") {
  unsigned char key[32];
  random::projection_key(0x1122334455667788u, key);
  CHECK(key[0] == 0x88);
  CHECK(key[7] == 0x11);
  CHECK(key[8] == 0);
  const auto x = test_vector(100, 5);
  std::vector<uint32_t> row(random::projection_row_words(100));
  std::vector<int64_t> y(3);
  const std::vector<int32_t> x32(x.begin(), x.end());
  REQUIRE(random::rademacher_project(ldp::kernels::scalar(), key, x32, row, y) == ldp::status::ok);
  CHECK(y == std::vector<int64_t>{-7104770, -141235092, 24166116});
  std::vector<int32_t> work(128, 0);
  for (std::size_t i = 0; i < x.size(); ++i) work[i] = static_cast<int32_t>(x[i]);
  std::vector<uint32_t> signs(4);
  REQUIRE(random::fast_project(ldp::kernels::scalar(), key, work, signs, y) == ldp::status::ok);
  CHECK(y == std::vector<int64_t>{-69791558, -459058, -14935826});
  std::vector<uint32_t> rows;
  random::for_each_sampled_row(key, 128, 3, [&](uint32_t, uint32_t i) { rows.push_back(i); });
  CHECK(rows == std::vector<uint32_t>{26, 83, 117});
}
