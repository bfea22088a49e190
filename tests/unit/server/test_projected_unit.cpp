// Server side of ProjUnit and FastProjUnit (docs/mechanisms.md B.8, lib/server projected_unit.cpp
// inside the unit-vector aggregator): hand-made reports lifted by G^T q of their seeds, checked against
// dense matrices built from the public streams; the estimate's scale and variance; merge order and
// split; the saved bound |S_i| <= n k (2^15 - 1); bad reports.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "device_context.h"
#include "ldp/base/bits.h"
#include "ldp/device/projected_unit.h"
#include "ldp/random.h"
#include "ldp/random/rotation.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/unit_vector.h"
#include "ldp/wire.h"
#include "merge_order.h"
#include "tables.h"

using bytes = std::vector<unsigned char>;
using ldp::status;
using ldp::server::aggregator;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

bytes report_of(const ldp::wire::params& p, uint64_t seed, const std::vector<int64_t>& q) {
  ldp::wire::report r;
  r.mech = p.mech;
  r.seed = seed;
  r.values = q;
  bytes out(ldp::wire::max_report_size(p));
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, out, &size) == status::ok);
  out.resize(size);
  return out;
}

// The d x k matrix G^T of a report's seed, entry by entry from the public streams (B.8): ProjUnit's
// rows from projection_row_signs, FastProjUnit's H_{i_j, c} omega_c from B.4's signs and the row sample.
std::vector<std::vector<int>> dense_transpose(const ldp::wire::params& p, uint64_t seed) {
  const auto d = static_cast<uint32_t>(p.get(field::domain));
  const auto k = static_cast<uint32_t>(p.get(field::projection_dim));
  unsigned char key[32];
  ldp::random::projection_key(seed, key);
  std::vector<std::vector<int>> g(d, std::vector<int>(k));
  if (p.mech == mechanism::projunit) {
    std::vector<uint32_t> row(ldp::random::projection_row_words(d));
    for (uint32_t j = 0; j < k; ++j) {
      REQUIRE(ldp::random::projection_row_signs(ldp::kernels::scalar(), key, d, j, row) == status::ok);
      for (uint32_t c = 0; c < d; ++c) g[c][j] = (row[c / 32] >> (c % 32)) & 1 ? -1 : 1;
    }
    return g;
  }
  const uint32_t n = ldp::padded_dim(d);
  std::vector<uint32_t> signs(ldp::random::rotation_sign_words(n));
  REQUIRE(ldp::random::rotation_signs(key, n, signs) == status::ok);
  ldp::random::for_each_sampled_row(key, n, k, [&](uint32_t j, uint32_t i) {
    for (uint32_t c = 0; c < d; ++c) {
      const int h = ldp::popcount32(i & c) % 2 == 0 ? 1 : -1;
      g[c][j] = (signs[c / 32] >> (c % 32)) & 1 ? -h : h;
    }
  });
  return g;
}

ldp::wire::params block(mechanism m) {
  const auto made = m == mechanism::projunit ? ldp::wire::make_projunit(10, 3, 2.0, 16, 1.0)
                                             : ldp::wire::make_fastprojunit(10, 3, 2.0, 16, 1.0);
  REQUIRE(made.code == status::ok);
  return made.block;
}

}  // namespace

TEST_CASE("estimate: R output_scale / (2^46 sqrt(k)) sum_u G_u^T q_u / n, variance averaged over W") {
  for (const mechanism m : {mechanism::projunit, mechanism::fastprojunit}) {
    CAPTURE(ldp::wire::mechanism_name(m));
    const auto p = block(m);
    const auto a = ldp::test::make_aggregator(p);
    const std::vector<std::pair<uint64_t, std::vector<int64_t>>> reports = {
        {1, {32767, -32767, 5}}, {0xffffffffffffffffu, {-1, 0, 1}}, {42, {1000, 2000, -3000}}};
    std::vector<double> sums(10, 0);
    for (const auto& [seed, q] : reports) {
      const bytes r = report_of(p, seed, q);
      REQUIRE(a->add_report(r) == status::ok);
      const auto g = dense_transpose(p, seed);
      for (std::size_t c = 0; c < 10; ++c) {
        for (std::size_t j = 0; j < 3; ++j) sums[c] += g[c][j] * static_cast<double>(q[j]);
      }
    }
    const auto e = a->estimate_all(0.95);
    REQUIRE(e.size() == 10);
    const double scale = 2.0 * static_cast<double>(p.get(field::output_scale)) / std::ldexp(1.0, 46) / std::sqrt(3.0);
    const double spread = ldp::server::unit_vector_spread(p);
    for (std::size_t c = 0; c < 10; ++c) {
      CAPTURE(c);
      const double value = scale * sums[c] / 3;
      CHECK(e[c].value == doctest::Approx(value).epsilon(1e-14));
      const double clipped = std::fmin(2.0, std::fmax(-2.0, value));
      CHECK(e[c].variance == doctest::Approx((spread - clipped * clipped) / 3).epsilon(1e-14));
      CHECK(e[c].kind == ldp::server::variance_kind::average);
    }
  }
}

