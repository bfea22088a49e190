// Kent M4 (docs/mechanisms.md C.1 P4 and M4), exact checks: the kent-support block, the device's
// marked coordinates, the server's scores against a direct computation from the public signs, the
// selection and the hard threshold, the saved state, and the driver's rule.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "device_context.h"
#include "ldp/device/kent_support.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/random/projection.h"
#include "ldp/server.h"
#include "ldp/wire.h"
#include "ldp/wire/kent_support_params.h"
#include "merge_order.h"
#include "tables.h"

using ldp::status;
using ldp::device::kent_support_context;
using ldp::server::aggregator;
using ldp::server::estimate;
using ldp::wire::field;
using ldp::wire::params;

namespace {

constexpr int64_t one = int64_t{1} << 16;

ldp::wire::kent_support_shape shape(uint32_t d, uint32_t s, uint32_t observations, double tau) {
  ldp::wire::kent_support_shape sh;
  sh.clip_lo = -one;
  sh.clip_hi = one;
  sh.observations = observations;
  sh.dimension = d;
  sh.sparsity = s;
  sh.threshold = static_cast<uint64_t>(tau * one);
  return sh;
}

params block(uint32_t d, uint32_t s, uint32_t observations = 4, double tau = 0.25, double alpha = 1) {
  const auto made = ldp::wire::make_kent_support(alpha, shape(d, s, observations, tau));
  REQUIRE(made.code == status::ok);
  return made.block;
}

// R_j of a seed: -1 for a set bit of ProjUnit's row 0 (random/projection.h), the device's rule.
std::vector<int> signs_of(uint64_t seed, uint32_t d) {
  unsigned char key[ldp::random::chacha20_key_size];
  ldp::random::projection_key(seed, key);
  std::vector<uint32_t> row(ldp::random::projection_row_words(d));
  REQUIRE(ldp::random::projection_row_signs(ldp::kernels::native(), key, d, 0, row) == status::ok);
  std::vector<int> r(d);
  for (uint32_t j = 0; j < d; ++j) r[j] = ((row[j / 32] >> (j % 32)) & 1u) != 0 ? -1 : 1;
  return r;
}

std::vector<uint32_t> support_of(const params& p, const std::vector<int64_t>& observations) {
  ldp::test::owned_context<kent_support_context> c(p);
  REQUIRE(c.code == status::ok);
  ldp::span<const uint32_t> kept;
  REQUIRE(c->support(observations, &kept) == status::ok);
  return {kept.begin(), kept.end()};
}

}  // namespace

TEST_CASE("kent-support block: scale 2 s / alpha, epsilon_impl <= alpha, the rules of wire_format.md 3.3") {
  for (uint32_t s : {1u, 3u, 40u}) {
    for (double alpha : {0.25, 1.0, 4.0}) {
      const params p = block(100, s, 4, 0.25, alpha);
      const double t = static_cast<double>(p.get(field::scale_num)) / static_cast<double>(p.get(field::scale_den));
      CHECK(t == doctest::Approx(2.0 * s / alpha).epsilon(1e-4));
      const double level = ldp::wire::implemented_epsilon(p);
      CHECK(level <= alpha);
      CHECK(level >= alpha * (1 - 1e-4));
      CHECK(level == doctest::Approx(2.0 * s * static_cast<double>(p.get(field::scale_den)) /
                                     static_cast<double>(p.get(field::scale_num))));
    }
  }
  CHECK(ldp::wire::make_kent_support(1, shape(10, 11, 4, 0.25)).code == status::invalid_argument);  // s > d
  CHECK(ldp::wire::make_kent_support(1, shape(10, 0, 4, 0.25)).code == status::invalid_argument);
  CHECK(ldp::wire::make_kent_support(1, shape(10, 2, 4, 0)).code == status::invalid_argument);    // tau 0
  CHECK(ldp::wire::make_kent_support(1, shape(10, 2, 4, 1.5)).code == status::invalid_argument);  // tau > 1
  CHECK(ldp::wire::make_kent_support(1, shape((1u << 24) + 1, 2, 4, 0.5)).code == status::invalid_argument);
  auto big = shape(10, 2, 1u << 20, 0.5);  // T~ 2^20 times 2^16: fits
  CHECK(ldp::wire::make_kent_support(1, big).code == status::ok);
  big.clip_hi = int64_t{1} << 45;  // 2^45 times 2^20 > 2^63: a local sum could overflow
  CHECK(ldp::wire::make_kent_support(1, big).code == status::invalid_argument);
  const params p = block(10, 2);
  CHECK(ldp::wire::support_shape_of(p).threshold == static_cast<uint64_t>(one / 4));
}

