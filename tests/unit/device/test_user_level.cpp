// Device side of the Kent protocols (docs/mechanisms.md C.1, tests 1 and 3): the local mean and its
// rounding, the observation cap (observations after T~ leave the report bit-identical), the fold
// coordinate of M2, the exact rotated coordinate of M3, reports through the wire format, and the
// exact enumeration of the vote's pmf over whole datasets (D.2 (a)).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "device_context.h"
#include "enumerator.h"
#include "ldp/device.h"
#include "ldp/random.h"
#include "ldp/wire.h"
#include "tables.h"
#include "user_level.h"
#include "wire_examples.h"

using ldp::status;
using ldp::device::framing;
using ldp::device::user_level_context;
using device = ldp::test::owned_context<user_level_context>;
using ldp::wire::field;
using ldp::wire::kent_shape;
using ldp::wire::mechanism;
using ldp::wire::params;

namespace {

constexpr int64_t one = int64_t{1} << 16;
const unsigned char rotation_seed[32] = {0x5e, 0xed};

kent_shape shape(uint32_t cap, uint32_t d = 0, uint32_t j = 0, bool rotate = false) {
  kent_shape s;
  s.frac_bits = 16;
  s.clip_lo = -one;
  s.clip_hi = one;
  s.observations = cap;
  s.vector_dim = d;
  s.fold_coordinate = j;
  if (rotate) {
    uint32_t padded = 1;
    while (padded < d) padded <<= 1;
    s.hadamard_dim = padded;
    s.rotation_seed = rotation_seed;
  }
  return s;
}

int64_t value_of(const params& p, const std::vector<int64_t>& observations) {
  device c(p);
  REQUIRE(c.code == status::ok);
  int64_t v = 0;
  REQUIRE(c->value(observations, &v) == status::ok);
  return v;
}

std::vector<unsigned char> report_of(const params& p, const std::vector<int64_t>& observations, const char* seed) {
  auto rng = ldp::test::seeded_drbg(seed);
  std::vector<unsigned char> out;
  REQUIRE(ldp::test::user_level_report(p, observations, rng, &out) == status::ok);
  return out;
}

// Deterministic pseudo-random observations in [lo, hi].
std::vector<int64_t> observations(std::size_t n, uint64_t seed, int64_t lo = -one, int64_t hi = one) {
  std::vector<int64_t> out(n);
  for (auto& x : out) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    x = lo + static_cast<int64_t>((seed >> 20) % static_cast<uint64_t>(hi - lo + 1));
  }
  return out;
}

using pmf = std::map<std::string, long double>;

// The exact pmf of the vote's fields on `data`, over every outcome of its coins.
pmf vote_pmf(const params& p, const std::vector<int64_t>& data) {
  device voter(p);
  REQUIRE(voter.code == status::ok);
  ldp::test::enumerating_coins coins;
  return coins.pmf([&](ldp::test::enumerating_coins& c) {
    ldp::wire::report r;
    REQUIRE(voter->vote_fields(data, c, &r) == status::ok);
    return ldp::test::describe(p, r);
  });
}

// max_z a(z) / b(z) over the outputs of a; b must give every one of them positive probability.
long double max_ratio(const pmf& a, const pmf& b) {
  long double worst = 0;
  for (const auto& [z, pz] : a) {
    const auto it = b.find(z);
    REQUIRE(it != b.end());
    worst = std::max(worst, pz / it->second);
  }
  return worst;
}

}  // namespace

TEST_CASE("local mean: first T~ observations, clamped, rounded to nearest with ties to even") {
  const params p = ldp::wire::make_kent_refine(1.0, -one, one, shape(4)).block;
  CHECK(value_of(p, {1, 2}) == 2);     // 1.5 -> 2
  CHECK(value_of(p, {2, 3}) == 2);     // 2.5 -> 2
  CHECK(value_of(p, {-1, -2}) == -2);  // -1.5 -> -2
  CHECK(value_of(p, {-2, -3}) == -2);  // -2.5 -> -2
  CHECK(value_of(p, {0, 0, 1}) == 0);  // 1/3 -> 0
  CHECK(value_of(p, {0, 1, 1}) == 1);  // 2/3 -> 1
  CHECK(value_of(p, {-1, -1, 0}) == -1);
  CHECK(value_of(p, {7}) == 7);
  // Clamped to [-1, 1] before averaging.
  CHECK(value_of(p, {5 * one, 5 * one}) == one);
  CHECK(value_of(p, {INT64_MIN, INT64_MIN, INT64_MAX}) == -21845);  // -65536 / 3 = -21845.33
  // Only the first T~ = 4 count.
  CHECK(value_of(p, {4, 4, 4, 4, -one, -one}) == 4);
  CHECK(value_of(p, {4, 4, 4, 4}) == 4);
}

