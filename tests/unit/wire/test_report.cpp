// Reports: encode/decode round trips for random parameters and payloads (fixed seed), exact sizes,
// and a specific status for each way a report can be wrong.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ldp/random.h"
#include "ldp/wire.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;
using ldp::wire::payload_kind;

namespace {

std::vector<unsigned char> encode(const ldp::wire::params& p, const ldp::wire::report& r) {
  std::vector<unsigned char> out(ldp::wire::max_report_size(p));
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, out, &size) == status::ok);
  out.resize(size);
  return out;
}

status decode(const ldp::wire::params& p, const std::vector<unsigned char>& bytes) {
  ldp::wire::report r;
  return ldp::wire::decode_report(p, ldp::wire::fingerprint(p), bytes, &r);
}

// Random parameters around the example: domain, ranges and dimensions drawn from the generator.
ldp::wire::params random_params(mechanism m, ldp::random::drbg& rng) {
  auto p = ldp::test::example_params(m);
  const auto pick = [&](uint32_t lo, uint32_t hi) { return lo + ldp::random::uniform_below(rng, hi - lo + 1); };
  const uint32_t d = pick(2, 70000);
  switch (ldp::wire::kind_of(m)) {
    case payload_kind::index:
    case payload_kind::hash_bucket:
    case payload_kind::unary_bits:
      p.set(field::domain, d);
      if (m == mechanism::hr) {
        uint64_t k = 1;
        while (k <= d) k <<= 1;
        p.set(field::hadamard_dim, k);
      }
      if (m == mechanism::olh || m == mechanism::flh) p.set(field::hash_range, pick(2, 300));
      if (m == mechanism::flh) p.set(field::sketch_rows, pick(1, 65536));
      if (m == mechanism::square_wave) {  // D - 1 > 2b + 1 keeps the example's keep of 1/2 valid (G.1)
        const uint32_t buckets = pick(4, 65536);
        p.set(field::domain, buckets).set(field::window_half_width, pick(0, (buckets - 4) / 2));
      }
      break;
    case payload_kind::sketch_row:
    case payload_kind::sketch_cell:
      p.set(field::sketch_rows, pick(1, 300));
      p.set(field::sketch_columns, m == mechanism::hcms ? uint64_t{1} << pick(1, 17) : pick(2, 5000));
      break;
    case payload_kind::fixed_vector:
      if (m == mechanism::laplace_vector) p.set(field::domain, pick(1, 300));  // winsorized: domain = d~
      break;
    case payload_kind::unit_vector: p.set(field::domain, pick(1, 300)); break;
    case payload_kind::projected_unit: {
      const uint32_t dim = pick(1, 300);
      p.set(field::domain, dim).set(field::projection_dim, pick(1, dim));
      break;
    }
    case payload_kind::coordinate_bit:
    case payload_kind::coordinate_value: {
      if (ldp::wire::in_family(m, ldp::wire::mechanism_family::public_coin)) {  // K = n users, g < T (3.12)
        p.set(field::users, pick(16, 70000));
        if (m == mechanism::bernstein_genprot) p.set(field::public_strings, pick(2, 300));
        break;
      }
      uint64_t k = 1;
      while (k < d) k <<= 1;
      p.set(field::domain, d).set(field::hadamard_dim, k);
      break;
    }
    case payload_kind::sparse_pairs: p.set(field::domain, d).set(field::sparsity, pick(1, d < 40 ? d : 40)); break;
    case payload_kind::group_round: {
      if (ldp::wire::in_family(m, ldp::wire::mechanism_family::distribution)) {  // D = B^h <= 2^16 buckets
        const uint32_t b = m == mechanism::haar ? 2 : pick(2, 16);
        uint64_t buckets = b;
        for (uint32_t h = pick(1, 16); h > 1 && buckets * b <= (uint64_t{1} << 16); --h) buckets *= b;
        p.set(field::domain, buckets).set(field::hash_range, pick(3, 300));  // g = 2 makes the keep invalid
        if (m == mechanism::hierarchical) p.set(field::branching, b);
        break;
      }
      // The derived domain, the string length and the prefix step.
      p.set(field::domain, d).set(field::string_length, m == mechanism::sfp ? 2 * pick(1, 32) : pick(1, 64));
      if (m != mechanism::sfp) p.set(field::prefix_bits, uint64_t{1} << pick(0, 3));
      break;
    }
    case payload_kind::seeded_value:  // kent-support: d and s (the payload does not depend on them)
      p.set(field::domain, d).set(field::sparsity, pick(1, 40));
      break;
    case payload_kind::fixed_value:
    case payload_kind::bit: break;  // no size to draw: the example's range stays
  }
  REQUIRE(ldp::wire::validate(p) == status::ok);
  return p;
}