TEST_CASE("device: |local mean_j| >= tau marks j, the s largest are kept, ties to the lower index, P6") {
  // d = 6, T = 4 observations (coordinate j of observation t at 6 t + j), tau = 1/4, s = 3.
  const params p = block(6, 3);
  const auto obs = [](std::vector<double> means) {
    std::vector<int64_t> x;
    for (int t = 0; t < 4; ++t) {
      for (double m : means) x.push_back(static_cast<int64_t>(m * one));
    }
    return x;
  };
  CHECK(support_of(p, obs({0.5, 0.1, -0.3, 0.25, -0.9, 0})) == std::vector<uint32_t>{0, 2, 4});
  // tau exactly: |mean| = 1/4 is marked; 1/4 - 2^-16 is not.
  CHECK(support_of(p, obs({0, 0.25, 0, 0.25 - 1.0 / one, 0, 0})) == std::vector<uint32_t>{1});
  // More than s above tau: the three largest |mean|; a tie at the cut keeps the lower index.
  CHECK(support_of(p, obs({0.3, 0.5, 0.5, 0.3, -0.7, 0.3})) == std::vector<uint32_t>{1, 2, 4});
  CHECK(support_of(p, obs({0.3, 0.3, 0.3, 0.3, 0.3, 0.3})) == std::vector<uint32_t>{0, 1, 2});
  // Observations are clamped to [-1, 1] before the mean.
  CHECK(support_of(p, obs({5, 0, 0, 0, 0, 0})) == std::vector<uint32_t>{0});
  // The mean is of the whole sum, not of rounded observations: 3 x 0 and 1 x 1 gives 1/4.
  std::vector<int64_t> quarter(24, 0);
  quarter[6 * 3 + 5] = one;
  CHECK(support_of(p, quarter) == std::vector<uint32_t>{5});
  // P6: with T~ = 4, observations 5.. change nothing, not even the report bytes under one seed.
  std::vector<int64_t> longer = obs({0.5, 0.1, -0.3, 0.25, -0.9, 0});
  std::vector<int64_t> other = longer;
  for (int k = 0; k < 6 * 3; ++k) {
    longer.push_back(one);
    other.push_back(-one);
  }
  auto rng1 = ldp::test::seeded_drbg("kent support cap"), rng2 = ldp::test::seeded_drbg("kent support cap");
  std::vector<unsigned char> a, b;
  REQUIRE(ldp::test::report_of<kent_support_context>(p, ldp::span<const int64_t>(longer), rng1, &a) == status::ok);
  REQUIRE(ldp::test::report_of<kent_support_context>(p, ldp::span<const int64_t>(other), rng2, &b) == status::ok);
  CHECK(a == b);
  // A size that is not a multiple of d.
  ldp::test::owned_context<kent_support_context> c(p);
  ldp::span<const uint32_t> kept;
  CHECK(c->support(ldp::span<const int64_t>(longer.data(), 7), &kept) == status::invalid_argument);
}

TEST_CASE("device: the seed is drawn before the data, Z - sum_j R_j V_j is the block's noise") {
  const params p = block(40, 2);
  std::vector<int64_t> spike(4 * 40, 0), flat(4 * 40, 0);
  for (int t = 0; t < 4; ++t) spike[40 * t + 7] = spike[40 * t + 30] = -one;
  int64_t noise_sum = 0;
  for (int trial = 0; trial < 200; ++trial) {
    auto rng1 = ldp::test::seeded_drbg("kent support seed"), rng2 = ldp::test::seeded_drbg("kent support seed");
    for (int skip = 0; skip < trial; ++skip) {
      rng1.next_u64();
      rng2.next_u64();
    }
    ldp::test::owned_context<kent_support_context> c(p);
    ldp::wire::report a, b;
    REQUIRE(c->fields(ldp::span<const int64_t>(spike), rng1, &a) == status::ok);
    REQUIRE(c->fields(ldp::span<const int64_t>(flat), rng2, &b) == status::ok);
    CHECK(a.seed == b.seed);  // the same generator state: the seed does not depend on the data
    const auto r = signs_of(a.seed, 40);
    const int64_t sum = r[7] + r[30];
    CHECK(b.value == a.value - sum);  // the same noise draw after the seed; flat data mark nothing
    noise_sum += b.value;
  }
  CHECK(std::abs(noise_sum) < 200 * 40);  // the noise is centred (t = 4: sd 5.7 per draw)
}

