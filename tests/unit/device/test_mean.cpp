// Device side of the scalar numeric mechanisms (docs/mechanisms.md B.1, B.2): reports that decode under
// their block, clamping (the noise does not depend on the input, so one seed gives reports that
// differ by exactly the clamped inputs' difference), Duchi's comparison of a uniform with N(x) fed
// chosen words, argument errors, and golden digests pinned on every architecture.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

using ldp::device::framing;

// One output through a fresh context (ldp::test::randomize_once).
template <class Input>
status mean_once(const ldp::wire::params& p, Input x, ldp::random::drbg& rng, ldp::span<unsigned char> out, framing f,
                 std::size_t* size) {
  return ldp::test::randomize_once<ldp::device::mean_context>(p, x, rng, out, f, size);
}
template <class Input>
status vector_once(const ldp::wire::params& p, const Input& x, ldp::random::drbg& rng, ldp::span<unsigned char> out,
                   framing f, std::size_t* size) {
  return ldp::test::randomize_once<ldp::device::vector_mean_context>(p, ldp::span<const int64_t>(x), rng, out, f, size);
}

// A generator that hands out given 64-bit words (and their low halves as 32-bit words).
struct scripted_rng {
  std::vector<uint64_t> words;
  std::size_t at = 0;
  uint64_t next_u64() { return words.at(at++); }
  uint32_t next_u32() { return static_cast<uint32_t>(next_u64()); }
};

int64_t laplace_report(const ldp::wire::params& p, int64_t x, const char* seed_name) {
  auto rng = ldp::test::seeded_drbg(seed_name);
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  std::size_t size = 0;
  REQUIRE(mean_once(p, x, rng, out, framing::report, &size) == status::ok);
  ldp::wire::report r;
  REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), ldp::span<const unsigned char>(out.data(), size),
                                   &r) == status::ok);
  return r.value;
}

uint8_t duchi_report(const ldp::wire::params& p, int64_t x, ldp::random::drbg& rng) {
  unsigned char out[ldp::wire::report_header_size + 1];
  std::size_t size = 0;
  REQUIRE(mean_once(p, x, rng, out, framing::report, &size) == status::ok);
  REQUIRE(size == sizeof out);
  ldp::wire::report r;
  REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), out, &r) == status::ok);
  return r.bit;
}

}  // namespace

TEST_CASE("Laplace: one seed, two inputs: the reports differ by the clamped inputs' difference") {
  for (const auto& derived :
       {ldp::wire::make_laplace(-1.0, 1.0, 16, 1.0), ldp::wire::make_laplace(0.0, 100.0, 4, 0.5)}) {
    REQUIRE(derived.code == status::ok);
    const auto& p = derived.block;
    const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
    for (int i = 0; i < 50; ++i) {
      const std::string seed = "laplace shift " + std::to_string(i);
      const int64_t at_lo = laplace_report(p, lo, seed.c_str());
      CHECK(laplace_report(p, hi, seed.c_str()) - at_lo == hi - lo);
      CHECK(laplace_report(p, lo + 7, seed.c_str()) - at_lo == 7);
      CHECK(laplace_report(p, hi + 1000, seed.c_str()) - at_lo == hi - lo);  // clamped
      CHECK(laplace_report(p, INT64_MIN, seed.c_str()) == at_lo);
    }
  }
}

TEST_CASE("kent-refine clamps to the broadcast interval, not the observation range") {
  auto p = ldp::test::example_params(mechanism::kent_refine);
  REQUIRE(ldp::wire::validate(p) == status::ok);
  const int64_t lo = p.get_signed(field::interval_lo), hi = p.get_signed(field::interval_hi);
  for (int i = 0; i < 20; ++i) {
    const std::string seed = "refine " + std::to_string(i);
    const int64_t at_lo = laplace_report(p, lo, seed.c_str());
    CHECK(laplace_report(p, lo - 5000, seed.c_str()) == at_lo);
    CHECK(laplace_report(p, hi + 5000, seed.c_str()) - at_lo == hi - lo);
  }
}

