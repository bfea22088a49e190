// Server side of the scalar numeric mechanisms (ldp/server/mean.h): exact 128-bit sums and the
// estimates they give on chosen reports, rejection of bad reports by status, merge order and
// serialization (byte-identical, round trip, corrupted states rejected), batches, the closed-form
// noise variance against the pmf, and clamping.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/base/bits.h"
#include "ldp/device.h"
#include "ldp/server.h"
#include "ldp/wire.h"
#include "merge_order.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::span;
using ldp::status;
using ldp::server::aggregator;
using ldp::wire::field;
using ldp::wire::mechanism;
using bytes = std::vector<unsigned char>;

namespace {

std::unique_ptr<aggregator> make(const ldp::wire::params& p) { return ldp::test::make_aggregator(p); }

bytes report_of(const ldp::wire::params& p, const ldp::wire::report& r) {
  bytes out(ldp::wire::max_report_size(p));
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, out, &size) == status::ok);
  out.resize(size);
  return out;
}

bytes value_report(const ldp::wire::params& p, int64_t v) {
  ldp::wire::report r;
  r.mech = p.mech;
  r.value = v;
  return report_of(p, r);
}

bytes bit_report(const ldp::wire::params& p, uint8_t b) {
  ldp::wire::report r;
  r.mech = p.mech;
  r.bit = b;
  return report_of(p, r);
}

// A view of a temporary, alive to the end of the full expression.
span<const unsigned char> view(const bytes& b) { return {b.data(), b.size()}; }

// Device reports of inputs xs (fixed point), from one named stream.
std::vector<bytes> device_reports(const ldp::wire::params& p, const std::vector<int64_t>& xs, const char* seed) {
  auto rng = ldp::test::seeded_drbg(seed);
  std::vector<bytes> out;
  for (int64_t x : xs) {
    bytes b(ldp::wire::max_report_size(p));
    std::size_t size = 0;
    REQUIRE(ldp::test::randomize_once<ldp::device::mean_context>(p, x, rng, b, ldp::device::framing::report, &size) ==
            status::ok);
    b.resize(size);
    out.push_back(b);
  }
  return out;
}

// The state of block p with its counts section replaced (offset from the end) and the CRCs redone.
bytes with_counts(const ldp::wire::params& p, bytes state, std::size_t from_end, const bytes& counts) {
  std::copy(counts.begin(), counts.end(), state.end() - static_cast<std::ptrdiff_t>(from_end));
  const auto body = span<const unsigned char>(state.data() + ldp::wire::state_header_size,
                                              state.size() - ldp::wire::state_header_size);
  REQUIRE(ldp::wire::encode_state_header(p.mech, ldp::wire::fingerprint(p), body,
                                         span<unsigned char>(state.data(), ldp::wire::state_header_size)) ==
          status::ok);
  return state;
}

bytes le128(uint64_t lo, uint64_t hi) {
  bytes b(16);
  ldp::store_le64(b.data(), lo);
  ldp::store_le64(b.data() + 8, hi);
  return b;
}

}  // namespace

TEST_CASE("the mean family serves laplace, laplace-vector, duchi, kent-refine and the chapter H members") {
  for (mechanism m : ldp::test::all_mechanisms()) {
    CHECK(ldp::server::is_mean_mechanism(m) == (m == mechanism::laplace || m == mechanism::laplace_vector ||
                                                m == mechanism::duchi || m == mechanism::kent_refine ||
                                                m == mechanism::bernstein || m == mechanism::kway_marginals ||
                                                m == mechanism::smooth_queries));
  }
  for (mechanism m : {mechanism::laplace, mechanism::laplace_vector, mechanism::duchi, mechanism::kent_refine,
                      mechanism::bernstein, mechanism::kway_marginals, mechanism::smooth_queries}) {
    const auto a = make(ldp::test::example_params(m));
    CHECK(a->reports() == 0);
    const auto e = a->estimate_all();
    REQUIRE(e.size() == (m == mechanism::laplace_vector || m == mechanism::smooth_queries ? 4u
                         : m == mechanism::bernstein                                      ? 9u
                         : m == mechanism::kway_marginals                                 ? 10u
                                                                                          : 1u));
    CHECK(std::isnan(e[0].value));
    CHECK(std::isinf(e[0].variance));
  }
  // Duchi at epsilon 0 (T_lo = T_hi) is a valid block without an estimator.
  auto flat = ldp::test::example_params(mechanism::duchi);
  flat.set(field::threshold_keep, uint64_t{1} << 31).set(field::threshold_other, uint64_t{1} << 31);
  std::unique_ptr<aggregator> a;
  CHECK(aggregator::create(flat, &a) == status::invalid_parameters);
  CHECK(a == nullptr);
}

