// The same seed gives the same report bytes on every kernel table and architecture (issue 4):
// digests of 300 reports per oracle from a fixed seed, pinned here and checked natively and under
// qemu (aarch64, armhf, riscv64, s390x). The unary and sketch oracles exercise the SIMD Bernoulli
// masks; a platform that differs in lane order, endianness, hashing or threshold derivation fails.
#include <doctest/doctest.h>

#include <iterator>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::wire::mechanism;

namespace {

const unsigned char sketch_seed[32] = {0x5a};

// Mixed sizes and epsilons, so that more than one code path of each oracle is pinned.
ldp::wire::params oracle(mechanism m) {
  const bool big = m == mechanism::sue || m == mechanism::oue || m == mechanism::cms || m == mechanism::hcms;
  const double eps = m == mechanism::olh ? 3.0 : (big && m != mechanism::sue) ? 2.0 : 1.0;
  const uint32_t columns = m == mechanism::cms ? 300 : m == mechanism::flh ? 0 : 256;  // FLH: k = 16, optimal g
  return ldp::wire::make_frequency_oracle(m, eps, big ? 1000 : 100, 16, columns, sketch_seed).block;
}

// FNV-1a over the bytes of 300 reports of inputs (i * 37) mod `inputs`; `randomize(context, input, rng,
// out, size)` is the path under test.
template <class Context, class Randomize>
uint64_t digest_of(const ldp::wire::params& p, const ldp::kernels::table& t, uint32_t inputs, Randomize randomize) {
  auto rng = ldp::test::seeded_drbg("device golden", t);
  ldp::test::owned_context<Context> c(p);
  REQUIRE(c.code == ldp::status::ok);
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  uint64_t h = 0xcbf29ce484222325u;
  for (uint32_t i = 0; i < 300; ++i) {
    std::size_t size = 0;
    REQUIRE(randomize(c.context, (i * 37) % inputs, rng, out, &size) == ldp::status::ok);
    for (std::size_t b = 0; b < size; ++b) h = (h ^ out[b]) * 0x100000001b3u;
  }
  return h;
}

uint32_t domain(const ldp::wire::params& p) { return static_cast<uint32_t>(p.get(ldp::wire::field::domain)); }

uint64_t digest(const ldp::wire::params& p, const ldp::kernels::table& t) {
  return digest_of<ldp::device::frequency_context>(
      p, t, domain(p), [](auto& c, uint32_t item, auto& rng, auto& out, auto* size) {
        return c.randomize(item, rng, out, ldp::device::framing::report, size);
      });
}

// Memoized reports (docs/mechanisms.md E): the permanent stage's stream (memo_seed) and the
// instantaneous stage, pinned so that the statistical fleets run on the host only stay valid on
// every target (tests/CMakeLists.txt, "host_scale").
const unsigned char device_secret[ldp::device::device_secret_size] = {0x17, 0x2a, 0x33};

template <class Context>
uint64_t memoized_digest(const ldp::wire::params& p, const ldp::kernels::table& t, uint32_t inputs) {
  return digest_of<Context>(p, t, inputs, [](auto& c, uint32_t item, auto& rng, auto& out, auto* size) {
    return c.randomize_memoized(item, ldp::device::memo_key{device_secret, 7}, rng, out, ldp::device::framing::report,
                                size);
  });
}

}  // namespace

TEST_CASE("golden report digests for every oracle, on every table") {
  const struct {
    mechanism m;
    uint64_t expected;
  } golden[] = {
      {mechanism::grr, 0xabff0e484a03f256u}, {mechanism::sue, 0x464e37cdcc37c43eu},
      {mechanism::oue, 0x6835d328573dc2f2u}, {mechanism::blh, 0x16550d7c3446db23u},
      {mechanism::olh, 0x26968f6e33509becu}, {mechanism::hr, 0x36ef0f4c75e574e3u},
      {mechanism::cms, 0xc07741c279d405cbu}, {mechanism::hcms, 0xd9693d633744eec2u},
      {mechanism::flh, 0x51b1797b0749b543u},
  };
  for (const auto& g : golden) {
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string oracle_name = ldp::wire::mechanism_name(g.m), table_name = t->name;
      CAPTURE(oracle_name);
      CAPTURE(table_name);
      CHECK(digest(oracle(g.m), *t) == g.expected);
    }
  }
}

