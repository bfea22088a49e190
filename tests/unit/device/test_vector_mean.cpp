// Device side of vector mean estimation (docs/mechanisms.md B.5, lib/device vector_mean.h): the integer
// L2 clip, the unbiased randomized rounding of the scale, the whole pipeline against an independent
// dense-matrix reference drawing from a copy of the same stream, argument checks, and golden
// report bytes (pinned here, checked natively and under qemu on every architecture and table).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/rotation.h"
#include "ldp/wire.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

const unsigned char rotation_seed[32] = {0x11, 0x22, 0x33};

ldp::wire::params block(mechanism m, uint32_t d, double radius = 1.0, unsigned f = 16, double epsilon = 1.0) {
  const auto made = m == mechanism::vector_duchi
                        ? ldp::wire::make_vector_duchi(d, radius, f, epsilon, 1e-3, rotation_seed)
                        : ldp::wire::make_vector_laplace(d, radius, f, epsilon, 1e-3, rotation_seed);
  REQUIRE(made.code == status::ok);
  return made.block;
}

long double norm2(const std::vector<int32_t>& v) {
  long double s = 0;
  for (int32_t x : v) s += static_cast<long double>(x) * x;
  return s;
}

// A generator that returns chosen 64-bit words (and their halves as 32-bit words).
struct fixed_words {
  std::vector<uint64_t> words;
  std::size_t at = 0;
  uint64_t next_u64() { return words.at(at++); }
  uint32_t next_u32() { return static_cast<uint32_t>(next_u64()); }
};

}  // namespace

TEST_CASE("clip_to_ball: vectors inside the ball are copied exactly, padding is zero") {
  const std::vector<int64_t> x = {3, -4, 0, 12};  // norm 13
  for (int64_t radius : {13, 14, 1000}) {
    std::vector<int32_t> out(8, 77);
    ldp::device::clip_to_ball(x, radius, 3, out);
    CHECK(out == std::vector<int32_t>{3, -4, 0, 12, 0, 0, 0, 0});
  }
  std::vector<int32_t> one(1);
  const std::vector<int64_t> single = {-5};
  ldp::device::clip_to_ball(single, 5, 0, one);
  CHECK(one[0] == -5);
}

TEST_CASE("clip_to_ball: longer vectors end inside the ball, in the same direction") {
  auto rng = ldp::test::seeded_drbg("clip_to_ball outside");
  for (int trial = 0; trial < 2000; ++trial) {
    const unsigned log2_dim = trial % 11;
    const std::size_t dim = std::size_t{1} << log2_dim;
    const std::size_t d = 1 + ldp::random::uniform_below(rng, static_cast<uint32_t>(dim));
    // R with R^2 d~ < 2^62, and coordinates of any size up to the whole int64 range.
    const auto radius_limit = static_cast<uint64_t>(std::sqrt(std::ldexp(1.0, 62 - static_cast<int>(log2_dim)))) - 1;
    const int64_t radius = 1 + static_cast<int64_t>(ldp::random::uniform_below64(rng, radius_limit));
    const unsigned bits = 1 + ldp::random::uniform_below(rng, 63);
    std::vector<int64_t> x(d);
    for (int64_t& v : x) v = static_cast<int64_t>(rng.next_u64()) >> (64 - bits);
    if (trial % 7 == 0) x[0] = std::numeric_limits<int64_t>::min();
    if (trial % 7 == 1) x[d - 1] = std::numeric_limits<int64_t>::max();
    std::vector<int32_t> out(dim, 77);
    ldp::device::clip_to_ball(x, radius, log2_dim, out);
    CAPTURE(trial);
    CAPTURE(radius);
    long double in = 0;
    for (int64_t v : x) in += static_cast<long double>(v) * static_cast<long double>(v);
    const long double r2 = static_cast<long double>(radius) * static_cast<long double>(radius);
    const long double got = norm2(out);
    CHECK(got <= r2);
    for (std::size_t i = d; i < dim; ++i) CHECK(out[i] == 0);
    if (in <= r2) {
      for (std::size_t i = 0; i < d; ++i) CHECK(out[i] == x[i]);
    } else {
      // Each coordinate is x_i R / ||x|| truncated toward zero, up to the relative precision the
      // right shift keeps (at least R's own bits): within 2 grid units plus 2^-20 relative.
      const long double scale = static_cast<long double>(radius) / std::sqrt(in);
      for (std::size_t i = 0; i < d; ++i) {
        const long double want = static_cast<long double>(x[i]) * scale;
        CHECK(std::fabs(static_cast<long double>(out[i]) - want) <= 2 + std::fabs(want) * 1e-6L);
        CHECK((out[i] == 0 || (out[i] < 0) == (x[i] < 0)));
      }
    }
  }
}

