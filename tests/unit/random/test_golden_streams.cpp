// Golden digests: the same seed must give the same bytes on every architecture and kernel table
// (x86 natively; aarch64, armhf and riscv64 under qemu in CI). The digests were recorded from the
// scalar reference on x86-64, whose ChaCha20 is pinned by the RFC 8439 vectors in test_chacha20;
// a platform that differs anywhere in the chain (endianness, SIMD lane order, sampler arithmetic,
// buffering of the DRBG) fails here.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ldp/random.h"
#include "tables.h"

namespace {

constexpr uint64_t golden_drbg = 0x193480823d88050cu;
constexpr uint64_t golden_mask = 0x3b83b5b6325e72eu;
constexpr uint64_t golden_samplers = 0xc09cb21b6ecca042u;

struct fnv1a {
  uint64_t h = 0xcbf29ce484222325u;
  void add(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3u;
  }
};

uint64_t drbg_digest(const ldp::kernels::table& t) {
  auto rng = ldp::test::seeded_drbg("golden drbg", t);
  std::vector<unsigned char> bytes(5000);
  rng.fill(bytes);
  fnv1a f;
  for (unsigned char b : bytes) f.add(b, 1);
  for (int i = 0; i < 100; ++i) f.add(rng.next_u64(), 8);
  return f.h;
}

uint64_t mask_digest(const ldp::kernels::table& t) {
  auto rng = ldp::test::seeded_drbg("golden mask", t);
  fnv1a f;
  for (uint64_t threshold : {uint64_t{429496730}, uint64_t{77309411}, uint64_t{1} << 31}) {
    std::vector<uint64_t> mask(157);
    REQUIRE(ldp::random::fill_bernoulli_mask(rng, mask, 10000, threshold) == ldp::status::ok);
    for (uint64_t w : mask) f.add(w, 8);
  }
  return f.h;
}

uint64_t sampler_digest(const ldp::kernels::table& t) {
  auto rng = ldp::test::seeded_drbg("golden samplers", t);
  fnv1a f;
  for (int i = 0; i < 1000; ++i) {
    f.add(ldp::random::uniform_below(rng, 1000), 4);
    f.add(ldp::random::uniform_below64(rng, (uint64_t{1} << 40) + 7), 8);
    f.add(ldp::random::bern_exp(rng, 1, 3), 1);
    f.add(ldp::random::geometric(rng, 5, 2), 8);
    f.add(static_cast<uint64_t>(ldp::random::discrete_laplace(rng, 3 * 65536, 65536)), 8);
  }
  return f.h;
}

}  // namespace

TEST_CASE("golden digests of DRBG, masks and samplers on every table") {
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    CHECK(drbg_digest(*t) == golden_drbg);
    CHECK(mask_digest(*t) == golden_mask);
    CHECK(sampler_digest(*t) == golden_samplers);
  }
}
