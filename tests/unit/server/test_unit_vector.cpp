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

TEST_CASE("estimate: B S_i / (2^14 n) with the closed-form variance") {
  const auto p = block();
  const auto a = make(p);
  for (const bytes& r :
       {report_of(p, {16384, 0, -32767}), report_of(p, {0, -16384, 32767}), report_of(p, {16384, 16384, 1})}) {
    REQUIRE(a->add_report(r) == status::ok);
  }
  const auto e = a->estimate_all(0.95);
  REQUIRE(e.size() == 3);
  const double b = 2.0 * ldp::wire::unit_vector_scale(p);
  const double sums[] = {32768, 0, 1};
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    const double value = b * sums[i] / 16384 / 3;
    CHECK(e[static_cast<std::size_t>(i)].value == doctest::Approx(value).epsilon(1e-15));
    const double clipped = std::fmin(2.0, std::fmax(-2.0, value));
    CHECK(e[static_cast<std::size_t>(i)].variance ==
          doctest::Approx((b * b * (1.0 / 3 + std::ldexp(1.0, -30)) - clipped * clipped) / 3).epsilon(1e-15));
  }
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

TEST_CASE("recommend_vector: l2-ball's variance is B^2 (1 + d 2^-30) - R^2, ranked by variance") {
  for (uint32_t d : {8u, 784u}) {
    CAPTURE(d);
    const auto ranked = ldp::server::recommend_vector(d, 1.0, 1000);
    REQUIRE(ranked.size() == 5);  // l2-ball, vector-duchi, vector-laplace, projunit, fastprojunit
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
