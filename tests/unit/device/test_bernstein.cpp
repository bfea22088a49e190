// The device half of the local Bernstein mechanism (ldp/device/bernstein.h, docs/mechanisms.md H.1):
// the N losses in grid order (wire::grid_point, wire::loss_value), the randomized rounding to Q = 2^f
// decided by chosen words at its exact threshold, one word per coordinate, the caller loss clamped,
// NaN refused before anything is drawn, the argument checks, and report digests pinned on every
// kernel table (this test runs under qemu too: devices of every architecture send the same bytes).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "tables.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::loss_kind;

namespace {

// Words chosen by the test (the same word every time), counting the draws.
struct fixed_words {
  uint64_t word = 0;
  uint64_t draws = 0;
  uint64_t next_u64() noexcept {
    ++draws;
    return word;
  }
  uint32_t next_u32() noexcept { return static_cast<uint32_t>(next_u64() >> 32); }
};

ldp::wire::params block(uint32_t p, uint32_t k, loss_kind loss, unsigned f) {
  const auto d = ldp::wire::make_bernstein(p, k, loss, f, 1.0);
  REQUIRE(d.code == status::ok);
  return d.block;
}

// floor(ell 2^62), the Q62 value the rounding starts from (H.1).
uint64_t q62(double ell) { return static_cast<uint64_t>(std::ldexp(ell, 62)); }

}  // namespace

TEST_CASE("the values are the losses at the grid points in wire::grid_point order, rounded down or up") {
  const double x[2] = {0.3, 0.85};
  for (loss_kind kind : {loss_kind::squared, loss_kind::logistic, loss_kind::hinge}) {
    const auto p = block(2, 3, kind, 12);
    const unsigned s = 62 - 12;
    for (double y : {0.0, 1.0}) {
      std::vector<int64_t> down(16), up(16);
      fixed_words never{~uint64_t{0}}, always{0};  // u = 2^s - 1 is never below the remainder; u = 0 always
      REQUIRE(ldp::device::builtin_loss_values(p, ldp::span<const double>(x), y, never, ldp::span<int64_t>(down)) ==
              status::ok);
      REQUIRE(ldp::device::builtin_loss_values(p, ldp::span<const double>(x), y, always, ldp::span<int64_t>(up)) ==
              status::ok);
      CHECK(never.draws == 16);  // one word per coordinate, whatever the value
      CHECK(always.draws == 16);
      for (std::size_t l = 0; l < 16; ++l) {
        double w[2];
        ldp::wire::grid_point(2, 3, l, w);
        const uint64_t v = q62(ldp::wire::loss_value(kind, w, x, 2, y));
        CAPTURE(l);
        CHECK(down[l] == static_cast<int64_t>(v >> s));
        CHECK(up[l] == static_cast<int64_t>((v >> s) + ((v & ((uint64_t{1} << s) - 1)) != 0 ? 1 : 0)));
        CHECK(up[l] <= 4096);
      }
    }
  }
}

TEST_CASE("the rounding goes up exactly when the top 62 - f bits of the word are below the remainder") {
  // p = 1, k = 1, squared, f = 2: at w = 0 (theta = -1), x = 0.5, y = 0.3 the loss is 0.8^2 / 4 = 0.16,
  // 0.64 of a unit of Q = 4: down to 0 or up to 1.
  const auto p = block(1, 1, loss_kind::squared, 2);
  const double x[1] = {0.5};
  const unsigned s = 60;
  const uint64_t v = q62(ldp::wire::loss_value(loss_kind::squared, std::vector<double>{0.0}.data(), x, 1, 0.3));
  const uint64_t remainder = v & ((uint64_t{1} << s) - 1);
  REQUIRE((v >> s) == 0);
  REQUIRE(remainder > 0);
  std::vector<int64_t> out(2);
  fixed_words below{(remainder - 1) << (64 - s)}, at{remainder << (64 - s)};
  REQUIRE(ldp::device::builtin_loss_values(p, ldp::span<const double>(x), 0.3, below, ldp::span<int64_t>(out)) ==
          status::ok);
  CHECK(out[0] == 1);
  REQUIRE(ldp::device::builtin_loss_values(p, ldp::span<const double>(x), 0.3, at, ldp::span<int64_t>(out)) ==
          status::ok);
  CHECK(out[0] == 0);
  // The low 64 - s bits of the word do not count: only the top s bits are the uniform.
  fixed_words low_bits{((remainder - 1) << (64 - s)) | 0xf};
  REQUIRE(ldp::device::builtin_loss_values(p, ldp::span<const double>(x), 0.3, low_bits, ldp::span<int64_t>(out)) ==
          status::ok);
  CHECK(out[0] == 1);
}

TEST_CASE("a caller loss: called at every grid point in order, clamped to [0, 1]") {
  const auto p = block(2, 2, loss_kind::caller, 8);
  std::vector<double> seen;
  const auto loss = [&](const double* w) {
    seen.push_back(w[0]);
    seen.push_back(w[1]);
    const double values[9] = {2.0, -3.0, std::numeric_limits<double>::infinity(), 0.5, 1.0, 0.0, 0.25, -0.0, 0.75};
    return values[seen.size() / 2 - 1];
  };
  fixed_words never{~uint64_t{0}};
  std::vector<int64_t> out(9);
  REQUIRE(ldp::device::caller_loss_values(p, loss, never, ldp::span<int64_t>(out)) == status::ok);
  CHECK(out == std::vector<int64_t>{256, 0, 256, 128, 256, 0, 64, 0, 192});
  REQUIRE(seen.size() == 18);
  for (std::size_t l = 0; l < 9; ++l) {
    double w[2];
    ldp::wire::grid_point(2, 2, l, w);
    CHECK(seen[2 * l] == w[0]);
    CHECK(seen[2 * l + 1] == w[1]);
  }
}