TEST_CASE("P6: observations after T~ leave both reports bit-identical (same seed)") {
  for (const kent_shape& s : {shape(50), shape(50, 3, 2), shape(50, 5, 6, true)}) {
    const uint32_t d = s.vector_dim == 0 ? 1 : s.vector_dim;
    const params vote = ldp::wire::make_kent_vote(1.0, 9, s).block;
    const params refine = ldp::wire::make_kent_refine(1.0, -one / 2, one / 3, s).block;
    const auto base = observations(50 * d, 1);
    auto longer = base;
    const auto tail = observations(70 * d, 2, one / 2, one);  // far from the mean: it would move it
    longer.insert(longer.end(), tail.begin(), tail.end());
    for (const params& p : {vote, refine}) {
      CHECK(report_of(p, base, "p6") == report_of(p, longer, "p6"));
      CHECK(value_of(p, base) == value_of(p, longer));
      // With a cap above T, every observation counts.
      kent_shape wide = s;
      wide.observations = 200;
      const params q = p.mech == mechanism::kent_vote ? ldp::wire::make_kent_vote(1.0, 9, wide).block
                                                      : ldp::wire::make_kent_refine(1.0, -one / 2, one / 3, wide).block;
      CHECK(value_of(q, base) != value_of(q, longer));
    }
  }
}

TEST_CASE("M2: the fold's coordinate of the local mean") {
  const std::vector<int64_t> data = {10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42};  // T = 3, d = 4
  for (uint32_t j = 0; j < 4; ++j) {
    const params p = ldp::wire::make_kent_refine(1.0, -one, one, shape(10, 4, j)).block;
    CHECK(value_of(p, data) == 11 + 10 * static_cast<int64_t>(j));
  }
  const params p = ldp::wire::make_kent_vote(1.0, 8, shape(10, 4, 1)).block;
  device c(p);
  REQUIRE(c.code == status::ok);
  int64_t v = 0;
  // T * d values: 11 is not a multiple of d = 4.
  const std::vector<int64_t> ragged(data.begin(), data.end() - 1);
  CHECK(c->value(ragged, &v) == status::invalid_argument);
  CHECK(c->value({}, &v) == status::invalid_argument);
}

TEST_CASE("M3: coordinate j of U x, U = d~^(-1/2) H D, exactly rounded from the int32 rotation") {
  for (uint32_t d : {1u, 2u, 3u, 5u, 8u, 13u, 32u, 50u}) {
    uint32_t padded = 1;
    unsigned log2n = 0;
    while (padded < d) {
      padded <<= 1;
      ++log2n;
    }
    std::vector<uint32_t> signs(ldp::random::rotation_sign_words(padded));
    REQUIRE(ldp::random::rotation_signs(rotation_seed, padded, signs) == status::ok);
    const auto data = observations(3 * std::size_t{d}, d);  // T = 3
    // Rounded local means (ties to even) by plain arithmetic.
    std::vector<int64_t> mean(padded, 0);
    for (uint32_t i = 0; i < d; ++i) {
      const int64_t s = data[i] + data[d + i] + data[2 * d + i];
      mean[i] = static_cast<int64_t>(std::nearbyint(static_cast<double>(s) / 3.0));  // no ties at T = 3
    }
    for (uint32_t j = 0; j < padded; ++j) {
      CAPTURE(d);
      CAPTURE(j);
      int64_t t = 0;
      for (uint32_t i = 0; i < padded; ++i) {
        const bool flip = ((signs[i / 32] >> (i % 32)) & 1) != 0;
        const bool minus = (ldp::popcount32(i & j) & 1) != 0;
        t += (flip != minus ? -1 : 1) * mean[i];
      }
      const long double exact = static_cast<long double>(t) / std::sqrt(static_cast<long double>(padded));
      int64_t expected = static_cast<int64_t>(std::floor(exact + 0.5L));
      expected = expected < -one ? -one : expected > one ? one : expected;
      const params p = ldp::wire::make_kent_refine(1.0, -one, one, shape(3, d, j, true)).block;
      CHECK(value_of(p, data) == expected);
    }
    CHECK(log2n < 7);
  }
}

TEST_CASE("M3 on a spike: the rotated coordinate is +-x_1 / sqrt(d~) for every j") {
  const uint32_t d = 16;
  std::vector<int64_t> data(d, 0);
  data[0] = one;  // x = e_1, T = 1
  for (uint32_t j = 0; j < d; ++j) {
    const params p = ldp::wire::make_kent_vote(1.0, 8, shape(1, d, j, true)).block;
    CHECK(std::llabs(value_of(p, data)) == one / 4);
  }
}

