// Server side of vector mean estimation (docs/mechanisms.md B.5, lib/server vector_mean.h): the estimate
// and variance against hand-evaluated formulas on crafted reports, rejected reports counted by
// status, merge order and serialization byte-identical, corrupted states refused with their
// status, and the L2-ball projection.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/rotation.h"
#include "ldp/server.h"
#include "ldp/server/mean.h"
#include "ldp/server/vector_mean.h"
#include "ldp/wire.h"
#include "tables.h"

using ldp::status;
using ldp::server::aggregator;
using ldp::server::estimate;
using ldp::wire::field;
using ldp::wire::mechanism;
using bytes = std::vector<unsigned char>;

namespace {

const unsigned char rotation_seed[32] = {0x42, 0x17};

ldp::wire::params block(mechanism m, uint32_t d) {
  const auto made = m == mechanism::vector_duchi ? ldp::wire::make_vector_duchi(d, 1.0, 16, 1.0, 1e-3, rotation_seed)
                                                 : ldp::wire::make_vector_laplace(d, 1.0, 16, 1.0, 1e-3, rotation_seed);
  REQUIRE(made.code == status::ok);
  return made.block;
}

std::unique_ptr<aggregator> make(const ldp::wire::params& p) {
  std::unique_ptr<aggregator> a;
  REQUIRE(aggregator::create(p, &a) == status::ok);
  return a;
}

ldp::span<const unsigned char> view(const bytes& b) { return {b.data(), b.size()}; }

bytes payload(const ldp::wire::params& p, uint32_t j, uint8_t bit, int64_t value) {
  ldp::wire::report r;
  r.mech = p.mech;
  r.index = j;
  r.bit = bit;
  r.value = value;
  bytes out(ldp::wire::max_payload_size(p));
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_payload(p, r, out, &size) == status::ok);
  out.resize(size);
  return out;
}

// Reports of random vectors from the device, as full reports.
std::vector<bytes> device_reports(const ldp::wire::params& p, const char* name, int count) {
  ldp::test::owned_context<ldp::device::vector_mean_context> ctx(p);
  REQUIRE(ctx.code == status::ok);
  auto rng = ldp::test::seeded_drbg(name);
  std::vector<int64_t> x(static_cast<std::size_t>(p.get(field::domain)));
  std::vector<bytes> out;
  for (int i = 0; i < count; ++i) {
    for (int64_t& v : x) v = static_cast<int64_t>(rng.next_u64()) >> 48;
    bytes b(ldp::wire::max_report_size(p));
    std::size_t size = 0;
    REQUIRE(ctx->randomize(x, rng, b, ldp::device::framing::report, &size) == status::ok);
    b.resize(size);
    out.push_back(b);
  }
  return out;
}

bytes with_body(mechanism m, uint64_t fp, const bytes& body) {
  bytes out(ldp::wire::state_header_size);
  REQUIRE(ldp::wire::encode_state_header(m, fp, body, out) == status::ok);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

// Where the counts start in a state body: block length, block, n, 16 rejection counters.
std::size_t counts_offset(const bytes& body) {
  return 2 + (std::size_t{body[0]} | std::size_t{body[1]} << 8) + 8 + 128;
}

void put_le(bytes& b, std::size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<unsigned char>(v >> (8 * i));
}

bool flipped(const std::vector<uint32_t>& signs, std::size_t i) { return ((signs[i / 32] >> (i % 32)) & 1u) != 0; }

}  // namespace

TEST_CASE("create serves vector-duchi and vector-laplace, and refuses a Duchi block without estimator") {
  for (mechanism m : {mechanism::vector_duchi, mechanism::vector_laplace}) {
    CHECK(ldp::server::is_vector_mean_mechanism(m));
    auto a = make(block(m, 100));
    CHECK(a->reports() == 0);
    // No reports: NaN values, infinite variance, one estimate per coordinate.
    const auto e = a->estimate_all();
    REQUIRE(e.size() == 100);
    CHECK(std::isnan(e[7].value));
    CHECK(e[7].variance == std::numeric_limits<double>::infinity());
    CHECK(e[7].item == 7);
  }
  CHECK_FALSE(ldp::server::is_vector_mean_mechanism(mechanism::duchi));
  auto p = block(mechanism::vector_duchi, 10);
  p.set(field::threshold_keep, uint64_t{1} << 31).set(field::threshold_other, uint64_t{1} << 31);
  CHECK(ldp::wire::validate(p) == status::invalid_parameters);  // epsilon 0 (issue 21)
  std::unique_ptr<aggregator> a;
  CHECK(aggregator::create(p, &a) == status::invalid_parameters);
}