TEST_CASE("server: S_j is the mean of R_ij Z_i, its variance (mean Z^2 - S_j) / n, kind average") {
  const uint32_t d = 70;  // three sign words, the last partial
  const params p = block(d, 2);
  const auto a = ldp::test::make_aggregator(p);
  const std::vector<std::pair<uint64_t, int64_t>> reports = {
      {1, 3}, {2, -5}, {0xffffffffffffffffu, 40}, {12345, 0}, {99, -1}, {7, std::numeric_limits<int32_t>::max()}};
  std::vector<long double> sums(d, 0);
  long double squares = 0;
  for (const auto& [seed, value] : reports) {
    ldp::wire::report r;
    r.mech = p.mech;
    r.seed = seed;
    r.value = value;
    std::vector<unsigned char> bytes(ldp::wire::max_report_size(p));
    std::size_t size = 0;
    REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, bytes, &size) == status::ok);
    bytes.resize(size);
    REQUIRE(a->add_report(bytes) == status::ok);
    const auto signs = signs_of(seed, d);
    for (uint32_t j = 0; j < d; ++j) sums[j] += signs[j] * static_cast<long double>(value);
    squares += static_cast<long double>(value) * static_cast<long double>(value);
  }
  const auto n = static_cast<double>(reports.size());
  const double noise = ldp::server::laplace_noise_variance(p);
  const auto e = a->estimate_all(0.95);
  REQUIRE(e.size() == d);
  for (uint32_t j = 0; j < d; ++j) {
    CAPTURE(j);
    const double score = static_cast<double>(sums[j]) / n;
    CHECK(e[j].item == j);
    CHECK(e[j].value == doctest::Approx(score).epsilon(1e-12));
    CHECK(e[j].variance == doctest::Approx(std::max(static_cast<double>(squares) / n - score, noise) / n));
    CHECK(e[j].kind == ldp::server::variance_kind::average);
  }
  // The saved state: sorted (seed, Z) pairs; round trip, merge order, a hostile unsorted body.
  const auto saved = a->serialize();
  std::unique_ptr<aggregator> back;
  REQUIRE(aggregator::deserialize(saved, &back) == status::ok);
  CHECK(back->serialize() == saved);
  CHECK(back->estimate_all(0.95)[5].value == e[5].value);
  std::vector<std::vector<unsigned char>> bytes;
  auto rng = ldp::test::seeded_drbg("kent support merge");
  std::vector<int64_t> spike(4 * d, 0);
  for (int t = 0; t < 4; ++t) spike[d * t + 3] = one;
  for (int i = 0; i < 9; ++i) {
    bytes.emplace_back();
    REQUIRE(ldp::test::report_of<kent_support_context>(p, ldp::span<const int64_t>(spike), rng, &bytes.back()) ==
            status::ok);
  }
  const auto all = ldp::test::make_aggregator(p);
  for (const auto& b : bytes) REQUIRE(all->add_report(b) == status::ok);
  ldp::test::check_merge_order(p, bytes, {0, 4, 9}, all->serialize());
  // The last two (seed, Z) entries swapped: a body out of canonical order is refused.
  const std::vector<unsigned char> state = all->serialize();
  std::vector<unsigned char> body(state.begin() + ldp::wire::state_header_size, state.end());
  std::swap_ranges(body.end() - 32, body.end() - 16, body.end() - 16);
  std::vector<unsigned char> swapped(ldp::wire::state_header_size);
  REQUIRE(ldp::wire::encode_state_header(p.mech, ldp::wire::fingerprint(p), body, swapped) == status::ok);
  swapped.insert(swapped.end(), body.begin(), body.end());
  std::unique_ptr<aggregator> refused;
  CHECK(aggregator::deserialize(swapped, &refused) == status::malformed_report);
  // One byte short: wrong_length.
  body.pop_back();
  std::vector<unsigned char> shorter(ldp::wire::state_header_size);
  REQUIRE(ldp::wire::encode_state_header(p.mech, ldp::wire::fingerprint(p), body, shorter) == status::ok);
  shorter.insert(shorter.end(), body.begin(), body.end());
  CHECK(aggregator::deserialize(shorter, &refused) == status::wrong_length);
}

