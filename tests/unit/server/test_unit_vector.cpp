// Server side of the unit-vector family (docs/mechanisms.md B.6, lib/server unit_vector.cpp): the
// estimate from exact sums of hand-made reports, merge in any order and split with identical bytes,
// the saved state's bound |S_i| <= n (2^15 - 1), and rejection of bad reports.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "device_context.h"
#include "ldp/device/unit_vector.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/unit_vector.h"
#include "ldp/server/vector_mean.h"
#include "ldp/wire.h"
#include "merge_order.h"
#include "tables.h"
#include "wire_examples.h"

using bytes = std::vector<unsigned char>;
using ldp::status;
using ldp::server::aggregator;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

std::unique_ptr<aggregator> make(const ldp::wire::params& p) { return ldp::test::make_aggregator(p); }

bytes report_of(const ldp::wire::params& p, const std::vector<int64_t>& u) {
  ldp::wire::report r;
  r.mech = p.mech;
  r.values = u;
  bytes out(ldp::wire::max_report_size(p));
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, out, &size) == status::ok);
  out.resize(size);
  return out;
}

// The estimates of a fresh aggregator of p after these hand-made reports.
std::vector<ldp::server::estimate> estimates_of(const ldp::wire::params& p,
                                                std::initializer_list<std::vector<int64_t>> reports) {
  const auto a = make(p);
  for (const auto& u : reports) {
    const bytes r = report_of(p, u);
    REQUIRE(a->add_report(r) == status::ok);
  }
  auto e = a->estimate_all(0.95);
  REQUIRE(e.size() == p.get(field::domain));
  return e;
}

// Estimates of 3 hand-made reports with coordinate sums S_i at R = 2: x^_i = B S_i / (2^14 3) and the
// variance (spread - c_i^2) / 3, c_i = x^_i clipped to [-R, R] (within `tolerance`).
void check_estimates(const std::vector<ldp::server::estimate>& e, double b, const double (&sums)[3], double spread,
                     double tolerance) {
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    const double value = b * sums[i] / 16384 / 3;
    CHECK(e[i].value == doctest::Approx(value).epsilon(1e-15));
    const double clipped = std::fmin(2.0, std::fmax(-2.0, value));
    CHECK(e[i].variance == doctest::Approx((spread - clipped * clipped) / 3).epsilon(tolerance));
    CHECK(e[i].kind == ldp::server::variance_kind::bound);
  }
}

ldp::wire::params block() {
  const auto made = ldp::wire::make_l2_ball(3, 2.0, 16, 1.0);
  REQUIRE(made.code == status::ok);
  return made.block;
}

}  // namespace

TEST_CASE("the unit-vector family serves l2-ball, privunitg, projunit and fastprojunit only") {
  for (mechanism m : ldp::test::all_mechanisms()) {
    CAPTURE(ldp::wire::mechanism_name(m));
    CHECK(ldp::server::is_unit_vector_mechanism(m) == (m == mechanism::l2_ball || m == mechanism::privunitg ||
                                                       m == mechanism::projunit || m == mechanism::fastprojunit));
  }
}

TEST_CASE("privunitg estimate: B S_i / (2^14 n), variance ((B / 8)^2 (max(1, along) + 2^-22) - c_i^2) / n") {
  for (double epsilon : {1.0, 8.0}) {
    CAPTURE(epsilon);
    const auto made = ldp::wire::make_privunitg(3, 2.0, 16, epsilon);
    REQUIRE(made.code == status::ok);
    const auto& p = made.block;
    const auto e = estimates_of(p, {{2048, 0, -32767}, {0, -2048, 32767}, {4096, 2048, 1}});
    // B = R output_scale / 2^32; the continuous mechanism's mean and along at the block's t and P_keep.
    const double b = 2.0 * ldp::wire::unit_vector_scale(p);
    const double t = static_cast<double>(p.get(field::cap_threshold)) / 67108864.0;
    const double keep = static_cast<double>(p.get(field::threshold_keep)) / 4294967296.0;
    const double tail = std::erfc(t / std::sqrt(2.0)) / 2, density = std::exp(-t * t / 2) / std::sqrt(2 * M_PI);
    const double along = keep * (1 + t * density / tail) + (1 - keep) * (1 - t * density / (1 - tail));
    const double mean = density * (keep / tail - (1 - keep) / (1 - tail));
    CHECK(b / 8 == doctest::Approx(2.0 / mean).epsilon(1e-9));  // B / 8 = R / mean
    const double spread = b * b / 64 * (std::max(1.0, along) + std::ldexp(1.0, -22));
    CHECK(ldp::server::unit_vector_spread(p) == doctest::Approx(spread).epsilon(1e-12));
    CHECK(ldp::server::unit_vector_total_spread(p) ==
          doctest::Approx(b * b / 64 * (along + 2 + 3 * std::ldexp(1.0, -22))).epsilon(1e-12));
    // The server's Qbar is the series, the test's erfc: they agree to about 1e-13.
    check_estimates(e, b, {6144, 0, 1}, spread, 1e-12);
  }
}