TEST_CASE("Laplace sums are exact 128-bit integers: extreme reports, exact means") {
  const auto p = ldp::test::example_params(mechanism::laplace);  // f = 16
  const auto a = make(p);
  const bytes max = value_report(p, INT64_MAX), min = value_report(p, INT64_MIN);
  for (int i = 0; i < 1000; ++i) REQUIRE(a->add_report(max) == status::ok);
  auto e = a->estimate_all();
  CHECK(e[0].value == std::ldexp(9223372036854775807.0, -16));
  for (int i = 0; i < 1000; ++i) REQUIRE(a->add_report(min) == status::ok);
  REQUIRE(a->add_report(view(value_report(p, 65536 * 2000 + 2000))) == status::ok);  // sum: -1000 + 2000 * 65537
  e = a->estimate_all();
  CHECK(e[0].value == doctest::Approx((2000.0 * 65537 - 1000) / 2001 / 65536).epsilon(1e-15));
  // Variance: gamma^2 sigma^2 / n with t = 3 grid units.
  const double alpha = std::exp(-1.0 / 3);
  const double sigma2 = 2 * alpha / ((1 - alpha) * (1 - alpha));
  CHECK(ldp::server::laplace_noise_variance(p) == doctest::Approx(sigma2).epsilon(1e-14));
  CHECK(e[0].variance == doctest::Approx(sigma2 / 65536.0 / 65536.0 / 2001).epsilon(1e-14));
  const double half = 1.959963984540054 * std::sqrt(e[0].variance);
  CHECK(e[0].ci_low == doctest::Approx(e[0].value - half).epsilon(1e-9));
  CHECK(e[0].ci_high == doctest::Approx(e[0].value + half).epsilon(1e-9));
  // A negative sum below -2^64 survives a save and load.
  const auto b = make(p);
  for (int i = 0; i < 5; ++i) REQUIRE(b->add_report(min) == status::ok);
  std::unique_ptr<aggregator> back;
  REQUIRE(aggregator::deserialize(view(b->serialize()), &back) == status::ok);
  CHECK(back->estimate_all()[0].value == std::ldexp(-9223372036854775808.0, -16));
}

TEST_CASE("laplace-vector and kent-refine estimates per coordinate") {
  const auto p = ldp::test::example_params(mechanism::laplace_vector);  // d = 4, f = 16
  const auto a = make(p);
  std::vector<int64_t> v1 = {65536, -65536, 3, 0}, v2 = {0, -65536, 5, 1 << 20};
  for (const auto& v : {v1, v2}) {
    ldp::wire::report r;
    r.mech = p.mech;
    r.values = v;
    REQUIRE(a->add_report(view(report_of(p, r))) == status::ok);
  }
  const auto e = a->estimate_all();
  REQUIRE(e.size() == 4);
  for (uint32_t j = 0; j < 4; ++j) {
    CHECK(e[j].item == j);
    CHECK(e[j].value == std::ldexp(static_cast<double>(v1[j] + v2[j]) / 2, -16));
  }
  CHECK(e[0].variance == e[3].variance);

  const auto refine = ldp::test::example_params(mechanism::kent_refine);
  const auto k = make(refine);
  REQUIRE(k->add_report(view(value_report(refine, -6554))) == status::ok);
  REQUIRE(k->add_report(view(value_report(refine, 19661))) == status::ok);
  CHECK(k->estimate_all()[0].value == std::ldexp((19661.0 - 6554) / 2, -16));
}

