// OLH support counting of kernel_table.h (docs/performance.md 5): the scalar reference against a direct
// use of wire::hash_to_range, and every runnable table against the scalar reference, bit for bit.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ldp/base/bits.h"
#include "ldp/wire/checksum.h"
#include "ldp/wire/hash.h"
#include "tables.h"

namespace {

struct reports {
  std::vector<uint64_t> a, b;
  std::vector<uint32_t> bucket;
};

uint32_t below(ldp::random::drbg& rng, uint32_t bound) {
  return static_cast<uint32_t>((uint64_t{rng.next_u32()} * bound) >> 32);
}

// Random keys; half of the buckets are the hash of one of the items (so supports are not all
// near n / g), a few are out of range (>= g: they support nothing), the rest uniform in [0, g).
reports random_reports(ldp::random::drbg& rng, std::size_t n, uint32_t g, const std::vector<uint32_t>& items) {
  reports r;
  for (std::size_t u = 0; u < n; ++u) {
    const ldp::wire::hash_key key{rng.next_u64(), rng.next_u64()};
    uint32_t y = below(rng, g);
    const uint32_t kind = below(rng, 16);
    if (kind < 8 && !items.empty()) {
      y = ldp::wire::hash_to_range(key, items[below(rng, static_cast<uint32_t>(items.size()))], g);
    } else if (kind == 8) {
      y = g + below(rng, 4);
    }
    r.a.push_back(key.a);
    r.b.push_back(key.b);
    r.bucket.push_back(y);
  }
  return r;
}

std::vector<uint32_t> random_items(ldp::random::drbg& rng, std::size_t n) {
  std::vector<uint32_t> items(n);
  for (std::size_t i = 0; i < n; ++i) {
    const uint32_t kind = below(rng, 8);
    items[i] = kind == 0 ? 0 : kind == 1 ? ~uint32_t{0} : kind < 4 ? below(rng, 1000) : rng.next_u32();
  }
  if (n > 2) items[n - 1] = items[0];  // a duplicate candidate
  return items;
}

// The definition: support[i] += #{u : hash_to_range((a_u, b_u), items[i], g) == bucket_u}.
std::vector<uint64_t> direct_support(const reports& r, uint32_t g, const std::vector<uint32_t>& items,
                                     std::vector<uint64_t> support) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (std::size_t u = 0; u < r.a.size(); ++u) {
      if (ldp::wire::hash_to_range({r.a[u], r.b[u]}, items[i], g) == r.bucket[u]) ++support[i];
    }
  }
  return support;
}

// Runs one table with two sentinels after the support array.
std::vector<uint64_t> run(const ldp::kernels::table& t, const reports& r, uint32_t g,
                          const std::vector<uint32_t>& items, const std::vector<uint64_t>& start) {
  std::vector<uint64_t> support(start);
  support.push_back(0xdeadbeefu);
  support.push_back(0xfeedfaceu);
  t.olh_support(r.a.data(), r.b.data(), r.bucket.data(), r.a.size(), g, items.data(), items.size(), support.data());
  CHECK(support[items.size()] == 0xdeadbeefu);
  CHECK(support[items.size() + 1] == 0xfeedfaceu);
  support.resize(items.size());
  return support;
}

}  // namespace

TEST_CASE("olh_support: every table equals wire::hash_to_range and the scalar reference") {
  auto rng = ldp::test::seeded_drbg("olh support tables");
  const std::size_t report_counts[] = {0, 1, 7, 64, 1023, 1024, 1025, 2500};
  const std::size_t item_counts[] = {0, 1, 2, 3, 5, 15, 16, 17, 31, 33, 63, 65, 100};
  for (uint32_t g : {2u, 3u, 5u, 1000u, uint32_t{1} << 31}) {
    CAPTURE(g);
    for (std::size_t n : report_counts) {
      CAPTURE(n);
      for (std::size_t d : item_counts) {
        if (n * d > 100000 && d != 17 && d != 100) continue;  // keep the direct loop quick
        CAPTURE(d);
        const auto items = random_items(rng, d);
        const auto r = random_reports(rng, n, g, items);
        std::vector<uint64_t> start(d);
        for (auto& s : start) s = rng.next_u32();
        const auto want = direct_support(r, g, items, start);
        CHECK(run(ldp::kernels::scalar(), r, g, items, start) == want);
        for (const auto* t : ldp::test::runnable_tables()) {
          const std::string name = t->name;
          CAPTURE(name);
          CHECK(run(*t, r, g, items, start) == want);
        }
      }
    }
  }
}