// A random valid report: every field drawn over its whole range.
ldp::test::example_report random_report(const ldp::wire::params& p, ldp::random::drbg& rng) {
  auto e = ldp::test::make_report(p, 0);
  auto& r = e.fields;
  const auto below = [&](uint64_t n) { return ldp::random::uniform_below64(rng, n); };
  const auto any_value = [&] {
    const int shift = static_cast<int>(below(64));
    return static_cast<int64_t>(rng.next_u64()) >> shift;  // magnitudes of every size, both signs
  };
  const uint64_t d = p.get(field::domain);
  switch (ldp::wire::kind_of(p.mech)) {
    case payload_kind::index: r.index = static_cast<uint32_t>(below(ldp::wire::index_payload_bound(p))); break;
    case payload_kind::unary_bits:
    case payload_kind::sketch_row: {
      const uint64_t nbits = ldp::wire::kind_of(p.mech) == payload_kind::unary_bits ? d : p.get(field::sketch_columns);
      e.bits.assign(static_cast<std::size_t>((nbits + 7) / 8), 0);
      rng.fill(e.bits);
      if (nbits % 8 != 0) e.bits.back() = static_cast<unsigned char>(e.bits.back() & ((1u << (nbits % 8)) - 1));
      r.bits = e.bits;
      if (p.mech == mechanism::cms) r.index = static_cast<uint32_t>(below(p.get(field::sketch_rows)));
      break;
    }
    case payload_kind::hash_bucket:
      r.seed = rng.next_u64();
      r.index = static_cast<uint32_t>(below(p.get(field::hash_range)));
      break;
    case payload_kind::sketch_cell:
      r.index = static_cast<uint32_t>(below(p.get(field::sketch_rows)));
      r.column = static_cast<uint32_t>(below(p.get(field::sketch_columns)));
      r.bit = static_cast<uint8_t>(below(2));
      break;
    case payload_kind::fixed_value: r.value = any_value(); break;
    case payload_kind::seeded_value:
      r.seed = rng.next_u64();
      r.value = any_value();
      break;
    case payload_kind::fixed_vector:
      e.values.clear();
      for (uint64_t i = 0; i < d; ++i) e.values.push_back(any_value());
      r.values = e.values;
      break;
    case payload_kind::projected_unit:
    case payload_kind::unit_vector:
      e.values.clear();
      if (ldp::wire::kind_of(p.mech) == payload_kind::projected_unit) r.seed = rng.next_u64();
      for (uint64_t i = 0; i < ldp::test::unit_payload_count(p); ++i) {
        e.values.push_back(static_cast<int64_t>(below(2 * uint64_t{ldp::wire::unit_coordinate_max} + 1)) -
                           static_cast<int64_t>(uint64_t{ldp::wire::unit_coordinate_max}));
      }
      r.values = e.values;
      break;
    case payload_kind::bit: r.bit = static_cast<uint8_t>(below(2)); break;
    case payload_kind::group_round:
      e = random_report(ldp::wire::group_inner_block(p), rng);
      e.fields.mech = p.mech;
      e.fields.group = static_cast<uint32_t>(below(ldp::wire::group_count(p)));
      break;
    case payload_kind::coordinate_bit:
    case payload_kind::coordinate_value:
      r.index = static_cast<uint32_t>(below(ldp::wire::coordinate_bound(p)));
      r.bit = static_cast<uint8_t>(below(2));
      r.value = p.mech == mechanism::bernstein_genprot ? static_cast<int64_t>(below(p.get(field::public_strings)))
                                                       : any_value();
      break;
    case payload_kind::sparse_pairs: {
      e.indices.clear();
      e.values.clear();
      const uint64_t count = below(p.get(field::sparsity) + 1);
      for (uint64_t i = 0; i < d && e.indices.size() < count; ++i) {
        if (below(d) < count * 2) {
          e.indices.push_back(static_cast<uint32_t>(i));
          const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
          int64_t v = lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
          e.values.push_back(v == 0 ? 1 : v);
        }
      }
      r.indices = e.indices;
      r.values = e.values;
      break;
    }
  }
  return e;
}

}  // namespace