TEST_CASE("Duchi: the estimate from the count of ones, B-hat from the thresholds") {
  const auto p = ldp::wire::make_duchi(0.0, 10.0, 8, 1.0).block;
  const double b = ldp::server::duchi_scale(p);
  const double t_hi = static_cast<double>(p.get(field::threshold_keep)),
               t_lo = static_cast<double>(p.get(field::threshold_other));
  CHECK(b == 4294967296.0 / (t_hi - t_lo));
  const auto a = make(p);
  for (int i = 0; i < 30; ++i) REQUIRE(a->add_report(view(bit_report(p, 1))) == status::ok);
  for (int i = 0; i < 10; ++i) REQUIRE(a->add_report(view(bit_report(p, 0))) == status::ok);
  const auto e = a->estimate_all();
  const double y = b * (30.0 - 10.0) / 40.0;  // B-hat (2 ones - n) / n
  CHECK(e[0].value == doctest::Approx(5.0 + 5.0 * y).epsilon(1e-14));
  const double yc = std::min(1.0, y);
  CHECK(e[0].variance == doctest::Approx(25.0 * (b * b - yc * yc) / 39.0).epsilon(1e-14));
  const auto one = make(p);
  REQUIRE(one->add_report(view(bit_report(p, 0))) == status::ok);
  CHECK(one->estimate_all()[0].variance == doctest::Approx(25.0 * b * b).epsilon(1e-14));
}

TEST_CASE("bad reports are rejected by status and counted; the good ones around them count") {
  const auto lap = ldp::test::example_params(mechanism::laplace);
  const auto a = make(lap);
  const bytes good = value_report(lap, 12345);
  REQUIRE(a->add_report(good) == status::ok);
  CHECK(a->add_report(view(bytes(good.begin(), good.end() - 1))) == status::wrong_length);  // varint cut
  bytes foreign = good;
  foreign[5] ^= 1;
  CHECK(a->add_report(foreign) == status::parameter_mismatch);
  bytes overlong = good;
  overlong.back() |= 0x80;
  overlong.push_back(0);
  CHECK(a->add_report(overlong) == status::malformed_report);
  bytes longer = good;
  longer.push_back(1);
  CHECK(a->add_report(longer) == status::wrong_length);
  REQUIRE(a->add_report(good) == status::ok);
  CHECK(a->reports() == 2);
  CHECK(a->rejected()[static_cast<std::size_t>(status::wrong_length)] == 2);
  CHECK(a->rejected()[static_cast<std::size_t>(status::parameter_mismatch)] == 1);
  CHECK(a->rejected()[static_cast<std::size_t>(status::malformed_report)] == 1);
  CHECK(a->estimate_all()[0].value == std::ldexp(12345.0, -16));

  const auto duchi = ldp::test::example_params(mechanism::duchi);
  const auto d = make(duchi);
  bytes reserved = bit_report(duchi, 1);
  reserved.back() = 3;
  CHECK(d->add_report(reserved) == status::reserved_bits_set);
  CHECK(d->add_payload(view(bytes{2})) == status::reserved_bits_set);
  CHECK(d->add_payload(view(bytes{})) == status::wrong_length);
  CHECK(d->add_payload(view(bytes{1})) == status::ok);
  CHECK(d->reports() == 1);

  const auto vec = ldp::test::example_params(mechanism::laplace_vector);
  const auto v = make(vec);
  bytes three(ldp::wire::report_header_size);
  std::copy(good.begin(), good.begin() + 2, three.begin());
  three[1] = static_cast<unsigned char>(mechanism::laplace_vector);
  ldp::store_le64(three.data() + 2, ldp::wire::fingerprint(vec));
  for (int i = 0; i < 3; ++i) three.push_back(0x02);  // three of the four entries
  CHECK(v->add_report(three) == status::wrong_length);
  three.push_back(0x04);
  CHECK(v->add_report(three) == status::ok);
  CHECK(v->estimate_all()[3].value == std::ldexp(2.0, -16));
}