TEST_CASE("vector-duchi: the estimate and variance of crafted reports, by hand") {
  // d = 3, d~ = 4 (L = 2, s = 1/2 exactly). Signed counts T = ones - zeros per coordinate.
  const auto p = block(mechanism::vector_duchi, 3);
  REQUIRE(p.get(field::hadamard_dim) == 4);
  auto a = make(p);
  const int ones[4] = {3, 0, 1, 2}, zeros[4] = {1, 2, 1, 0};
  for (uint32_t j = 0; j < 4; ++j) {
    for (int k = 0; k < ones[j]; ++k) REQUIRE(a->add_payload(view(payload(p, j, 1, 0))) == status::ok);
    for (int k = 0; k < zeros[j]; ++k) REQUIRE(a->add_payload(view(payload(p, j, 0, 0))) == status::ok);
  }
  const double n = 10;
  REQUIRE(a->reports() == 10);
  const double t[4] = {2, -2, 0, 2};
  const double ht[4] = {t[0] + t[1] + t[2] + t[3], t[0] - t[1] + t[2] - t[3], t[0] + t[1] - t[2] - t[3],
                        t[0] - t[1] - t[2] + t[3]};
  std::vector<uint32_t> signs(1);
  REQUIRE(ldp::random::rotation_signs(rotation_seed, 4, signs) == status::ok);
  const double r = static_cast<double>(p.get_signed(field::clip_hi)) / 65536, radius = 1.0;
  const double b = ldp::server::duchi_scale(p);
  const double z = 1.959963984540054;
  const auto e = a->estimate_all(0.95);
  REQUIRE(e.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    // x^ = D H S / (s n) with S = r B T and 1/s = 2.
    const double value = (flipped(signs, i) ? -1 : 1) * ht[i] * r * b * 2 / n;
    CHECK(e[i].value == doctest::Approx(value).epsilon(1e-12));
    const double c = std::min(radius, std::max(-radius, value));
    const double variance = (r * r * b * b * 4 - c * c) / n;
    CHECK(e[i].variance == doctest::Approx(variance).epsilon(1e-12));
    CHECK(e[i].ci_low == doctest::Approx(value - z * std::sqrt(variance)).epsilon(1e-9));
    CHECK(e[i].ci_high == doctest::Approx(value + z * std::sqrt(variance)).epsilon(1e-9));
  }
  CHECK(ldp::server::total_variance(e) == doctest::Approx(e[0].variance + e[1].variance + e[2].variance));
}

TEST_CASE("vector-laplace: the estimate and variance of crafted reports, odd log2 d~, by hand") {
  // d = 2, d~ = 2 (L = 1): s = 3037000500 / 2^32, and extreme values that need the 128-bit sums.
  const auto p = block(mechanism::vector_laplace, 2);
  REQUIRE(p.get(field::hadamard_dim) == 2);
  auto a = make(p);
  const int64_t big = std::numeric_limits<int64_t>::max();
  const int64_t values[] = {big, big, big, -5, 1000};
  const uint32_t coordinate[] = {0, 0, 0, 1, 1};
  for (int k = 0; k < 5; ++k) REQUIRE(a->add_payload(view(payload(p, coordinate[k], 0, values[k]))) == status::ok);
  const long double s0 = 3 * static_cast<long double>(big), s1 = 995;
  std::vector<uint32_t> signs(1);
  REQUIRE(ldp::random::rotation_signs(rotation_seed, 2, signs) == status::ok);
  const double inverse_scale = 4294967296.0 / 3037000500.0;
  const double grid = 1.0 / 65536, n = 5;
  const auto e = a->estimate_all();
  REQUIRE(e.size() == 2);
  const long double ht[2] = {s0 + s1, s0 - s1};
  const double sigma2 = ldp::server::laplace_noise_variance(p);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    const double value = (flipped(signs, i) ? -1 : 1) * static_cast<double>(ht[i]) * grid * inverse_scale / n;
    CHECK(e[i].value == doctest::Approx(value).epsilon(1e-12));
    const double c = std::min(1.0, std::max(-1.0, value));
    const double variance = (1.0 - c * c + (sigma2 + 0.25) * grid * grid * inverse_scale * inverse_scale) / n;
    CHECK(e[i].variance == doctest::Approx(variance).epsilon(1e-12));
  }
}

