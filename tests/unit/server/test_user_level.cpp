// The Kent protocol driver (docs/mechanisms.md C.1; ldp/server/user_level.h): the design from the
// configuration, the group assignment, the round-2 block from the votes (argmax, lowest index on
// ties, e = 2 cells, through the wire format), the rule between one and two stages, and the
// estimates' plumbing (fold checks, M3's rotation back against a dense reference).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "device_context.h"
#include "ldp/device.h"
#include "ldp/random.h"
#include "ldp/server.h"
#include "ldp/wire.h"
#include "tables.h"
#include "user_level.h"

using ldp::status;
using ldp::server::aggregator;
using ldp::server::user_level_config;
using ldp::server::user_level_method;
using ldp::server::user_level_plan;
using ldp::server::user_level_protocol;
using ldp::wire::field;
using ldp::wire::params;

namespace {

user_level_config config(user_level_method m, uint64_t n, uint32_t t, uint32_t d = 1) {
  user_level_config c;
  c.method = m;
  c.users = n;
  c.observations = t;
  c.dimension = d;
  c.cap = 1u << 20;
  for (std::size_t i = 0; i < ldp::wire::seed_size; ++i) {
    c.rotation_seed[i] = static_cast<unsigned char>(3 * i + 1);
  }
  return c;
}

user_level_protocol make(const user_level_config& c) {
  user_level_protocol p;
  REQUIRE(user_level_protocol::create(c, &p) == status::ok);
  return p;
}

std::unique_ptr<aggregator> aggregator_for(const params& p) {
  std::unique_ptr<aggregator> a;
  REQUIRE(aggregator::create(p, &a) == status::ok);
  return a;
}

// A vote report for the cell holding x (all T observations equal to x).
void vote(aggregator& votes, const params& p, int64_t x, ldp::random::drbg& rng) {
  const auto d = static_cast<std::size_t>(p.has(field::vector_dim) ? p.get(field::vector_dim) : 1);
  const std::vector<int64_t> data(d, x);
  std::vector<unsigned char> report;
  REQUIRE(ldp::test::user_level_report(p, data, rng, &report) == status::ok);
  REQUIRE(votes.add_report(report) == status::ok);
}

}  // namespace

TEST_CASE("design: h, cells, T~ from the configuration") {
  const auto p = make(config(user_level_method::m1, 10000, 1000));
  CHECK(p.folds() == 1);
  CHECK(p.used_observations() == 1000);
  // h = sqrt(2 ln(n alpha^2) / T~) on [-1, 1] = 0.1357; N = ceil(2 / h) = 15.
  CHECK(p.cells() == 15);
  CHECK(p.cell_width() == doctest::Approx(2.0 / 15));
  const params& v = p.vote_block(0);
  CHECK(v.mech == ldp::wire::mechanism::kent_vote);
  CHECK(v.get(field::domain) == 15);
  CHECK(v.get(field::observations) == 1000);
  CHECK(v.get_signed(field::clip_lo) == -65536);
  CHECK_FALSE(v.has(field::vector_dim));

  // The cap: T~ = min(T, T*).
  auto c = config(user_level_method::m1, 10000, 1000);
  c.cap = 300;
  CHECK(make(c).used_observations() == 300);
  // M2: folds = d, log(n alpha^2 / d); M3: folds = d~, h shrinks by sqrt(d~).
  const auto m2 = make(config(user_level_method::m2, 10000, 1000, 5));
  CHECK(m2.folds() == 5);
  CHECK(m2.vote_block(4).get(field::fold_coordinate) == 4);
  CHECK(m2.cells() == static_cast<uint32_t>(std::ceil(2 / std::sqrt(2 * std::log(2000.0) / 1000))));
  const auto m3 = make(config(user_level_method::m3, 10000, 1000, 5));
  CHECK(m3.folds() == 8);
  CHECK(m3.vote_block(7).get(field::hadamard_dim) == 8);
  CHECK(m3.cells() == static_cast<uint32_t>(std::ceil(2 / std::sqrt(2 * std::log(1250.0) / (8 * 1000)))));
}

TEST_CASE("the vote-reliability cap") {
  // m voters per fold: z = sqrt(2m) tanh(alpha/4) 0.45, N_max = floor(1e-3 / Phi(-z)),
  // T* = floor(c_h L N_max^2 / 4).
  auto c = config(user_level_method::m1, 2000, 1u << 30);
  c.cap = 0;
  const auto p = make(c);
  const double z = std::sqrt(2.0 * 1000) * std::tanh(0.25) * 0.45;
  const double n_max = std::floor(1e-3 / (0.5 * std::erfc(z / std::sqrt(2.0))));
  const double cap = std::floor(2 * std::log(2000.0) * n_max * n_max / 4);
  CHECK(p.used_observations() == static_cast<uint32_t>(cap));
  CHECK(p.cells() <= n_max);
  // More voters, a larger cap.
  c.users = 8000;
  CHECK(make(c).used_observations() > p.used_observations());
}