TEST_CASE("merge in any order and any split gives identical bytes; mismatched blocks refuse") {
  const auto p = ldp::wire::make_laplace(-1.0, 1.0, 16, 1.0).block;
  std::vector<int64_t> xs;
  for (int i = 0; i < 90; ++i) xs.push_back((i * 7919) % 131073 - 65536);
  const auto reports = device_reports(p, xs, "merge order");
  const auto whole = make(p);
  for (const auto& r : reports) REQUIRE(whole->add_report(r) == status::ok);
  const bytes expected = whole->serialize();
  ldp::test::check_merge_order(p, reports, {0, 1, 45, 89}, expected);
  const auto other = make(ldp::wire::make_laplace(-1.0, 1.0, 16, 2.0).block);
  CHECK(whole->merge(*other) == status::parameter_mismatch);
  CHECK(whole->serialize() == expected);
  const auto duchi = make(ldp::wire::make_duchi(-1.0, 1.0, 16, 1.0).block);
  CHECK(whole->merge(*duchi) == status::parameter_mismatch);
}

TEST_CASE("saved state: round trip, and every corrupted count rejected") {
  // Laplace: n = 3, one sum of 16 bytes at the end.
  const auto p = ldp::test::example_params(mechanism::laplace);
  const auto a = make(p);
  for (int64_t v : {INT64_MIN, INT64_MIN, int64_t{-5}}) REQUIRE(a->add_report(view(value_report(p, v))) == status::ok);
  const bytes state = a->serialize();
  std::unique_ptr<aggregator> back;
  REQUIRE(aggregator::deserialize(state, &back) == status::ok);
  CHECK(back->serialize() == state);
  CHECK(back->reports() == 3);
  // -3 * 2^63 is reachable by three int64, one less is not; 3 (2^63 - 1) is, one more is not.
  const uint64_t m3 = uint64_t{3} << 63;  // low limb of -(3 * 2^63) = -2^64 - 2^63
  CHECK(aggregator::deserialize(view(with_counts(p, state, 16, le128(m3, ~uint64_t{0} - 1))), &back) == status::ok);
  CHECK(aggregator::deserialize(view(with_counts(p, state, 16, le128(m3 - 1, ~uint64_t{0} - 1))), &back) ==
        status::malformed_report);
  CHECK(back == nullptr);
  const uint64_t p3 = 3 * ((uint64_t{1} << 63) - 1);  // 3 (2^63 - 1) = 2^64 + 2^63 - 3
  CHECK(aggregator::deserialize(view(with_counts(p, state, 16, le128(p3, 1))), &back) == status::ok);
  CHECK(aggregator::deserialize(view(with_counts(p, state, 16, le128(p3 + 1, 1))), &back) == status::malformed_report);
  CHECK(aggregator::deserialize(view(with_counts(p, state, 16, le128(0, uint64_t{1} << 63))), &back) ==
        status::malformed_report);
  // Truncated and extended bodies (CRCs redone) are wrong_length.
  bytes shorter(state.begin(), state.end() - 1);
  REQUIRE(ldp::wire::encode_state_header(p.mech, ldp::wire::fingerprint(p),
                                         span<const unsigned char>(shorter.data() + 32, shorter.size() - 32),
                                         span<unsigned char>(shorter.data(), 32)) == status::ok);
  CHECK(aggregator::deserialize(shorter, &back) == status::wrong_length);
  bytes flipped = state;
  flipped.back() ^= 0x10;
  CHECK(aggregator::deserialize(flipped, &back) == status::checksum_mismatch);

  // Duchi: more ones than reports.
  const auto duchi = ldp::test::example_params(mechanism::duchi);
  const auto d = make(duchi);
  for (int b : {1, 0, 1}) REQUIRE(d->add_report(view(bit_report(duchi, static_cast<uint8_t>(b)))) == status::ok);
  const bytes dstate = d->serialize();
  REQUIRE(aggregator::deserialize(dstate, &back) == status::ok);
  CHECK(back->serialize() == dstate);
  bytes three(8, 0), four(8, 0);
  three[0] = 3;
  four[0] = 4;
  CHECK(aggregator::deserialize(view(with_counts(duchi, dstate, 8, three)), &back) == status::ok);
  CHECK(aggregator::deserialize(view(with_counts(duchi, dstate, 8, four)), &back) == status::malformed_report);
}