TEST_CASE("vector-laplace: the exact transform agrees with a dense sum on the int32, int64 and 128-bit paths") {
  // d = 8 = d~ (L = 3, odd). Values of magnitude 2^10, 2^40 and 2^62 put the sum of |S_j| below
  // 2^31, below 2^63, and above.
  const auto p = block(mechanism::vector_laplace, 8);
  std::vector<uint32_t> signs(1);
  REQUIRE(ldp::random::rotation_signs(rotation_seed, 8, signs) == status::ok);
  const double inverse_scale = 4294967296.0 / 3037000500.0 * 2;  // 1/s = 2^33 / 3037000500 for L = 3
  auto rng = ldp::test::seeded_drbg("transform paths");
  for (int bits : {10, 40, 62}) {
    CAPTURE(bits);
    auto a = make(p);
    std::vector<long double> sums(8, 0.0L);
    const int n = 40;
    for (int k = 0; k < n; ++k) {
      const uint32_t j = ldp::random::uniform_below(rng, 8);
      const int64_t v = static_cast<int64_t>(rng.next_u64()) >> (63 - bits);
      REQUIRE(a->add_payload(view(payload(p, j, 0, v))) == status::ok);
      sums[j] += static_cast<long double>(v);
    }
    const auto e = a->estimate_all();
    for (uint32_t i = 0; i < 8; ++i) {
      long double h = 0;  // row i of H times the sums
      for (uint32_t j = 0; j < 8; ++j) h += ((ldp::popcount32(i & j) & 1u) != 0 ? -1 : 1) * sums[j];
      const double want = (flipped(signs, i) ? -1 : 1) * static_cast<double>(h) / 65536 * inverse_scale / n;
      CHECK(e[i].value == doctest::Approx(want).epsilon(1e-12));
    }
  }
}

TEST_CASE("bad reports are rejected by status and counted; the others still count") {
  for (mechanism m : {mechanism::vector_duchi, mechanism::vector_laplace}) {
    const auto p = block(m, 100);  // d~ = 128: the coordinate is one byte
    auto a = make(p);
    const std::vector<bytes> good = device_reports(p, "bad input", 20);
    const auto count = [&](status s) { return a->rejected()[static_cast<std::size_t>(s)]; };
    for (const bytes& g : good) {
      bytes wrong_coordinate = g;
      wrong_coordinate[10] = 128;  // = d~
      CHECK(a->add_report(wrong_coordinate) == status::out_of_range);
      bytes foreign = g;
      foreign[2] ^= 1;
      CHECK(a->add_report(foreign) == status::parameter_mismatch);
      CHECK(a->add_report(view(bytes(g.begin(), g.end() - 1))) == status::wrong_length);
      CHECK(a->add_report(g) == status::ok);
    }
    if (m == mechanism::vector_duchi) {
      bytes reserved = good[0];
      reserved[11] = 2;
      CHECK(a->add_report(reserved) == status::reserved_bits_set);
      CHECK(count(status::reserved_bits_set) == 1);
    } else {
      bytes overlong = good[0];
      overlong.back() |= 0x80;
      overlong.push_back(0);
      CHECK(a->add_report(overlong) == status::malformed_report);
      CHECK(count(status::malformed_report) == 1);
    }
    CHECK(a->reports() == 20);
    CHECK(count(status::out_of_range) == 20);
    CHECK(count(status::parameter_mismatch) == 20);
    CHECK(count(status::wrong_length) == 20);
    auto clean = make(p);
    for (const bytes& g : good) REQUIRE(clean->add_report(g) == status::ok);
    const auto x = a->estimate_all(), y = clean->estimate_all();
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(x[i].value == y[i].value);
  }
}

TEST_CASE("merge: any split in any order serializes to identical bytes; round trip") {
  for (mechanism m : {mechanism::vector_duchi, mechanism::vector_laplace}) {
    const auto p = block(m, 50);
    const std::vector<bytes> reports = device_reports(p, "merge order", 90);
    auto all = make(p);
    for (const bytes& r : reports) REQUIRE(all->add_report(r) == status::ok);
    const bytes expected = all->serialize();
    REQUIRE_FALSE(expected.empty());
    const std::size_t cuts[][2] = {{0, 90}, {30, 60}, {1, 89}, {45, 46}};
    for (const auto& cut : cuts) {
      auto a = make(p), b = make(p), c = make(p);
      for (std::size_t i = 0; i < reports.size(); ++i) {
        aggregator& target = i < cut[0] ? *a : i < cut[1] ? *b : *c;
        REQUIRE(target.add_report(reports[i]) == status::ok);
      }
      auto left = make(p), right = make(p);
      REQUIRE(left->merge(*a) == status::ok);
      REQUIRE(left->merge(*b) == status::ok);
      REQUIRE(left->merge(*c) == status::ok);
      REQUIRE(right->merge(*c) == status::ok);
      REQUIRE(right->merge(*a) == status::ok);
      REQUIRE(right->merge(*b) == status::ok);
      CHECK(left->serialize() == expected);
      CHECK(right->serialize() == expected);
    }
    std::unique_ptr<aggregator> back;
    REQUIRE(aggregator::deserialize(view(expected), &back) == status::ok);
    CHECK(back->serialize() == expected);
    CHECK(back->reports() == 90);
    const auto x = all->estimate_all(), y = back->estimate_all();
    REQUIRE(x.size() == y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      CHECK(x[i].value == y[i].value);
      CHECK(x[i].variance == y[i].variance);
    }
    // Another block (another rotation seed) refuses to merge.
    auto q = p;
    q.rotation_seed[0] ^= 1;
    auto other = make(q);
    CHECK(all->merge(*other) == status::parameter_mismatch);
    CHECK(all->serialize() == expected);
  }
}