TEST_CASE("laplace-vector: each coordinate is clamped and noised, the payload decodes to d values") {
  const auto derived = ldp::wire::make_laplace_vector(4, -1.0, 1.0, 12, 2.0);
  REQUIRE(derived.code == status::ok);
  const auto& p = derived.block;
  const int64_t one = 4096;
  const std::vector<int64_t> low = {-one, -one, -one, -one}, x = {-one, 5 * one, 0, one / 2};
  CHECK(ldp::device::vector_mean_context::workspace_size(p) == 4 * sizeof(int64_t));
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  const auto noisy = [&](const std::vector<int64_t>& in) {
    auto rng = ldp::test::seeded_drbg("laplace vector");
    std::size_t size = 0;
    REQUIRE(vector_once(p, in, rng, out, framing::report, &size) == status::ok);
    ldp::wire::report r;
    REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), ldp::span<const unsigned char>(out.data(), size),
                                     &r) == status::ok);
    std::vector<int64_t> values(4);
    REQUIRE(r.count == 4);
    REQUIRE(ldp::wire::read_vector(r, values) == status::ok);
    return values;
  };
  const auto a = noisy(low), b = noisy(x);
  CHECK(b[0] - a[0] == 0);
  CHECK(b[1] - a[1] == 2 * one);  // 5 clamped to 1
  CHECK(b[2] - a[2] == one);
  CHECK(b[3] - a[3] == one + one / 2);
  // Payload only, and the argument checks.
  auto rng = ldp::test::seeded_drbg("laplace vector payload");
  std::size_t size = 0;
  CHECK(vector_once(p, x, rng, out, framing::payload, &size) == status::ok);
  ldp::wire::report r;
  CHECK(ldp::wire::decode_payload(p, ldp::span<const unsigned char>(out.data(), size), &r) == status::ok);
  ldp::device::vector_mean_context context;
  alignas(8) std::byte workspace[4 * sizeof(int64_t) + 8];
  CHECK(ldp::device::vector_mean_context::init({workspace, 3 * sizeof(int64_t)}, p, &context) ==
        status::workspace_too_small);
  CHECK(ldp::device::vector_mean_context::init({workspace + 4, 4 * sizeof(int64_t)}, p, &context) ==
        status::invalid_argument);  // not on workspace_alignment
  CHECK(context.randomize(x, rng, out, framing::report, &size) == status::invalid_argument);
  REQUIRE(ldp::device::vector_mean_context::init(workspace, p, &context) == status::ok);
  const std::vector<int64_t> small(3);
  CHECK(context.randomize(small, rng, out, framing::report, &size) == status::invalid_argument);
  const auto scalar = ldp::wire::make_laplace(-1.0, 1.0, 12, 2.0).block;
  CHECK(ldp::device::vector_mean_context::init(workspace, scalar, &context) == status::invalid_argument);
  CHECK(size == 0);
}

TEST_CASE("Duchi: b = [u < N(x)] with u the uniform drawn from the generator's words") {
  for (unsigned f : {3u, 16u, 31u}) {
    CAPTURE(f);
    const auto derived = ldp::wire::make_duchi(-1.0, 1.0, f, 1.5);
    REQUIRE(derived.code == status::ok);
    const auto& p = derived.block;
    // D = 2^(32 + f + 1): u is the top 33 + f bits of one 64-bit word (f = 31: the whole word).
    const unsigned shift = 64 - (33 + f);
    const int64_t one = int64_t{1} << f;
    for (int64_t x : {-one, -one + 1, int64_t{0}, one / 3, one}) {
      const uint64_t n = ldp::wire::duchi_threshold(p, x);
      scripted_rng below{{(n - 1) << shift}}, at{{n << shift}}, zero{{0}}, top{{~uint64_t{0}}};
      CHECK(ldp::device::duchi_bit(p, x, below) == 1);
      CHECK(ldp::device::duchi_bit(p, x, at) == 0);
      CHECK(ldp::device::duchi_bit(p, x, zero) == 1);  // N >= T_lo Q > 0
      CHECK(ldp::device::duchi_bit(p, x, top) == 0);   // N <= T_hi Q < 2^w Q
      CHECK(below.at == 1);                            // one word per report, whatever x is
    }
  }
}