TEST_CASE("statuses") {
  const params vote = ldp::wire::make_kent_vote(1.0, 70, shape(10, 6, 1, true)).block;
  // Two vote words (70 cells), one sign word, 8 rotated values.
  CHECK(user_level_context::workspace_size(vote) == 2 * 8 + 4 + 8 * 4 + 4);
  device c(vote);
  REQUIRE(c.code == status::ok);
  auto rng = ldp::test::seeded_drbg("statuses");
  std::vector<unsigned char> out(ldp::wire::max_report_size(vote));
  std::size_t size = 0;
  const auto data = observations(12, 3);
  CHECK(c->randomize(data, rng, out, framing::report, &size) == status::ok);
  user_level_context other;
  const ldp::span<std::byte> workspace = c.workspace;
  CHECK(user_level_context::init(workspace.subspan(0, workspace.size() - 1), vote, &other) ==
        status::workspace_too_small);
  CHECK(other.randomize(data, rng, out, framing::report, &size) == status::invalid_argument);
  std::vector<unsigned char> short_out(out.size() - 1);
  CHECK(c->randomize(data, rng, short_out, framing::report, &size) == status::buffer_too_small);
  const params sue = ldp::wire::make_sue(1.0, 10).block;
  CHECK(user_level_context::init(workspace, sue, &other) == status::invalid_argument);
  params broken = vote;
  broken.set(field::fold_coordinate, 8);
  CHECK(user_level_context::init(workspace, broken, &other) == status::invalid_parameters);
  params wide = vote;
  wide.set(field::threshold_bits, 33);  // the coins draw 32-bit thresholds
  REQUIRE(ldp::wire::validate(wide) == status::ok);
  CHECK(user_level_context::init(workspace, wide, &other) == status::unsupported);
}

TEST_CASE("reports decode under their block: N vote bits, a refine value inside its noise") {
  const auto data = observations(40 * 3, 9);
  for (const kent_shape& s : {shape(40), shape(40, 3, 1), shape(40, 3, 3, true)}) {
    const params vote = ldp::wire::make_kent_vote(1.0, 11, s).block;
    const auto bytes = report_of(vote, data, "decode");
    CHECK(bytes.size() == ldp::wire::report_header_size + 2);
    ldp::wire::report r;
    REQUIRE(ldp::wire::decode_report(vote, ldp::wire::fingerprint(vote), bytes, &r) == status::ok);
    CHECK(r.bits.size() == 2);
    const params refine = ldp::wire::make_kent_refine(1.0, -one / 4, one / 4, s).block;
    const auto refined = report_of(refine, data, "decode");
    REQUIRE(ldp::wire::decode_report(refine, ldp::wire::fingerprint(refine), refined, &r) == status::ok);
    // Payload and report agree.
    auto rng = ldp::test::seeded_drbg("decode");
    std::vector<unsigned char> payload(ldp::wire::max_payload_size(refine));
    std::size_t size = 0;
    REQUIRE(ldp::test::randomize_once<user_level_context>(refine, ldp::span<const int64_t>(data), rng, payload,
                                                          framing::payload, &size) == status::ok);
    payload.resize(size);
    CHECK(std::vector<unsigned char>(refined.begin() + ldp::wire::report_header_size, refined.end()) == payload);
  }
}

TEST_CASE("exact enumeration: the vote is alpha_impl-LDP for the whole dataset, tightly") {
  for (double alpha : {0.3, 1.0}) {
    for (uint32_t cells : {2u, 3u, 5u, 10u}) {
      CAPTURE(alpha);
      CAPTURE(cells);
      const auto derived = ldp::wire::make_kent_vote(alpha, cells, shape(4));
      REQUIRE(derived.code == status::ok);
      const params& p = derived.block;
      // Datasets of 4 observations: constant ones at every cell's first grid point, spread ones,
      // and the extremes; plus a fifth observation that the cap ignores.
      std::vector<std::vector<int64_t>> datasets;
      for (uint32_t k = 0; k < cells; ++k) {
        const int64_t x = ldp::wire::range_cell_edge(p, k);
        datasets.push_back({x, x, x, x});
      }
      datasets.push_back({-one, one, -one, one, one});
      datasets.push_back({-one, -one, -one, one});
      datasets.push_back({one, one, one, one, -one});
      std::vector<pmf> pmfs;
      for (const auto& data : datasets) pmfs.push_back(vote_pmf(p, data));
      long double worst = 0;
      for (const auto& a : pmfs) {
        for (const auto& b : pmfs) worst = std::max(worst, max_ratio(a, b));
      }
      const long double bound = std::exp(static_cast<long double>(derived.epsilon_impl));
      CHECK(derived.epsilon_impl <= alpha);
      CHECK(worst <= bound * (1 + 1e-12L));
      CHECK(worst >= bound * (1 - 1e-9L));
    }
  }
}

TEST_CASE("the enumeration catches a vote with the per-bit keep e^alpha / (1 + e^alpha)") {
  // C.1 test 1: the keep probability of a single bit at the full alpha doubles the level.
  params p = ldp::wire::make_kent_vote(1.0, 4, shape(4)).block;
  const uint64_t keep = ldp::wire::make_hr(1.0, 4).block.get(field::threshold_keep);  // e / (1 + e)
  p.set(field::threshold_keep, keep).set(field::threshold_other, (uint64_t{1} << 32) - keep);
  const int64_t x0 = ldp::wire::range_cell_edge(p, 0), x1 = ldp::wire::range_cell_edge(p, 1);
  CHECK(max_ratio(vote_pmf(p, {x0, x0}), vote_pmf(p, {x1, x1})) > std::exp(1.9L));
}