TEST_CASE("estimate: B S_i / (2^14 n) with the closed-form variance") {
  const auto p = block();
  const auto e = estimates_of(p, {{16384, 0, -32767}, {0, -16384, 32767}, {16384, 16384, 1}});
  const double b = 2.0 * ldp::wire::unit_vector_scale(p);
  check_estimates(e, b, {32768, 0, 1}, b * b * (1.0 / 3 + std::ldexp(1.0, -30)), 1e-15);
  const auto empty = make(p)->estimate_all(0.95);
  CHECK(std::isnan(empty[0].value));
  CHECK(std::isinf(empty[0].variance));
}

TEST_CASE("merge in any order and any split gives identical bytes; the saved bound is enforced") {
  const auto p = block();
  auto rng = ldp::test::seeded_drbg("l2-ball merge");
  ldp::test::owned_context<ldp::device::unit_vector_context> c(p);
  REQUIRE(c.code == status::ok);
  std::vector<bytes> reports;
  for (int i = 0; i < 60; ++i) {
    const std::vector<int64_t> x = {i * 1000 - 30000, 65536 - i * 2000, 7};
    bytes out(ldp::wire::max_report_size(p));
    std::size_t size = 0;
    REQUIRE(c->randomize(x, rng, out, ldp::device::framing::report, &size) == status::ok);
    out.resize(size);
    reports.push_back(out);
  }
  const auto whole = make(p);
  for (const auto& r : reports) REQUIRE(whole->add_report(r) == status::ok);
  const bytes expected = whole->serialize();
  ldp::test::check_merge_order(p, reports, {0, 17, 60}, expected);
  std::unique_ptr<aggregator> back;
  REQUIRE(aggregator::deserialize(expected, &back) == status::ok);
  CHECK(back->serialize() == expected);
  CHECK(whole->merge(*make(ldp::wire::make_l2_ball(3, 2.0, 16, 2.0).block)) == status::parameter_mismatch);

  // One report of +32767 everywhere: S_i = 32767 = n (2^15 - 1) is valid, 32768 is not.
  const auto one = make(p);
  const bytes full = report_of(p, {32767, 32767, 32767});
  REQUIRE(one->add_report(full) == status::ok);
  bytes state = one->serialize();
  REQUIRE(aggregator::deserialize(state, &back) == status::ok);
  state[state.size() - 16] = 0x00;  // last sum: 32767 = 0x7fff -> 0x8000
  state[state.size() - 15] = 0x80;
  REQUIRE(ldp::wire::encode_state_header(p.mech, ldp::wire::fingerprint(p),
                                         ldp::span<const unsigned char>(state.data() + 32, state.size() - 32),
                                         ldp::span<unsigned char>(state.data(), 32)) == status::ok);
  CHECK(aggregator::deserialize(state, &back) == status::malformed_report);
}

TEST_CASE("bad reports are rejected by status and counted") {
  const auto p = block();
  const auto a = make(p);
  bytes good = report_of(p, {1, 2, 3});
  bytes low = good;
  low[10] = 0x00;  // coordinate 0 = -32768
  low[11] = 0x80;
  CHECK(a->add_report(low) == status::out_of_range);
  const bytes shorter(good.begin(), good.end() - 1);
  CHECK(a->add_report(shorter) == status::wrong_length);
  CHECK(a->add_report(good) == status::ok);
  CHECK(a->reports() == 1);
}

TEST_CASE("recommend_vector: l2-ball's variance is B^2 (1 + d 2^-30) - R^2, privunitg's its trace, ranked") {
  for (uint32_t d : {8u, 784u}) {
    CAPTURE(d);
    const auto ranked = ldp::server::recommend_vector(d, 1.0, 1000);
    REQUIRE(ranked.size() == 6);  // and projunit, fastprojunit (test_projected_unit.cpp)
    CHECK(ranked[0].mech == mechanism::privunitg);
    const auto pu = ldp::wire::make_privunitg(d, 1.0, 16, 1.0).block;
    CHECK(ranked[0].variance_per_report ==
          doctest::Approx(ldp::server::unit_vector_total_spread(pu) - 1).epsilon(1e-12));
    CHECK(ranked[0].report_bytes == 10 + 2 * std::size_t{d});
    for (std::size_t i = 1; i < ranked.size(); ++i) {
      CHECK(ranked[i - 1].variance_per_report <= ranked[i].variance_per_report);
    }
    const auto l2 =
        std::find_if(ranked.begin(), ranked.end(), [](const auto& r) { return r.mech == mechanism::l2_ball; });
    REQUIRE(l2 != ranked.end());
    const auto p = ldp::wire::make_l2_ball(d, 1.0, 16, 1.0).block;
    const double b = ldp::wire::unit_vector_scale(p);
    CHECK(l2->variance_per_report ==
          doctest::Approx(b * b * (1 + static_cast<double>(d) * std::ldexp(1.0, -30)) - 1).epsilon(1e-12));
    CHECK(l2->l2_error == doctest::Approx(std::sqrt(l2->variance_per_report / 1000)));
    CHECK(l2->report_bytes == 10 + 2 * std::size_t{d});
  }
  CHECK(ldp::server::recommend_vector(8, 1.0, 0).empty());
}