TEST_CASE("golden report digest of the block HR, on every table (docs/mechanisms.md A.5)") {
  // epsilon 4, d = 100: make_hr's choice, K = 4 and B = 34 blocks (the third coin, the half outside
  // C_v, is drawn only with B >= 2).
  const auto p = ldp::wire::make_hr(4.0, 100).block;
  REQUIRE(p.get(ldp::wire::field::hadamard_dim) == 4);
  REQUIRE(ldp::wire::hr_blocks(p) == 34);
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    CHECK(digest(p, *t) == 0xf3ea15c508919071u);
  }
}

TEST_CASE("golden digests of memoized reports, on every table (docs/mechanisms.md E.1, E.2)") {
  const struct {
    mechanism m;
    uint64_t expected;
  } golden[] = {
      {mechanism::sue, 0x5315a6c1db06a30fu},
      {mechanism::oue, 0xf0f484d581f62c65u},
      {mechanism::blh, 0x6e50a2eebe5ffedfu},
      {mechanism::olh, 0x441ec083e5a30419u},
  };
  REQUIRE(ldp::test::memoized_oracles().size() == std::size(golden));
  for (const auto& g : golden) {
    const auto memo = ldp::wire::make_memoized_oracle(g.m, 4.0, 1.0, 40);
    REQUIRE(memo.code == ldp::status::ok);
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string oracle_name = ldp::wire::mechanism_name(g.m), table_name = t->name;
      CAPTURE(oracle_name);
      CAPTURE(table_name);
      CHECK(memoized_digest<ldp::device::frequency_context>(memo.block, *t, domain(memo.block)) == g.expected);
    }
  }
  // Memoized duchi: alpha-point rounding on a grid of 16 points, output flip 0.1, every grid input of
  // [0, 100] with 8 fraction bits.
  const auto duchi = ldp::wire::make_memoized_duchi(0, 100, 8, 1.0, 16, 0.1);
  REQUIRE(duchi.code == ldp::status::ok);
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    CHECK(memoized_digest<ldp::device::mean_context>(duchi.block, *t, (100u << 8) + 1) == 0xf39e18b77b9dd3cfu);
  }
}

// 300 unit-vector reports of d = 6 inputs spread over the ball and past it (clipped).
template <class Context>
uint64_t unit_vector_digest(const ldp::wire::params& p, const ldp::kernels::table& t) {
  return digest_of<Context>(p, t, 997, [](auto& c, uint32_t input, auto& rng, auto& out, auto* size) {
    const int64_t a = int64_t{input} * 263 - 131072;
    const int64_t x[6] = {a, -a / 3, int64_t{input} << 8, 0, 1 - a, a % 4096};
    return c.randomize(ldp::span<const int64_t>(x, 6), rng, out, ldp::device::framing::report, size);
  });
}