TEST_CASE("property: random parameters and payloads survive encode and decode") {
  auto rng = ldp::test::seeded_drbg("wire round trip");
  for (mechanism m : ldp::test::all_mechanisms()) {
    for (int trial = 0; trial < 60; ++trial) {
      const auto p = random_params(m, rng);
      const auto e = random_report(p, rng);
      const auto bytes = encode(p, e.fields);
      const std::string oracle_name = ldp::wire::mechanism_name(m);
      CAPTURE(oracle_name);
      CAPTURE(ldp::test::to_hex(bytes.data(), bytes.size() < 64 ? bytes.size() : 64));
      CHECK(bytes.size() <= ldp::wire::max_report_size(p));
      const payload_kind kind = ldp::wire::kind_of(m);
      const bool fixed_size = kind != payload_kind::fixed_value && kind != payload_kind::fixed_vector &&
                              kind != payload_kind::coordinate_value && kind != payload_kind::sparse_pairs &&
                              kind != payload_kind::seeded_value;
      if (fixed_size) CHECK(bytes.size() == ldp::wire::max_report_size(p));
      ldp::wire::report r;
      REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), bytes, &r) == status::ok);
      CHECK(r.fingerprint == ldp::wire::fingerprint(p));
      CHECK(r.index == e.fields.index);
      CHECK(r.column == e.fields.column);
      CHECK(r.seed == e.fields.seed);
      if (kind != payload_kind::coordinate_value) CHECK(r.bit == e.fields.bit);
      if (kind == payload_kind::fixed_value || kind == payload_kind::coordinate_value) {
        CHECK(r.value == e.fields.value);
      }
      if (kind == payload_kind::unary_bits || kind == payload_kind::sketch_row) {
        CHECK(std::vector<unsigned char>(r.bits.begin(), r.bits.end()) == e.bits);
      }
      if (ldp::wire::is_vector_payload(kind)) {
        std::vector<int64_t> values(r.count);
        REQUIRE(ldp::wire::read_vector(r, values) == status::ok);
        CHECK(values == e.values);
      }
      if (kind == payload_kind::sparse_pairs) {
        std::vector<uint32_t> idx(r.count);
        std::vector<int64_t> val(r.count);
        REQUIRE(ldp::wire::read_sparse(p, r, idx, val) == status::ok);
        CHECK(idx == e.indices);
        CHECK(val == e.values);
      }
    }
  }
}

TEST_CASE("each defect of a report has its own status") {
  for (mechanism m : ldp::test::all_mechanisms()) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const auto p = ldp::test::example_params(m);
    const auto e = ldp::test::make_report(p, 1);
    const auto good = encode(p, e.fields);
    REQUIRE(decode(p, good) == status::ok);
    CHECK(decode(p, std::vector<unsigned char>(good.begin(), good.end() - 1)) == status::wrong_length);
    auto longer = good;
    longer.push_back(0);
    CHECK(decode(p, longer) == status::wrong_length);
    CHECK(decode(p, std::vector<unsigned char>(good.begin(), good.begin() + 9)) == status::wrong_length);
    auto version = good;
    version[0] = 9;
    CHECK(decode(p, version) == status::unsupported_version);
    auto unknown = good;
    unknown[1] = 0x7f;
    CHECK(decode(p, unknown) == status::unknown_mechanism);
    auto foreign = good;
    foreign[5] ^= 0x10;
    CHECK(decode(p, foreign) == status::parameter_mismatch);
    auto other = good;
    other[1] = static_cast<unsigned char>(m == mechanism::grr ? mechanism::hr : mechanism::grr);
    CHECK(decode(p, other) == status::parameter_mismatch);
  }
}