TEST_CASE("invalid configurations") {
  user_level_protocol p;
  auto c = config(user_level_method::m1, 1000, 100);
  CHECK(user_level_protocol::create(c, nullptr) == status::invalid_argument);
  auto bad = c;
  bad.alpha = 0;
  CHECK(user_level_protocol::create(bad, &p) == status::invalid_argument);
  bad = c;
  bad.dimension = 2;  // M1 is univariate
  CHECK(user_level_protocol::create(bad, &p) == status::invalid_argument);
  bad = c;
  bad.lo = 1;
  CHECK(user_level_protocol::create(bad, &p) == status::invalid_argument);
  bad = config(user_level_method::m3, 1000, 100, 4);
  bad.lo = -0.5;  // M3 needs [-R, R]
  CHECK(user_level_protocol::create(bad, &p) == status::invalid_argument);
  bad = config(user_level_method::m2, 15, 100, 8);
  bad.plan = user_level_plan::two_stage;  // 7 voters for 8 folds
  CHECK(user_level_protocol::create(bad, &p) == status::invalid_argument);
  bad.plan = user_level_plan::choose;  // falls back to one stage
  REQUIRE(user_level_protocol::create(bad, &p) == status::ok);
  CHECK_FALSE(p.two_stage());
  bad = c;
  bad.frac_bits = 63;
  CHECK(user_level_protocol::create(bad, &p) == status::invalid_argument);
}

TEST_CASE("groups: halves and folds by index, balanced") {
  for (uint32_t d : {1u, 3u, 8u}) {
    const auto p = make(config(d == 1 ? user_level_method::m1 : user_level_method::m2, 1003, 5000, d));
    REQUIRE(p.two_stage());
    std::map<std::pair<int, uint32_t>, uint64_t> counts;
    for (uint64_t u = 0; u < 1003; ++u) {
      const auto a = p.assign(u);
      ++counts[{a.round, a.fold}];
      CHECK(a.round == (u < 501 ? 1 : 2));
    }
    CHECK(counts.size() == 2 * std::size_t{d});
    for (const auto& [key, count] : counts) {
      const uint64_t group = key.first == 1 ? 501 : 502;
      CHECK(count >= group / d);
      CHECK(count <= group / d + 1);
    }
    CHECK(p.assign(1003).round == 0);
  }
  auto c = config(user_level_method::m1, 100, 5000);
  c.plan = user_level_plan::single_stage;
  const auto single = make(c);
  CHECK_FALSE(single.two_stage());
  for (uint64_t u = 0; u < 100; ++u) CHECK(single.assign(u).round == 2);
}

TEST_CASE("round 2: the argmax cell widened by two cells each side, through the wire format") {
  const auto p = make(config(user_level_method::m1, 10000, 1000));
  const params& v = p.vote_block(0);
  auto votes = aggregator_for(v);
  auto rng = ldp::test::seeded_drbg("kent round 2");
  // Most voters sit in cell 9, a few in cells 2 and 14.
  const int64_t in9 = ldp::wire::range_cell_edge(v, 9) + 7;
  REQUIRE(ldp::wire::range_cell(v, in9) == 9);
  for (int i = 0; i < 600; ++i) vote(*votes, v, in9, rng);
  for (int i = 0; i < 100; ++i) vote(*votes, v, ldp::wire::range_cell_edge(v, 2), rng);
  for (int i = 0; i < 100; ++i) vote(*votes, v, ldp::wire::range_cell_edge(v, 14), rng);
  params refine;
  REQUIRE(p.refine_block(0, *votes, &refine) == status::ok);
  CHECK(refine.mech == ldp::wire::mechanism::kent_refine);
  CHECK(refine.get_signed(field::interval_lo) == ldp::wire::range_cell_edge(v, 7));
  CHECK(refine.get_signed(field::interval_hi) == ldp::wire::range_cell_edge(v, 12));
  CHECK(refine.get(field::observations) == 1000);
  CHECK(ldp::wire::implemented_epsilon(refine) <= 1.0);
  // The broadcast is a parameter block like any other.
  unsigned char bytes[ldp::wire::params_max_size];
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_params(refine, bytes, &size) == status::ok);
  params back;
  REQUIRE(ldp::wire::decode_params({bytes, size}, &back) == status::ok);
  CHECK(ldp::wire::fingerprint(back) == ldp::wire::fingerprint(refine));
  // A refine aggregator for the decoded block accepts reports made under the sent one.
  auto refines = aggregator_for(back);
  std::vector<int64_t> data(1000, in9);
  std::vector<unsigned char> out(ldp::wire::max_report_size(refine));
  REQUIRE(ldp::test::randomize_once<ldp::device::user_level_context>(
              refine, ldp::span<const int64_t>(data), rng, out, ldp::device::framing::report, &size) == status::ok);
  CHECK(refines->add_report({out.data(), size}) == status::ok);
}