TEST_CASE("unit_vector_spread of a projected block: (B / 8)^2 T / d (1 + 2^-22), B / 8 = R / (c mean)") {
  for (const mechanism m : {mechanism::projunit, mechanism::fastprojunit}) {
    const auto p = m == mechanism::projunit ? ldp::wire::make_projunit(784, 100, 1.0, 16, 2.0).block
                                            : ldp::wire::make_fastprojunit(784, 100, 1.0, 16, 2.0).block;
    const double t = std::ldexp(static_cast<double>(p.get(field::cap_threshold)), -26);
    const auto moments =
        ldp::wire::privunitg_moments(t, std::ldexp(static_cast<double>(p.get(field::threshold_keep)), -32));
    const double c = ldp::wire::projection_norm_mean(m, 784, 100);
    const double b = ldp::wire::unit_vector_scale(p);
    CHECK(b / 8 == doctest::Approx(1 / (c * moments.mean)).epsilon(1e-9));
    const double rho = m == mechanism::projunit ? 0 : 784.0 / 1024;
    const double trace = 7.84 * (99 + moments.along) + (moments.along - 1) * (1 - rho);
    const double spread = b * b / 64 * trace / 784 * (1 + std::ldexp(1.0, -22));
    CHECK(ldp::server::unit_vector_spread(p) == doctest::Approx(spread).epsilon(1e-14));
    CHECK(ldp::server::unit_vector_total_spread(p) == doctest::Approx(784 * spread).epsilon(1e-14));
  }
}

TEST_CASE("merge in any order and any split gives identical bytes; the saved bound is n k (2^15 - 1)") {
  for (const mechanism m : {mechanism::projunit, mechanism::fastprojunit}) {
    CAPTURE(ldp::wire::mechanism_name(m));
    const auto p = block(m);
    auto rng = ldp::test::seeded_drbg("projected merge");
    ldp::test::owned_context<ldp::device::projected_unit_context> c(p);
    REQUIRE(c.code == status::ok);
    std::vector<bytes> reports;
    for (int i = 0; i < 40; ++i) {
      std::vector<int64_t> x(10);
      for (int j = 0; j < 10; ++j) x[static_cast<std::size_t>(j)] = (i - 20) * 1000 + j * 3000 - 15000;
      bytes out(ldp::wire::max_report_size(p));
      std::size_t size = 0;
      REQUIRE(c->randomize(x, rng, out, ldp::device::framing::report, &size) == status::ok);
      out.resize(size);
      reports.push_back(out);
    }
    const auto whole = ldp::test::make_aggregator(p);
    for (const auto& r : reports) REQUIRE(whole->add_report(r) == status::ok);
    const bytes expected = whole->serialize();
    ldp::test::check_merge_order(p, reports, {0, 13, 40}, expected);

    // Coordinate 0 of G is all +1 for FastProjUnit up to omega_0 (H's column 0), so q = (32767, 32767,
    // 32767) makes |S_0| = 3 * 32767 = n k (2^15 - 1): valid; one more unit is not. ProjUnit: find a
    // seed whose column 0 has equal signs.
    uint64_t seed = 0;
    while (true) {
      const auto g = dense_transpose(p, seed);
      if (g[0][0] == g[0][1] && g[0][1] == g[0][2]) break;
      ++seed;
    }
    const auto one = ldp::test::make_aggregator(p);
    const bytes full = report_of(p, seed, {32767, 32767, 32767});
    REQUIRE(one->add_report(full) == status::ok);
    bytes state = one->serialize();
    std::unique_ptr<aggregator> back;
    REQUIRE(aggregator::deserialize(state, &back) == status::ok);
    // S_0 is the first of the d sums at the end of the body: bump its magnitude by one.
    const std::size_t at = state.size() - 16 * 10;
    const int64_t s0 = static_cast<int64_t>(ldp::load_le64(state.data() + at));
    CHECK(std::llabs(s0) == 3 * 32767);
    ldp::store_le64(state.data() + at, static_cast<uint64_t>(s0 < 0 ? s0 - 1 : s0 + 1));
    REQUIRE(ldp::wire::encode_state_header(p.mech, ldp::wire::fingerprint(p),
                                           ldp::span<const unsigned char>(state.data() + 32, state.size() - 32),
                                           ldp::span<unsigned char>(state.data(), 32)) == status::ok);
    CHECK(aggregator::deserialize(state, &back) == status::malformed_report);
  }
}

TEST_CASE("bad reports are rejected by status and counted") {
  const auto p = block(mechanism::fastprojunit);
  const auto a = ldp::test::make_aggregator(p);
  const bytes good = report_of(p, 9, {1, 2, 3});
  bytes low = good;
  low[18] = 0x00;  // coordinate 0 (after the header and the seed) = -32768
  low[19] = 0x80;
  CHECK(a->add_report(low) == status::out_of_range);
  const bytes shorter(good.begin(), good.end() - 1);
  CHECK(a->add_report(shorter) == status::wrong_length);
  const bytes foreign = report_of(block(mechanism::projunit), 9, {1, 2, 3});
  CHECK(a->add_report(foreign) == status::parameter_mismatch);
  CHECK(a->add_report(good) == status::ok);
  CHECK(a->reports() == 1);
}