TEST_CASE("scale_randomized: floor plus one with probability remainder / 2^shift, exactly") {
  // 13 * 1 / 2^2 = 3.25: up when the top two bits of the word are below 1 (probability 1/4).
  const ldp::wire::rotation_scale quarter{1, 2};
  for (uint64_t top = 0; top < 4; ++top) {
    fixed_words w{{top << 62}};
    CHECK(ldp::device::scale_randomized(13, quarter, w) == (top < 1 ? 4 : 3));
    fixed_words n{{top << 62}};
    // -13 / 4 = -3.25 = -4 + 0.75: up to -3 when the top bits are below 3.
    CHECK(ldp::device::scale_randomized(-13, quarter, n) == (top < 3 ? -3 : -4));
  }
  fixed_words exact{{~uint64_t{0}}};
  CHECK(ldp::device::scale_randomized(-12, quarter, exact) == -3);
  CHECK(exact.at == 1);  // a word is drawn whatever v
  fixed_words none{{}};
  CHECK(ldp::device::scale_randomized(-12, ldp::wire::rotation_scale{1, 0}, none) == -12);
  CHECK(none.at == 0);
  // The odd-dimension scale at the extreme |v| = 2^31 - 1 does not overflow.
  const ldp::wire::rotation_scale odd = ldp::wire::scale_of_rotation(29);
  fixed_words big{{0, 0}};
  const long double want = static_cast<long double>(INT32_MAX) * static_cast<long double>(odd.mult) /
                           std::ldexp(1.0L, static_cast<int>(odd.shift));
  CHECK(std::fabs(static_cast<long double>(ldp::device::scale_randomized(INT32_MAX, odd, big)) - want) <= 1);
  CHECK(std::fabs(static_cast<long double>(ldp::device::scale_randomized(-INT32_MAX, odd, big)) + want) <= 1);
}

TEST_CASE("the pipeline equals a dense reference drawing from a copy of the stream") {
  for (mechanism m : {mechanism::vector_duchi, mechanism::vector_laplace}) {
    for (uint32_t d : {1u, 3u, 8u, 13u, 64u, 100u}) {
      const auto p = block(m, d, 2.0);
      CAPTURE(d);
      const std::string name = ldp::wire::mechanism_name(m);
      CAPTURE(name);
      const auto dim = static_cast<uint32_t>(p.get(field::hadamard_dim));
      const unsigned l = ldp::wire::rotation_log2(p);
      ldp::test::owned_context<ldp::device::vector_mean_context> ctx(p);
      REQUIRE(ctx.code == status::ok);
      CHECK(ctx->fingerprint() == ldp::wire::fingerprint(p));
      const ldp::span<const uint32_t> signs = ctx->signs();
      auto data = ldp::test::seeded_drbg("pipeline data");
      unsigned char seed[32];
      ldp::test::seed_from_name("pipeline stream", seed);
      ldp::random::drbg device_rng(seed), reference_rng(seed);
      for (int trial = 0; trial < 40; ++trial) {
        // Inside the ball (every |x_i| <= R / sqrt(d)), so the reference needs no clip.
        std::vector<int64_t> x(d);
        const int64_t bound = 2 * 65536 / static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(d))));
        for (int64_t& v : x)
          v = static_cast<int64_t>(ldp::random::uniform_below(data, static_cast<uint32_t>(2 * bound + 1))) - bound;
        ldp::wire::report got;
        REQUIRE(ctx->fields(x, device_rng, &got) == status::ok);

        const uint32_t j = ldp::random::uniform_below(reference_rng, dim);
        int64_t v = 0;  // row j of H, with the signs D
        for (uint32_t i = 0; i < d; ++i) {
          const int64_t sign =
              ((ldp::popcount32(i & j) & 1u) != 0 ? -1 : 1) * (((signs[i / 32] >> (i % 32)) & 1u) != 0 ? -1 : 1);
          v += sign * x[i];
        }
        // y = v s: for even L an exact power of two, for odd L the rational 3037000500 / 2^32.
        const ldp::wire::rotation_scale s = ldp::wire::scale_of_rotation(l);
        const long double exact = static_cast<long double>(v) * static_cast<long double>(s.mult) /
                                  std::ldexp(1.0L, static_cast<int>(s.shift));
        const auto down = static_cast<int64_t>(std::floor(exact));
        int64_t y = down;
        if (s.shift > 0) {
          const uint64_t u = reference_rng.next_u64() >> (64 - s.shift);
          const long double fraction = exact - static_cast<long double>(down);
          y += static_cast<long double>(u) < fraction * std::ldexp(1.0L, static_cast<int>(s.shift)) ? 1 : 0;
        }
        CHECK(got.index == j);
        if (m == mechanism::vector_duchi) {
          CHECK(got.bit == ldp::device::duchi_bit(p, y, reference_rng));
        } else {
          CHECK(got.value == ldp::device::laplace_noisy(p, y, reference_rng));
        }
      }
    }
  }
}