TEST_CASE("round 2: ties go to the lowest cell, and the interval is clamped to the range") {
  const auto p = make(config(user_level_method::m1, 10000, 1000));
  auto empty = aggregator_for(p.vote_block(0));  // every count 0: a tie between all cells
  params refine;
  REQUIRE(p.refine_block(0, *empty, &refine) == status::ok);
  CHECK(refine.get_signed(field::interval_lo) == -65536);
  CHECK(refine.get_signed(field::interval_hi) == ldp::wire::range_cell_edge(p.vote_block(0), 3));
  // Statuses.
  auto other = aggregator_for(make(config(user_level_method::m1, 10000, 999)).vote_block(0));
  CHECK(p.refine_block(0, *other, &refine) == status::parameter_mismatch);
  CHECK(p.refine_block(1, *empty, &refine) == status::invalid_argument);
  CHECK(p.refine_block(0, *empty, nullptr) == status::invalid_argument);
}

TEST_CASE("the rule: two stages once T~ passes about 25 ln(n alpha^2)") {
  const double threshold = 25 * std::log(10000.0);  // 230
  for (uint32_t t : {20u, 60u, 100u, 400u, 1000u, 10000u}) {
    auto c = config(user_level_method::m1, 10000, t);
    const auto p = make(c);
    CAPTURE(t);
    CHECK(p.two_stage() == (p.predicted_error(true) < p.predicted_error(false)));
    if (t < threshold / 3) CHECK_FALSE(p.two_stage());
    if (t > threshold * 3) CHECK(p.two_stage());
  }
}

TEST_CASE("estimates: fold checks, and M3 rotates back with D H / sqrt(d~)") {
  const auto p = make(config(user_level_method::m3, 4000, 500, 5));
  auto rng = ldp::test::seeded_drbg("kent estimates");
  std::vector<std::unique_ptr<aggregator>> refines;
  std::vector<const aggregator*> views;
  std::vector<double> theta;
  for (uint32_t f = 0; f < p.folds(); ++f) {
    auto votes = aggregator_for(p.vote_block(f));
    params refine;
    REQUIRE(p.refine_block(f, *votes, &refine) == status::ok);
    refines.push_back(aggregator_for(refine));
    views.push_back(refines.back().get());
  }
  // Refine reports straight from the block: values at known points.
  for (uint32_t f = 0; f < p.folds(); ++f) {
    const params& block = refines[f]->parameters();
    std::vector<int64_t> data(5, 0);
    data[0] = 20000 + 1000 * static_cast<int64_t>(f);
    for (int i = 0; i < 50; ++i) {
      std::vector<unsigned char> out(ldp::wire::max_report_size(block));
      std::size_t size = 0;
      REQUIRE(ldp::test::randomize_once<ldp::device::user_level_context>(
                  block, ldp::span<const int64_t>(data), rng, out, ldp::device::framing::report, &size) == status::ok);
      REQUIRE(refines[f]->add_report({out.data(), size}) == status::ok);
    }
    theta.push_back(refines[f]->estimate_all()[0].value);
  }
  std::vector<ldp::server::estimate> est;
  REQUIRE(p.estimate_all(views, 0.9, &est) == status::ok);
  REQUIRE(est.size() == 5);
  std::vector<uint32_t> signs(1);
  REQUIRE(ldp::random::rotation_signs(p.config().rotation_seed, 8, signs) == status::ok);
  double variance = 0;
  for (const aggregator* a : views) variance += a->estimate_all()[0].variance;
  for (uint32_t i = 0; i < 5; ++i) {
    double x = 0;
    for (uint32_t j = 0; j < 8; ++j) {
      const double h = (ldp::popcount32(i & j) & 1) != 0 ? -1 : 1;
      x += h * theta[j];
    }
    x *= (((signs[0] >> i) & 1) != 0 ? -1 : 1) / std::sqrt(8.0);
    CHECK(est[i].item == i);
    CHECK(est[i].value == doctest::Approx(x).epsilon(1e-12));
    CHECK(est[i].variance == doctest::Approx(variance / 8).epsilon(1e-12));
    const double half_width = 1.6448536 * std::sqrt(variance / 8);  // z at 90%
    CHECK(est[i].ci_high - est[i].value == doctest::Approx(half_width).epsilon(1e-6));
  }
  // Fold checks.
  std::vector<const aggregator*> swapped = views;
  std::swap(swapped[0], swapped[1]);
  CHECK(p.estimate_all(swapped, 0.9, &est) == status::parameter_mismatch);
  CHECK(p.estimate_all({views.data(), 7}, 0.9, &est) == status::invalid_argument);
  std::vector<const aggregator*> holes = views;
  holes[3] = nullptr;
  CHECK(p.estimate_all(holes, 0.9, &est) == status::invalid_argument);
  // Refinements under another rotation seed (C.1 test 6) are refused, not rotated back wrongly.
  auto c = p.config();
  c.rotation_seed[0] ^= 1;
  const auto q = make(c);
  CHECK(q.estimate_all(views, 0.9, &est) == status::parameter_mismatch);
  CHECK(est.empty());
}