TEST_CASE("olh_support: extreme keys and candidates, every table") {
  // Keys whose halves are 0 or all ones, where the carries of a * v + b are all taken.
  const uint64_t words[] = {0,
                            1,
                            0xffffffffu,
                            uint64_t{1} << 32,
                            0xffffffff00000000u,
                            ~uint64_t{0},
                            0x8000000000000000u,
                            0x7fffffffffffffffu};
  const std::vector<uint32_t> items = {0, 1, 2, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu, 12345, 0xdeadbeefu};
  for (uint32_t g : {2u, 3u, 5u, 1000u, uint32_t{1} << 31}) {
    CAPTURE(g);
    reports r;
    for (uint64_t a : words) {
      for (uint64_t b : words) {
        for (uint32_t v : items) {
          r.a.push_back(a);
          r.b.push_back(b);
          r.bucket.push_back(ldp::wire::hash_to_range({a, b}, v, g));
        }
      }
    }
    const std::vector<uint64_t> start(items.size(), 0);
    const auto want = direct_support(r, g, items, start);
    CHECK(run(ldp::kernels::scalar(), r, g, items, start) == want);
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = t->name;
      CAPTURE(name);
      CHECK(run(*t, r, g, items, start) == want);
    }
  }
}

// The report keys in bulk (kernel_table.h sip_pairs): every table gives wire::report_hash_key of
// each seed, which is SipHash-2-4 under the key "ldpkit olh hash1" of the 9 bytes (seed, 0) and
// (seed, 1), at lengths around the vector widths and with seeds at the extremes.
TEST_CASE("sip_pairs: every table derives wire::report_hash_key of each seed") {
  const unsigned char key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 'o', 'l', 'h', ' ', 'h', 'a', 's', 'h', '1'};
  auto rng = ldp::test::seeded_drbg("olh sip pairs");
  uint64_t start[4];
  ldp::wire::report_hash_start(start);
  for (std::size_t n : {0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 63, 1029}) {
    CAPTURE(n);
    std::vector<uint64_t> seeds(n);
    for (auto& s : seeds) s = rng.next_u64();
    if (n > 2) {
      seeds[0] = 0;
      seeds[1] = ~uint64_t{0};
    }
    std::vector<uint64_t> want_a(n), want_b(n);
    for (std::size_t i = 0; i < n; ++i) {
      unsigned char message[9];
      ldp::store_le64(message, seeds[i]);
      message[8] = 0;
      want_a[i] = ldp::wire::siphash24(key, {message, sizeof message});
      message[8] = 1;
      want_b[i] = ldp::wire::siphash24(key, {message, sizeof message});
      const ldp::wire::hash_key k = ldp::wire::report_hash_key(seeds[i]);
      CHECK(k.a == want_a[i]);
      CHECK(k.b == want_b[i]);
    }
    std::vector<const ldp::kernels::table*> tables = ldp::test::runnable_tables();
    tables.push_back(&ldp::kernels::scalar());
    for (const auto* t : tables) {
      const std::string name = t->name;
      CAPTURE(name);
      std::vector<uint64_t> a(n, 1), b(n, 2);
      t->sip_pairs(start, seeds.data(), n, a.data(), b.data());
      CHECK(a == want_a);
      CHECK(b == want_b);
    }
  }
}