TEST_CASE("payload defects: out-of-range indices, reserved bits, non-canonical varints") {
  const auto payload_status = [](const ldp::wire::params& p, std::vector<unsigned char> bytes) {
    ldp::wire::report r;
    return ldp::wire::decode_payload(p, bytes, &r);
  };
  const auto grr = ldp::test::example_params(mechanism::grr);  // d = 10, one index byte
  CHECK(payload_status(grr, {9}) == status::ok);
  CHECK(payload_status(grr, {10}) == status::out_of_range);
  const auto sue = ldp::test::example_params(mechanism::sue);  // 10 bits in 2 bytes
  CHECK(payload_status(sue, {0xff, 0x03}) == status::ok);
  CHECK(payload_status(sue, {0xff, 0x07}) == status::reserved_bits_set);
  const auto duchi = ldp::test::example_params(mechanism::duchi);
  CHECK(payload_status(duchi, {1}) == status::ok);
  CHECK(payload_status(duchi, {2}) == status::reserved_bits_set);
  const auto hcms = ldp::test::example_params(mechanism::hcms);  // k = 16, m = 128
  CHECK(payload_status(hcms, {15, 127, 1}) == status::ok);
  CHECK(payload_status(hcms, {16, 127, 1}) == status::out_of_range);
  CHECK(payload_status(hcms, {15, 128, 1}) == status::out_of_range);
  const auto lap = ldp::test::example_params(mechanism::laplace);
  CHECK(payload_status(lap, {0x02}) == status::ok);                      // +1
  CHECK(payload_status(lap, {0x82, 0x00}) == status::malformed_report);  // +1, overlong
  CHECK(payload_status(lap, {0x80}) == status::wrong_length);            // continuation, then nothing
  CHECK(payload_status(lap, std::vector<unsigned char>(10, 0xff)) == status::malformed_report);
  std::vector<unsigned char> max(9, 0xff);
  max.push_back(0x01);  // zigzag 2^64 - 1 = INT64_MIN
  ldp::wire::report r;
  REQUIRE(ldp::wire::decode_payload(lap, max, &r) == status::ok);
  CHECK(r.value == INT64_MIN);
  const auto sparse = ldp::test::example_params(mechanism::sparse_projection);   // d = 1000, s = 4
  CHECK(payload_status(sparse, {1, 0x07, 0x00, 0x02}) == status::ok);            // 7 -> +1
  CHECK(payload_status(sparse, {5}) == status::out_of_range);                    // count > s
  CHECK(payload_status(sparse, {1, 0x07, 0x00, 0x00}) == status::out_of_range);  // value 0
  CHECK(payload_status(sparse, {2, 0x07, 0x00, 0x02, 0x07, 0x00, 0x02}) == status::out_of_range);
  CHECK(payload_status(sparse, {1, 0xe8, 0x03, 0x02}) == status::out_of_range);  // index 1000
}

TEST_CASE("the encoder refuses what the decoder would reject") {
  const auto grr = ldp::test::example_params(mechanism::grr);
  ldp::wire::report r;
  r.index = 10;
  std::vector<unsigned char> out(ldp::wire::max_report_size(grr));
  std::size_t size = 0;
  CHECK(ldp::wire::encode_report(grr, 1, r, out, &size) == status::out_of_range);
  r.index = 3;
  std::vector<unsigned char> tiny(10);
  CHECK(ldp::wire::encode_report(grr, 1, r, tiny, &size) == status::buffer_too_small);
  const auto sue = ldp::test::example_params(mechanism::sue);
  const unsigned char padded[2] = {0, 0x04};
  r.bits = padded;
  std::vector<unsigned char> out2(ldp::wire::max_report_size(sue));
  CHECK(ldp::wire::encode_report(sue, 1, r, out2, &size) == status::reserved_bits_set);
  const unsigned char short_bits[1] = {0};
  r.bits = short_bits;
  CHECK(ldp::wire::encode_report(sue, 1, r, out2, &size) == status::invalid_argument);
}

TEST_CASE("report sizes for typical parameters are constant expressions") {
  constexpr auto p = [] {
    ldp::wire::params q;
    q.mech = mechanism::oue;
    q.set(field::domain, 1000).set(field::threshold_bits, 32);
    q.set(field::threshold_keep, 2147483648u).set(field::threshold_other, 1155094610u);
    return q;
  }();
  static_assert(ldp::wire::max_report_size(p) == 10 + 125, "OUE, d = 1000: 125 payload bytes");
  unsigned char buffer[ldp::wire::max_report_size(p)];
  unsigned char bits[125] = {};
  ldp::wire::report r;
  r.bits = bits;
  std::size_t written = 0;
  REQUIRE(ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, buffer, &written) == ldp::status::ok);
  CHECK(written == sizeof buffer);  // the compile-time size is exact for unary reports
}