TEST_CASE("golden digests of the unit-vector family, on every table (docs/mechanisms.md B.6-B.8)") {
  // d = 6, R = 2 with 16 fraction bits, epsilon 2; the projected members in k = 4 dimensions.
  const struct {
    ldp::wire::derived_params block;
    uint64_t expected;
  } golden[] = {
      {ldp::wire::make_l2_ball(6, 2.0, 16, 2.0), 0x4729aa2c2967ff00u},
      {ldp::wire::make_privunitg(6, 2.0, 16, 2.0), 0xa53037f70408b5ebu},
      {ldp::wire::make_projunit(6, 4, 2.0, 16, 2.0), 0x8489ae1aadb8120du},
      {ldp::wire::make_fastprojunit(6, 4, 2.0, 16, 2.0), 0x6483dec8c5bf0b09u},
  };
  for (const auto& g : golden) {
    REQUIRE(g.block.code == ldp::status::ok);
    const ldp::wire::params& p = g.block.block;
    const bool projected = p.mech == mechanism::projunit || p.mech == mechanism::fastprojunit;
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = ldp::wire::mechanism_name(p.mech), table_name = t->name;
      CAPTURE(name);
      CAPTURE(table_name);
      CHECK((projected ? unit_vector_digest<ldp::device::projected_unit_context>(p, *t)
                       : unit_vector_digest<ldp::device::unit_vector_context>(p, *t)) == g.expected);
    }
  }
}

// 300 string reports of a list of words of 1..8 bytes (docs/mechanisms.md F.1): the group draw, the
// SipHash derivations of lib/wire and the inner OLH, HCMS (threshold pruning's oracle) and CMS
// (SFP's; its mask is SIMD).
TEST_CASE("golden digests of the string-discovery family, on every table (docs/mechanisms.md F)") {
  static const char* const words[] = {"the", "of",       "a",       "heavy", "hitter", "strings",
                                      "x",   "zyzzyvas", "fortune", "open",  "domain", "q"};
  const struct {
    ldp::wire::derived_params block;
    uint64_t expected;
  } golden[] = {
      {ldp::wire::make_pem(2.0, 8, 4, 1u << 20), 0x36d66b43cad86d96u},
      {ldp::wire::make_treehist(1.0, 8, 8, 16, 256, sketch_seed), 0x07fb032482f81cecu},
      {ldp::wire::make_sfp(2.0, 8, 16, 300, sketch_seed), 0x8c831ddc17a5eff4u},
  };
  for (const auto& g : golden) {
    REQUIRE(g.block.code == ldp::status::ok);
    const ldp::wire::params& p = g.block.block;
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = ldp::wire::mechanism_name(p.mech), table_name = t->name;
      CAPTURE(name);
      CAPTURE(table_name);
      const uint64_t h = digest_of<ldp::device::string_context>(
          p, *t, static_cast<uint32_t>(std::size(words)),
          [](auto& c, uint32_t input, auto& rng, auto& out, auto* size) {
            const std::string word = words[input];
            return c.randomize({reinterpret_cast<const unsigned char*>(word.data()), word.size()}, rng, out,
                               ldp::device::framing::report, size);
          });
      CHECK(h == g.expected);
    }
  }
}

TEST_CASE("golden digests of the distribution family, on every table (docs/mechanisms.md G)") {
  // Values (input - 100) * 3000 on the grid of f = 16: below, across and above [-10, 30].
  const struct {
    ldp::wire::derived_params block;
    uint64_t expected;
  } golden[] = {
      {ldp::wire::make_square_wave(1.0, 1024, -10, 30, 16), 0x738a3baf3e13403fu},
      {ldp::wire::make_hierarchical(2.0, 1024, 0, -10, 30, 16), 0x618a62ce2239ab3bu},
      {ldp::wire::make_haar(1.0, 256, -10, 30, 16), 0x7bcfe61f4b5fd1fau},
  };
  for (const auto& g : golden) {
    REQUIRE(g.block.code == ldp::status::ok);
    const ldp::wire::params& p = g.block.block;
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = ldp::wire::mechanism_name(p.mech), table_name = t->name;
      CAPTURE(name);
      CAPTURE(table_name);
      const uint64_t h = digest_of<ldp::device::distribution_context>(
          p, *t, 1000, [](auto& c, uint32_t input, auto& rng, auto& out, auto* size) {
            const int64_t x = (static_cast<int64_t>(input) - 100) * 3000;
            return c.randomize(x, rng, out, ldp::device::framing::report, size);
          });
      CHECK(h == g.expected);
    }
  }
}