TEST_CASE("vector_mean_context: arguments") {
  const auto p = block(mechanism::vector_duchi, 100);
  using ldp::device::framing;
  using ldp::device::vector_mean_context;
  // 4 sign words, then the 128 rotated values.
  CHECK(vector_mean_context::workspace_size(p) == 4 * 4 + 128 * 4);
  std::vector<uint64_t> words(vector_mean_context::workspace_size(p) / 8 + 1);
  const ldp::span<std::byte> workspace(reinterpret_cast<std::byte*>(words.data()), words.size() * 8 - 8);
  vector_mean_context ctx;
  auto rng = ldp::test::seeded_drbg("context arguments");
  std::vector<int64_t> x(100, 1);
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  std::size_t written = 1;
  CHECK(ctx.randomize(x, rng, out, framing::report, &written) == status::invalid_argument);  // before init
  CHECK(written == 0);
  CHECK(vector_mean_context::init(workspace, ldp::test::example_params(mechanism::duchi), &ctx) ==
        status::invalid_argument);
  auto broken = p;
  broken.set_signed(field::radius, 0);
  CHECK(vector_mean_context::init(workspace, broken, &ctx) == status::invalid_parameters);
  CHECK(vector_mean_context::init(workspace.subspan(0, workspace.size() - 1), p, &ctx) == status::workspace_too_small);
  const ldp::span<std::byte> misaligned(workspace.data() + 4, workspace.size());  // inside `words`
  CHECK(vector_mean_context::init(misaligned, p, &ctx) == status::invalid_argument);
  CHECK(ctx.randomize(x, rng, out, framing::report, &written) == status::invalid_argument);  // a failed init
  REQUIRE(vector_mean_context::init(workspace, p, &ctx) == status::ok);
  CHECK(ctx.randomize(ldp::span<const int64_t>(x.data(), 99), rng, out, framing::report, &written) ==
        status::invalid_argument);
  CHECK(ctx.randomize(x, rng, ldp::span<unsigned char>(out.data(), out.size() - 1), framing::report, &written) ==
        status::buffer_too_small);
  CHECK(ctx.randomize(x, rng, out, framing::report, &written) == status::ok);
  CHECK(written == out.size());  // 10-byte header, index(128) and the bit: 12 bytes
  CHECK(written == 12);
  ldp::wire::report r;
  CHECK(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), ldp::span<const unsigned char>(out.data(), written),
                                 &r) == status::ok);
  CHECK(ctx.randomize(x, rng, out, framing::payload, &written) == status::ok);
  CHECK(written == 2);
}

TEST_CASE("golden report bytes, on every table") {
  const struct {
    mechanism m;
    uint32_t d;
    uint64_t expected;
  } golden[] = {
      {mechanism::vector_duchi, 100, 0xb8b4bf3d12c5f406u},
      {mechanism::vector_duchi, 1000, 0xf1e49180238d281eu},
      {mechanism::vector_laplace, 100, 0x29fe89904133ba0cu},
      {mechanism::vector_laplace, 1000, 0x83ff851367fd5e2cu},
  };
  for (const auto& g : golden) {
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = ldp::wire::mechanism_name(g.m), table_name = t->name;
      CAPTURE(name);
      CAPTURE(table_name);
      CAPTURE(g.d);
      const auto p = block(g.m, g.d, 1.5, 20, 2.0);
      std::vector<std::byte> workspace(ldp::device::vector_mean_context::workspace_size(p));
      ldp::device::vector_mean_context ctx;
      REQUIRE(ldp::device::vector_mean_context::init(workspace, p, &ctx, *t) == status::ok);
      auto rng = ldp::test::seeded_drbg("vector mean golden", *t);
      auto data = ldp::test::seeded_drbg("vector mean golden data", *t);
      std::vector<unsigned char> out(ldp::wire::max_report_size(p));
      std::vector<int64_t> x(g.d);
      uint64_t h = 0xcbf29ce484222325u;
      for (int i = 0; i < 200; ++i) {
        // Vectors inside and (every third) far outside the ball.
        for (int64_t& v : x) v = static_cast<int64_t>(data.next_u64()) >> (i % 3 == 0 ? 20 : 44);
        std::size_t size = 0;
        REQUIRE(ctx.randomize(x, rng, out, ldp::device::framing::report, &size) == status::ok);
        for (std::size_t b = 0; b < size; ++b) h = (h ^ out[b]) * 0x100000001b3u;
      }
      CHECK(h == g.expected);
    }
  }
}