TEST_CASE("batches: Duchi runs of one-byte records, a reserved bit rejects only its record") {
  const auto p = ldp::test::example_params(mechanism::duchi);
  const auto a = make(p), b = make(p);
  bytes batch(1024);
  std::size_t n = 0;
  REQUIRE(ldp::wire::encode_batch_header(p, batch, &n) == status::ok);
  batch.resize(n);
  const auto add_chunk = [&](const std::vector<bytes>& payloads) {
    bytes buffer(4096);
    ldp::wire::chunk_writer w(buffer);
    for (const bytes& pl : payloads) REQUIRE(w.add(pl) == status::ok);
    const auto c = w.finish();
    batch.insert(batch.end(), c.begin(), c.end());
  };
  std::vector<bytes> run, broken;
  for (int i = 0; i < 100; ++i) run.push_back(bytes{static_cast<unsigned char>(i % 3 == 0)});
  broken = run;
  broken[17] = bytes{2};
  add_chunk(run);
  add_chunk(broken);
  add_chunk({});
  CHECK(a->add_batch(batch) == status::ok);
  CHECK(a->reports() == 199);
  CHECK(a->rejected()[static_cast<std::size_t>(status::reserved_bits_set)] == 1);
  // The same records one by one give the same state.
  for (const auto* chunk : {&run, &broken}) {
    for (const bytes& pl : *chunk) static_cast<void>(b->add_payload(pl));
  }
  CHECK(a->serialize() == b->serialize());
}

TEST_CASE("laplace_noise_variance is the variance of the discrete Laplace pmf") {
  for (const auto& scale : {std::pair<uint64_t, uint64_t>{7, 10}, {3, 1}, {50, 1}, {123457, 65536}}) {
    auto p = ldp::test::example_params(mechanism::laplace);
    p.set(field::scale_num, scale.first).set(field::scale_den, scale.second);
    const double t = static_cast<double>(scale.first) / static_cast<double>(scale.second);
    const double alpha = std::exp(-1 / t);
    double sum = 0;  // sum over y of y^2 P(y), P(y) = (1 - alpha)/(1 + alpha) alpha^|y|
    for (int y = 1; y < 4000; ++y) sum += 2.0 * y * y * std::pow(alpha, y);
    sum *= (1 - alpha) / (1 + alpha);
    CHECK(ldp::server::laplace_noise_variance(p) == doctest::Approx(sum).epsilon(1e-12));
  }
}

TEST_CASE("clamp_means: values and interval ends into the range, variance kept") {
  const auto p = ldp::wire::make_laplace(0.0, 10.0, 8, 1.0).block;
  const ldp::server::estimate raw[] = {{0, -3.0, 4.0, -7.0, 1.0}, {1, 5.0, 1.0, 3.0, 7.0}, {2, 12.0, 4.0, 8.0, 16.0}};
  const auto c = ldp::server::clamp_means(raw, p);
  REQUIRE(c.size() == 3);
  CHECK(c[0].value == 0.0);
  CHECK(c[0].ci_low == 0.0);
  CHECK(c[0].ci_high == 1.0);
  CHECK(c[0].variance == 4.0);
  CHECK(c[1].value == 5.0);
  CHECK(c[2].value == 10.0);
  CHECK(c[2].ci_low == 8.0);
  CHECK(c[2].ci_high == 10.0);
  const auto refine = ldp::test::example_params(mechanism::kent_refine);  // interval [-6554, 19661] / 2^16
  const ldp::server::estimate wide[] = {{0, 1.0, 0.1, -1.0, 2.0}};
  const auto k = ldp::server::clamp_means(wide, refine);
  CHECK(k[0].value == std::ldexp(19661.0, -16));
  CHECK(k[0].ci_low == std::ldexp(-6554.0, -16));
}
