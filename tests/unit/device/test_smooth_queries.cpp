// Device side of smooth-queries (docs/mechanisms.md H.6, lib/device vector_mean.h): a report is the
// laplace-vector report of the t^p Chebyshev features (same block scale, same stream, same bytes),
// the input is p coordinates, and the exact privacy check: the discrete Laplace level of a pair of
// inputs is ||phi(x) - phi(x')||_1 / t_noise, enumerated over every pair of a small grid.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/device/smooth_queries.h"
#include "ldp/device/vector_mean.h"
#include "ldp/wire.h"
#include "ldp/wire/chebyshev.h"
#include "ldp/wire/smooth_params.h"
#include "tables.h"

using ldp::status;
using ldp::wire::field;
using context = ldp::device::vector_mean_context;

TEST_CASE("a smooth-queries report is laplace-vector's report of the features") {
  // Fails (checked): the noise drawn on x instead of the features, a feature order other than
  // wire::chebyshev_features'.
  constexpr unsigned f = 16;
  for (const auto& [p, t] : std::vector<std::pair<uint32_t, uint32_t>>{{1, 6}, {2, 3}, {3, 4}}) {
    const auto smooth = ldp::wire::make_smooth_queries(p, t, f, 1.5);
    REQUIRE(smooth.code == status::ok);
    const auto n = static_cast<std::size_t>(smooth.block.get(field::domain));
    const auto plain = ldp::wire::make_laplace_vector(static_cast<uint32_t>(n), -1.0, 1.0, f, 1.5);
    REQUIRE(plain.code == status::ok);
    REQUIRE(plain.block.get(field::scale_num) == smooth.block.get(field::scale_num));
    REQUIRE(plain.block.get(field::scale_den) == smooth.block.get(field::scale_den));
    const std::vector<int64_t> all = {-30000, 65536, 4321};
    const std::vector<int64_t> x(all.begin(), all.begin() + p);
    std::vector<int64_t> features(n);
    ldp::wire::chebyshev_features(x, f, t, features);

    ldp::test::owned_context<context> a(smooth.block), b(plain.block);
    REQUIRE(a.code == status::ok);
    REQUIRE(b.code == status::ok);
    ldp::random::drbg ra = ldp::test::seeded_drbg("smooth equals laplace-vector");
    ldp::random::drbg rb = ldp::test::seeded_drbg("smooth equals laplace-vector");
    ldp::wire::report from_smooth, from_plain;
    REQUIRE(ldp::device::smooth_queries_fields(a.context, ldp::span<const int64_t>(x), ra, &from_smooth) == status::ok);
    REQUIRE(b->fields(ldp::span<const int64_t>(features), rb, &from_plain) == status::ok);
    REQUIRE(from_smooth.values.size() == n);
    for (std::size_t l = 0; l < n; ++l) CHECK(from_smooth.values[l] == from_plain.values[l]);

    // The input is p coordinates: any other length is refused before anything is drawn, and the
    // plain vector entry refuses a smooth-queries block.
    ldp::wire::report r;
    CHECK(ldp::device::smooth_queries_fields(a.context, ldp::span<const int64_t>(features.data(), p + 1), ra, &r) ==
          status::invalid_argument);
    CHECK(a->fields(ldp::span<const int64_t>(features), ra, &r) == status::invalid_argument);
    CHECK(ldp::device::smooth_queries_fields(b.context, ldp::span<const int64_t>(x), rb, &r) ==
          status::invalid_argument);
  }
}

TEST_CASE("exact privacy: every pair of grid inputs is within the block's epsilon_impl") {
  // The level of a pair is sum_v |phi_v(x) - phi_v(x')| / t (the discrete Laplace ratio, attained
  // by outputs beyond both features): enumerated over all pairs of 17^2 points of [-1, 1]^2 (every
  // other grid point at f = 4), t = 3.
  // Fails (checked): the sensitivity of laplace-vector's scalar Q without the t^p factor (a scale
  // of Q / epsilon: the features of two inputs differ by up to 6 Q here).
  constexpr unsigned f = 4;
  const auto made = ldp::wire::make_smooth_queries(2, 3, f, 1.0);
  REQUIRE(made.code == status::ok);
  const ldp::wire::params& b = made.block;
  const double t_noise = static_cast<double>(b.get(field::scale_num)) / static_cast<double>(b.get(field::scale_den));
  std::vector<std::vector<int64_t>> phis;
  std::vector<int64_t> phi(9);
  for (int64_t i = -16; i <= 16; i += 2) {
    for (int64_t j = -16; j <= 16; j += 2) {
      const std::vector<int64_t> x = {i, j};
      ldp::wire::chebyshev_features(x, f, 3, phi);
      phis.push_back(phi);
    }
  }
  int64_t widest = 0;
  for (const auto& u : phis) {
    for (const auto& w : phis) {
      int64_t l1 = 0;
      for (std::size_t v = 0; v < u.size(); ++v) l1 += std::llabs(u[v] - w[v]);
      widest = std::max(widest, l1);
    }
  }
  MESSAGE("largest L1 distance of two feature vectors: " << widest << " grid units of the bound "
                                                         << ldp::wire::sensitivity(b));
  CHECK(static_cast<uint64_t>(widest) <= ldp::wire::sensitivity(b));
  CHECK(static_cast<double>(widest) / t_noise <= made.epsilon_impl);
  // The constant feature never moves: at most (t^p - 1) Q, so the bound t^p Q has slack Q.
  CHECK(static_cast<uint64_t>(widest) <= ldp::wire::sensitivity(b) - ldp::wire::range_width(b));
}

TEST_CASE("golden digest of smooth-queries reports, on every table") {
  // The integer recurrence and the noise give the same bytes on every architecture (this test runs
  // under qemu too): FNV-1a over 300 reports of p = 3, t = 4, f = 20 at epsilon 2, inputs spread over
  // [-1, 1]^3 including the ends.
  const auto made = ldp::wire::make_smooth_queries(3, 4, 20, 2.0);
  REQUIRE(made.code == status::ok);
  for (const ldp::kernels::table* table : ldp::test::runnable_tables()) {
    auto rng = ldp::test::seeded_drbg("smooth-queries golden", *table);
    ldp::test::owned_context<context> c(made.block);
    REQUIRE(c.code == status::ok);
    std::vector<unsigned char> out(ldp::wire::max_report_size(made.block));
    uint64_t h = 0xcbf29ce484222325u;
    for (int64_t i = 0; i < 300; ++i) {
      const int64_t one = int64_t{1} << 20;
      const std::vector<int64_t> x = {-one + (i * 7919) % (2 * one + 1), one - (i * 104729) % (2 * one + 1),
                                      i % 3 == 0 ? one : -one / 3};
      std::size_t size = 0;
      REQUIRE(ldp::device::randomize_smooth_queries(c.context, x, rng, out, ldp::device::framing::report, &size) ==
              status::ok);
      for (std::size_t b = 0; b < size; ++b) h = (h ^ out[b]) * 0x100000001b3u;
    }
    CAPTURE(std::string(table->name));
    CHECK(h == 4154142099763150830u);
  }
}