TEST_CASE("Duchi: with one seed the bit is monotone in x, and reports decode") {
  const auto p = ldp::wire::make_duchi(0.0, 10.0, 8, 1.0).block;
  const int64_t lo = 0, hi = 2560;
  uint64_t ones_lo = 0, ones_hi = 0;
  for (int i = 0; i < 200; ++i) {
    const std::string seed = "duchi monotone " + std::to_string(i);
    uint8_t previous = 0;
    for (int64_t x : {lo - 5, lo, int64_t{700}, int64_t{1280}, int64_t{2000}, hi, hi + 5}) {
      auto rng = ldp::test::seeded_drbg(seed.c_str());
      const uint8_t b = duchi_report(p, x, rng);
      CHECK(b >= previous);
      previous = b;
      ones_lo += x == lo ? b : 0;
      ones_hi += x == hi ? b : 0;
    }
  }
  CHECK(ones_lo < ones_hi);
}

TEST_CASE("randomize_value: argument and block errors draw nothing and write nothing") {
  auto rng = ldp::test::seeded_drbg("numeric errors");
  std::vector<unsigned char> out(64);
  std::size_t size = 7;
  const auto grr = ldp::wire::make_grr(1.0, 10).block;
  CHECK(mean_once(grr, 0, rng, out, framing::report, &size) == status::invalid_argument);
  CHECK(size == 0);
  const auto vec = ldp::wire::make_laplace_vector(2, 0.0, 1.0, 8, 1.0).block;
  CHECK(mean_once(vec, 0, rng, out, framing::report, &size) == status::invalid_argument);
  auto broken = ldp::wire::make_laplace(0.0, 1.0, 8, 1.0).block;
  broken.set(field::scale_num, 0);
  CHECK(mean_once(broken, 0, rng, out, framing::report, &size) == status::invalid_parameters);
  auto duchi = ldp::wire::make_duchi(0.0, 1.0, 8, 1.0).block;
  CHECK(mean_once(duchi, 0, rng, ldp::span<unsigned char>(out.data(), 10), framing::report, &size) ==
        status::buffer_too_small);
  CHECK(mean_once(duchi, 0, rng, out, framing::payload, &size) == status::ok);
  CHECK(size == 1);
  duchi.set(field::threshold_other, duchi.get(field::threshold_other) + 1);  // T_lo + T_hi != 2^32
  CHECK(mean_once(duchi, 0, rng, out, framing::payload, &size) == status::invalid_parameters);
}

TEST_CASE("golden report digests of the numeric mechanisms, on every table") {
  const auto digest = [](const ldp::wire::params& p, const ldp::kernels::table& t) {
    auto rng = ldp::test::seeded_drbg("numeric golden", t);
    std::vector<unsigned char> out(ldp::wire::max_report_size(p));
    const int64_t lo = ldp::wire::range_of(p).lo;
    const auto q = static_cast<int64_t>(ldp::wire::range_width(p));
    uint64_t h = 0xcbf29ce484222325u;
    for (int64_t i = 0; i < 300; ++i) {
      std::size_t size = 0;
      const int64_t x = lo + (i * 7919) % (q + 1);
      const std::vector<int64_t> v = {x, lo + q - x, x / 2};
      const status s = p.mech == mechanism::laplace_vector ? vector_once(p, v, rng, out, framing::report, &size)
                                                           : mean_once(p, x, rng, out, framing::report, &size);
      REQUIRE(s == status::ok);
      for (std::size_t b = 0; b < size; ++b) h = (h ^ out[b]) * 0x100000001b3u;
    }
    return h;
  };
  const struct {
    ldp::wire::derived_params derived;
    uint64_t expected;
  } golden[] = {
      {ldp::wire::make_laplace(-1.0, 1.0, 16, 1.0), 0xa350f4a44c8718e5u},
      {ldp::wire::make_laplace(-1e6, 1e6, 20, 0.1), 0xbec417eda6831200u},
      {ldp::wire::make_laplace_vector(3, 0.0, 5.0, 10, 2.0), 0x3c82e6e21438e362u},
      {ldp::wire::make_duchi(-1.0, 1.0, 16, 1.0), 0xd9dbbdbcae360bceu},
      {ldp::wire::make_duchi(0.0, 37.5, 12, 4.0), 0x7d9682e9aeecbbc5u},
  };
  for (const auto& g : golden) {
    REQUIRE(g.derived.code == status::ok);
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = ldp::wire::mechanism_name(g.derived.block.mech), table_name = t->name;
      CAPTURE(name);
      CAPTURE(table_name);
      CHECK(digest(g.derived.block, *t) == g.expected);
    }
  }
}