TEST_CASE("select_support: S_j >= 1/2, at most s of the largest, ties to the lower index, NaN never") {
  const auto select = [](std::vector<double> v, uint32_t s, double bar = 0.5) {
    std::vector<estimate> e;
    for (uint32_t j = 0; j < v.size(); ++j) e.push_back(estimate{j, v[j], 1, 0, 0});
    return ldp::server::select_support(e, s, bar);
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(select({0.1, 0.9, 0.5, 0.49, 1.2}, 5) == std::vector<uint32_t>{1, 2, 4});
  CHECK(select({0.1, 0.9, 0.5, 0.49, 1.2}, 2) == std::vector<uint32_t>{1, 4});
  CHECK(select({0.7, 0.8, 0.7, 0.7, nan}, 2) == std::vector<uint32_t>{0, 1});
  CHECK(select({0.2, nan, -3}, 3).empty());
  CHECK(select({0.2, 0.3}, 1, 0.25) == std::vector<uint32_t>{1});
}

TEST_CASE("hard_threshold: |theta_j| >= sd_j sqrt(2 ln d), then the s largest; the rest 0") {
  // d = 8: sqrt(2 ln 8) = 2.039; sd 0.1 gives a threshold 0.2039.
  std::vector<estimate> e;
  const std::vector<double> values = {0.5, -0.21, 0.2, -0.9, 0.3, 0.3, 0.0, 0.25};
  for (uint32_t j = 0; j < values.size(); ++j) e.push_back(estimate{j, values[j], 0.01, 0, 0});
  std::vector<estimate> three = e;
  ldp::server::hard_threshold(three, 3, 8);
  const std::vector<double> expected = {0.5, 0, 0, -0.9, 0.3, 0, 0, 0};  // 0.3 twice: the lower index
  for (uint32_t j = 0; j < 8; ++j) {
    CAPTURE(j);
    CHECK(three[j].value == expected[j]);
    CHECK(three[j].variance == doctest::Approx(expected[j] == 0 ? 0.01 * 2 * std::log(8.0) : 0.01));
    CHECK(three[j].kind == (expected[j] == 0 ? ldp::server::variance_kind::bound : ldp::server::variance_kind::exact));
  }
  std::vector<estimate> all = e;
  ldp::server::hard_threshold(all, 8, 8);
  const std::vector<double> kept = {0.5, -0.21, 0, -0.9, 0.3, 0.3, 0, 0.25};
  for (uint32_t j = 0; j < 8; ++j) CHECK(all[j].value == kept[j]);
}

TEST_CASE("driver: the rule, the blocks, the stage on the selected coordinates") {
  ldp::server::kent_sparse_config c;
  c.alpha = 1;
  c.users = 16000;
  c.observations = 100;
  c.dimension = 32;
  c.sparsity = 2;
  ldp::server::kent_sparse_protocol p;
  // d = 32: M2 on 32 folds of 500 users beats the worst case s tau^2 of M4a's local threshold.
  REQUIRE(ldp::server::kent_sparse_protocol::create(c, &p) == status::ok);
  CHECK(p.vote_reliable());
  CHECK(!p.selects());
  CHECK(p.predicted_error(true) > p.predicted_error(false));
  // d = 1024: 8 users a fold; M4a's two folds of 4000 win.
  c.dimension = 1024;
  REQUIRE(ldp::server::kent_sparse_protocol::create(c, &p) == status::ok);
  CHECK(p.threshold() == doctest::Approx(std::sqrt(4 * std::log(1024.0) / 100)));
  CHECK(p.vote_reliable());
  CHECK(p.selects());  // reliable, and s (e_a + tau^2) is far below M4b's
  CHECK(p.predicted_error(true) < p.predicted_error(false));
  CHECK(p.voters() == 8000);
  const params& vote = p.support_block();
  CHECK(vote.get(field::domain) == 1024);
  CHECK(vote.get(field::sparsity) == 2);
  CHECK(vote.get(field::observations) == 100);
  CHECK(vote.get(field::vote_threshold) == static_cast<uint64_t>(std::llround(p.threshold() * one)));
  const std::vector<uint32_t> selected = {4, 17};
  ldp::server::user_level_protocol stage;
  REQUIRE(p.stage(selected, &stage) == status::ok);
  CHECK(stage.folds() == 2);
  CHECK(stage.config().users == 8000);
  CHECK(stage.vote_block(1).get(field::fold_coordinate) == 17);
  CHECK(stage.vote_block(1).get(field::vector_dim) == 1024);
  CHECK(p.stage({}, &stage) == status::invalid_argument);
  // Few users: the vote is unreliable, M4b runs; forcing M4a still builds it.
  c.users = 400;
  c.dimension = 32;
  REQUIRE(ldp::server::kent_sparse_protocol::create(c, &p) == status::ok);
  CHECK(!p.vote_reliable());
  CHECK(!p.selects());
  CHECK(p.dense().folds() == 32);
  c.method = ldp::server::sparse_method::select;
  REQUIRE(ldp::server::kent_sparse_protocol::create(c, &p) == status::ok);
  CHECK(p.selects());
  c.sparsity = 33;
  CHECK(ldp::server::kent_sparse_protocol::create(c, &p) == status::invalid_argument);
}