TEST_CASE("a NaN loss, feature or label is invalid_argument before anything is drawn") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto builtin = block(2, 3, loss_kind::logistic, 16);
  std::vector<int64_t> out(16);
  fixed_words rng;
  const double bad_x[2] = {0.5, nan}, good_x[2] = {0.5, 0.5};
  CHECK(ldp::device::builtin_loss_values(builtin, ldp::span<const double>(bad_x), 1.0, rng, ldp::span<int64_t>(out)) ==
        status::invalid_argument);
  CHECK(ldp::device::builtin_loss_values(builtin, ldp::span<const double>(good_x), nan, rng, ldp::span<int64_t>(out)) ==
        status::invalid_argument);
  const auto caller = block(2, 3, loss_kind::caller, 16);
  int calls = 0;
  const auto late_nan = [&](const double*) { return ++calls == 16 ? nan : 0.5; };
  CHECK(ldp::device::caller_loss_values(caller, late_nan, rng, ldp::span<int64_t>(out)) == status::invalid_argument);
  CHECK(calls == 16);
  CHECK(rng.draws == 0);
}

TEST_CASE("the argument checks: the block's loss decides the entry point, and the sizes") {
  const auto builtin = block(2, 3, loss_kind::squared, 16), caller = block(2, 3, loss_kind::caller, 16);
  const double x[2] = {0.5, 0.5}, x3[3] = {0.5, 0.5, 0.5};
  const auto half = [](const double*) { return 0.5; };
  std::vector<int64_t> out(16), short_out(15);
  fixed_words rng;
  using ldp::device::builtin_loss_values;
  using ldp::device::caller_loss_values;
  CHECK(builtin_loss_values(builtin, ldp::span<const double>(x), 1.0, rng, ldp::span<int64_t>(out)) == status::ok);
  CHECK(caller_loss_values(caller, half, rng, ldp::span<int64_t>(out)) == status::ok);
  rng.draws = 0;
  CHECK(builtin_loss_values(caller, ldp::span<const double>(x), 1.0, rng, ldp::span<int64_t>(out)) ==
        status::invalid_argument);
  CHECK(caller_loss_values(builtin, half, rng, ldp::span<int64_t>(out)) == status::invalid_argument);
  CHECK(builtin_loss_values(builtin, ldp::span<const double>(x3), 1.0, rng, ldp::span<int64_t>(out)) ==
        status::invalid_argument);
  CHECK(builtin_loss_values(builtin, ldp::span<const double>(x), 1.0, rng, ldp::span<int64_t>(short_out)) ==
        status::invalid_argument);
  CHECK(caller_loss_values(ldp::wire::make_laplace_vector(16, 0.0, 1.0, 16, 1.0).block, half, rng,
                           ldp::span<int64_t>(out)) == status::invalid_argument);
  ldp::wire::params broken = builtin;
  broken.set(field::domain, 15);
  CHECK(builtin_loss_values(broken, ldp::span<const double>(x), 1.0, rng, ldp::span<int64_t>(out)) ==
        status::invalid_parameters);
  CHECK(rng.draws == 0);
  CHECK(ldp::device::bernstein_value_count(builtin) == 16);
  CHECK(ldp::device::bernstein_value_count(ldp::wire::make_laplace_vector(16, 0.0, 1.0, 16, 1.0).block) == 0);
}

TEST_CASE("randomize_bernstein: a laplace-vector report of the N values; digests pinned on every table") {
  const auto builtin = block(2, 3, loss_kind::logistic, 16);
  const auto caller = block(1, 4, loss_kind::caller, 10);
  const auto quadratic = [](const double* w, uint32_t, const void* user) noexcept {
    const double c = *static_cast<const double*>(user);
    return (w[0] - c) * (w[0] - c);
  };
  for (const auto* t : ldp::test::runnable_tables()) {
    const std::string table_name = t->name;
    CAPTURE(table_name);
    auto rng = ldp::test::seeded_drbg("bernstein device golden", *t);
    uint64_t h = 0xcbf29ce484222325u;
    for (const auto& p : {builtin, caller}) {
      ldp::test::owned_context<ldp::device::vector_mean_context> c(p);
      REQUIRE(c.code == status::ok);
      std::vector<int64_t> values(ldp::device::bernstein_value_count(p)), decoded(values.size());
      std::vector<unsigned char> out(ldp::wire::max_report_size(p));
      for (int i = 0; i < 50; ++i) {
        std::size_t size = 0;
        const double x[2] = {0.02 * i, 1 - 0.015 * i}, centre = 0.02 * i;
        const status s = p.get(field::loss) == 0
                             ? ldp::device::randomize_bernstein(c.context, quadratic, &centre, values, rng, out,
                                                                ldp::device::framing::report, &size)
                             : ldp::device::randomize_bernstein(c.context, ldp::span<const double>(x), i % 2, values,
                                                                rng, out, ldp::device::framing::report, &size);
        REQUIRE(s == status::ok);
        ldp::wire::report r;
        REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), ldp::span<const unsigned char>(out.data(), size),
                                         &r) == status::ok);
        REQUIRE(ldp::wire::read_vector(r, decoded) == status::ok);
        for (std::size_t b = 0; b < size; ++b) h = (h ^ out[b]) * 0x100000001b3u;
      }
    }
    CHECK(h == 0x72e4ac7b4cc4df78u);
  }
}