TEST_CASE("corrupted states are refused with a specific status") {
  for (mechanism m : {mechanism::vector_duchi, mechanism::vector_laplace}) {
    const auto p = block(m, 10);  // d~ = 16
    auto a = make(p);
    for (const bytes& r : device_reports(p, "corrupted", 30)) REQUIRE(a->add_report(r) == status::ok);
    const bytes state = a->serialize();
    const bytes body(state.begin() + 32, state.end());
    const std::size_t at = counts_offset(body);
    const std::size_t stride = m == mechanism::vector_duchi ? 16 : 24;
    REQUIRE(body.size() == at + 16 * stride);
    std::unique_ptr<aggregator> out;
    const auto load = [&](const bytes& b) {
      return aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out);
    };
    CHECK(load(body) == status::ok);
    bytes shorter = body;
    shorter.pop_back();
    CHECK(load(shorter) == status::wrong_length);
    // Counts that do not add up to n.
    bytes b = body;
    put_le(b, at, 0);
    put_le(b, at + stride, 0);
    CHECK(load(b) == status::malformed_report);
    if (m == mechanism::vector_duchi) {
      b = body;
      put_le(b, at + 8, 31);  // more ones than n_0 (at most 30)
      CHECK(load(b) == status::malformed_report);
    } else {
      // A sum that n_0 int64 values cannot reach: 2^64 * 2^62 (the high limb 2^62).
      b = body;
      put_le(b, at + 8, 0);
      put_le(b, at + 16, uint64_t{1} << 62);
      CHECK(load(b) == status::malformed_report);
    }
    bytes flipped_byte = state;
    flipped_byte[40] ^= 1;
    CHECK(aggregator::deserialize(view(flipped_byte), &out) == status::checksum_mismatch);
  }
}

TEST_CASE("project_l2_ball: the nearest point of the ball") {
  std::vector<double> out;
  const std::vector<double> inside = {0.3, -0.4};
  REQUIRE(ldp::server::project_l2_ball(inside, 0.5, &out) == status::ok);
  CHECK(out == inside);
  const std::vector<double> outside = {3.0, -4.0, 0.0};
  REQUIRE(ldp::server::project_l2_ball(outside, 1.0, &out) == status::ok);
  CHECK(out[0] == doctest::Approx(0.6));
  CHECK(out[1] == doctest::Approx(-0.8));
  CHECK(out[2] == 0.0);
  // Huge and tiny coordinates: the norm is taken without overflow or underflow.
  const std::vector<double> huge = {1e300, 1e300};
  REQUIRE(ldp::server::project_l2_ball(huge, 2.0, &out) == status::ok);
  CHECK(out[0] == doctest::Approx(std::sqrt(2.0)));
  const std::vector<double> tiny = {3e-310, 4e-310};
  REQUIRE(ldp::server::project_l2_ball(tiny, 1e-310, &out) == status::ok);
  CHECK(out[0] == doctest::Approx(0.6e-310).epsilon(1e-6));
  const std::vector<double> zero = {0.0, 0.0};
  REQUIRE(ldp::server::project_l2_ball(zero, 0.0, &out) == status::ok);
  CHECK(out == zero);
  const std::vector<double> nan = {std::nan("")};
  CHECK(ldp::server::project_l2_ball(nan, 1.0, &out) == status::invalid_argument);
  CHECK(ldp::server::project_l2_ball(inside, -1.0, &out) == status::invalid_argument);
  CHECK(ldp::server::project_l2_ball(inside, std::numeric_limits<double>::infinity(), &out) ==
        status::invalid_argument);
  CHECK(ldp::server::project_l2_ball(inside, 1.0, nullptr) == status::invalid_argument);
}
