// Writes the golden report files: `generate_golden DIR` fills DIR/valid and DIR/invalid with one
// <name>.txt per case: a `#` comment, `params <hex>`, `report <hex>`, then `expect <describe()>`
// (valid) or `status <status_name>` (invalid). Each case states the status it is meant to produce
// and the generator decodes it before writing, so a decoder change makes it fail instead of
// silently rewriting the expectations. unit.golden_up_to_date compares its output with the
// checked-in tests/golden; unit.wire.test_golden decodes the checked-in files on every target.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "ldp/wire.h"
#include "wire_examples.h"

namespace {

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;
using ldp::wire::payload_kind;
using bytes = std::vector<unsigned char>;

struct golden_case {
  std::string name;
  std::string comment;
  ldp::wire::params params;
  bytes report;
  status expected;  // ok for the valid files
};

// Little-endian fields and zigzag LEB128 varints, built by hand so that broken encodings (which the
// library's encoder refuses to produce) can be written too.
struct builder {
  bytes out;
  builder& le(uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
    return *this;
  }
  builder& raw(std::initializer_list<unsigned char> b) {
    out.insert(out.end(), b);
    return *this;
  }
  builder& uvarint(uint64_t v) {
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<unsigned char>((v & 0x7f) | 0x80));
    out.push_back(static_cast<unsigned char>(v));
    return *this;
  }
  builder& varint(int64_t v) { return uvarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
};

std::string file_stem(mechanism m) {
  std::string s = ldp::wire::mechanism_name(m);
  for (char& c : s) {
    if (c == '-') c = '_';
  }
  return s;
}

builder header(const ldp::wire::params& p) {
  builder b;
  b.le(ldp::wire::report_version, 1).le(static_cast<uint8_t>(p.mech), 1);
  b.le(ldp::wire::fingerprint(p), 8);
  return b;
}

bytes encode(const ldp::wire::params& p, const ldp::wire::report& r) {
  bytes out(ldp::wire::max_report_size(p));
  std::size_t size = 0;
  const status s = ldp::wire::encode_report(p, ldp::wire::fingerprint(p), r, out, &size);
  if (s != status::ok) {
    std::fprintf(stderr, "encode_report(%s): %s\n", ldp::wire::mechanism_name(p.mech), ldp::status_name(s));
    std::exit(1);
  }
  out.resize(size);
  return out;
}

bytes example(const ldp::wire::params& p, unsigned variant = 0) {
  return encode(p, ldp::test::make_report(p, variant).fields);
}

// One representative mechanism per payload kind, for the cases every kind gets.
mechanism representative(payload_kind k) {
  switch (k) {
    case payload_kind::index: return mechanism::grr;
    case payload_kind::unary_bits: return mechanism::sue;
    case payload_kind::hash_bucket: return mechanism::olh;
    case payload_kind::sketch_row: return mechanism::cms;
    case payload_kind::sketch_cell: return mechanism::hcms;
    case payload_kind::fixed_value: return mechanism::laplace;
    case payload_kind::fixed_vector: return mechanism::laplace_vector;
    case payload_kind::bit: return mechanism::duchi;
    case payload_kind::coordinate_bit: return mechanism::vector_duchi;
    case payload_kind::coordinate_value: return mechanism::vector_laplace;
    case payload_kind::sparse_pairs: return mechanism::sparse_projection;
    case payload_kind::unit_vector: return mechanism::l2_ball;
    case payload_kind::projected_unit: return mechanism::projunit;
    case payload_kind::group_round: return mechanism::pem;
    case payload_kind::seeded_value: return mechanism::kent_support;
  }
  return mechanism::none;
}

std::vector<golden_case> all_cases() {
  std::vector<golden_case> cases;
  const auto params = [](mechanism m) { return ldp::test::example_params(m); };
  const auto add = [&](mechanism m, const std::string& suffix, const std::string& comment, bytes report,
                       status expected) {
    cases.push_back({file_stem(m) + "_" + suffix, comment, params(m), std::move(report), expected});
  };
  const auto payload = [&](mechanism m, const std::string& suffix, const std::string& comment, const builder& body,
                           status expected) {
    builder b = header(params(m));
    b.out.insert(b.out.end(), body.out.begin(), body.out.end());
    add(m, suffix, comment, b.out, expected);
  };

  // Valid: the example report of every mechanism, then edge values.
  for (mechanism m : ldp::test::all_mechanisms()) {
    add(m, "valid", "the example report (make_report variant 0)", example(params(m)), status::ok);
  }
  payload(mechanism::grr, "valid_last_index", "index d - 1 = 9, the largest allowed", builder().le(9, 1), status::ok);
  payload(mechanism::sue, "valid_all_ones", "all d = 10 bits set, padding clear", builder().raw({0xff, 0x03}),
          status::ok);
  payload(mechanism::laplace, "valid_int64_min", "value INT64_MIN: a 10-byte varint",
          builder().varint(std::numeric_limits<int64_t>::min()), status::ok);
  payload(mechanism::laplace, "valid_int64_max", "value INT64_MAX: a 10-byte varint",
          builder().varint(std::numeric_limits<int64_t>::max()), status::ok);
  {
    // The Kent blocks' fold fields (wire_format.md 3.2): an M2 refine fold and an M3 vote fold.
    ldp::wire::params m2 = params(mechanism::kent_refine);
    m2.set(field::vector_dim, 5).set(field::fold_coordinate, 4);
    cases.push_back({"kent_refine_valid_m2", "fold j = 4 of d = 5: the example report", m2, example(m2), status::ok});
    unsigned char seed[ldp::wire::seed_size];
    for (std::size_t i = 0; i < sizeof seed; ++i) seed[i] = static_cast<unsigned char>(0x40 + i);
    ldp::wire::params m3 = params(mechanism::kent_vote);
    m3.set(field::vector_dim, 5).set(field::fold_coordinate, 7).set(field::hadamard_dim, 8);
    m3.set_seed(field::rotation_seed, seed);
    cases.push_back({"kent_vote_valid_m3", "rotated coordinate j = 7 of d~ = 8 (d = 5): the example report", m3,
                     example(m3), status::ok});
  }
  {
    // Memoized oracle blocks (docs/mechanisms.md E.1, wire_format.md tags 29 and 30): eps_inf = 2,
    // eps_1 = 1, d = 10. Their reports are the oracles' own; the block (and so the fingerprint)
    // differs from the plain one with the same permanent thresholds.
    for (mechanism m : ldp::test::memoized_oracles()) {
      const ldp::wire::params memo = ldp::wire::make_memoized_oracle(m, 2.0, 1.0, 10).block;
      cases.push_back({file_stem(m) + "_valid_memoized", "memoized block, eps_inf 2 and eps_1 1: the example report",
                       memo, example(memo), status::ok});
    }
    const ldp::wire::params memo = ldp::wire::make_memoized_oracle(mechanism::olh, 2.0, 1.0, 10).block;
    ldp::wire::params plain = memo;
    plain.present &= ~ldp::wire::memo_fields(memo.mech);
    cases.push_back({"olh_memoized_under_plain_block",
                     "a memoized block's report read under the plain block of its permanent thresholds", plain,
                     example(memo), status::parameter_mismatch});
  }
  {
    // A memoized duchi block (docs/mechanisms.md E.2): the same bit payload under the block with
    // memo_grid k = 16 (a step of 1/8 on [-1, 1]) and output_flip 0.1 * 2^32.
    ldp::wire::params memo = params(mechanism::duchi);
    memo.set(field::memo_grid, 16).set(field::output_flip, 429496730);
    cases.push_back({"duchi_valid_memoized", "memo_grid 16, output_flip 429496730: the example report", memo,
                     example(memo), status::ok});
    builder high = header(memo);
    high.le(2, 1);
    cases.push_back({"duchi_memoized_reserved_bits", "bit byte 0x02 under the memoized block", memo, high.out,
                     status::reserved_bits_set});
    cases.push_back({"duchi_memoized_plain_fingerprint",
                     "the plain duchi block's example report: a memoized block has its own fingerprint", memo,
                     example(params(mechanism::duchi)), status::parameter_mismatch});
  }
  {
    // The block HR (docs/mechanisms.md A.5, wire_format.md tag 34): d = 10 items in B = 4 blocks of
    // K - 1 = 3, reports y = j K + z below B K = 16 (one byte).
    const ldp::wire::params blocks = ldp::wire::make_hr(4.0, 10, 4).block;
    const auto index = [&](uint64_t y) { return header(blocks).le(y, 1).out; };
    cases.push_back({"hr_valid_blocks", "B = 4 blocks of K = 4: index B K - 1 = 15, column 3 of block 3", blocks,
                     index(15), status::ok});
    cases.push_back({"hr_blocks_index_out_of_range", "index 16 = B K", blocks, index(16), status::out_of_range});
  }
  payload(mechanism::sparse_projection, "valid_empty", "count 0: no non-zero coordinate", builder().le(0, 1),
          status::ok);
  payload(mechanism::sparse_projection, "valid_full", "s = 4 pairs: first and last index, clip_lo and clip_hi values",
          builder().le(4, 1).le(0, 2).varint(-65536).le(1, 2).varint(1).le(500, 2).varint(-1).le(999, 2).varint(65536),
          status::ok);

  // Every kind: one byte short, one byte extra, and the three header checks.
  for (int k = 0; k <= static_cast<int>(payload_kind::seeded_value); ++k) {
    const mechanism m = representative(static_cast<payload_kind>(k));
    const bytes valid = example(params(m));
    bytes shorter(valid.begin(), valid.end() - 1), longer = valid;
    longer.push_back(0);
    add(m, "truncated", "the example report without its last byte", shorter, status::wrong_length);
    add(m, "extra_byte", "the example report with a zero byte appended", longer, status::wrong_length);
    bytes foreign = valid;
    foreign[2] ^= 0x01;
    add(m, "foreign_fingerprint", "lowest fingerprint bit flipped", foreign, status::parameter_mismatch);
    bytes version = valid;
    version[0] = 2;
    add(m, "unknown_version", "report format version 2", version, status::unsupported_version);
    bytes unknown = valid;
    unknown[1] = 0x7f;
    add(m, "unknown_mechanism", "mechanism id 0x7f, assigned to nothing", unknown, status::unknown_mechanism);
  }

  // group_round (docs/wire_format.md 5): the group (one byte below G), then the inner oracle's payload.
  payload(mechanism::pem, "group_out_of_range", "group 8 of G = 8 (8-byte strings, 8-bit steps), then an OLH payload",
          builder().le(8, 1).le(0x0123456789abcdefu, 8).le(0, 1), status::out_of_range);
  payload(mechanism::pem, "inner_out_of_range", "group 7, then OLH bucket 4 of g = 4",
          builder().le(7, 1).le(0x0123456789abcdefu, 8).le(4, 1), status::out_of_range);
  payload(mechanism::treehist, "valid_last_group",
          "group 15 of 16 (4-bit steps), then HCMS row 15, column 127, sign +1",
          builder().le(15, 1).le(15, 1).le(127, 1).le(1, 1), status::ok);
  // The tree forms' groups are levels (docs/mechanisms.md G.2, G.3): 16 buckets are 2 levels of
  // fan-out 4, or 4 Haar levels; then OLH's seed and bucket (g = 4).
  payload(mechanism::hierarchical, "group_out_of_range", "group 2 of h = 2 (16 = 4^2 buckets), then an OLH payload",
          builder().le(2, 1).le(0x0123456789abcdefu, 8).le(0, 1), status::out_of_range);
  payload(mechanism::haar, "group_out_of_range", "group 4 of h = 4 (16 = 2^4 buckets), then an OLH payload",
          builder().le(4, 1).le(0x0123456789abcdefu, 8).le(0, 1), status::out_of_range);
  payload(mechanism::haar, "valid_last_group", "group 3 of h = 4, then OLH bucket 3 of g = 4",
          builder().le(3, 1).le(0x0123456789abcdefu, 8).le(3, 1), status::ok);

  // square-wave (docs/mechanisms.md G.1): an index below D + 2b = 22 (16 buckets, b = 3).
  payload(mechanism::square_wave, "valid_last_index", "index D + 2b - 1 = 21, the largest allowed", builder().le(21, 1),
          status::ok);
  payload(mechanism::square_wave, "index_out_of_range", "index 22 = D + 2b", builder().le(22, 1), status::out_of_range);
  payload(mechanism::square_wave, "index_ff", "index 0xff", builder().le(0xff, 1), status::out_of_range);

  // unit_vector: d = 8 little-endian int16 coordinates in [-32767, 32767] (docs/wire_format.md 5).
  {
    builder extremes;
    for (int i = 0; i < 8; ++i) extremes.le(i % 2 == 0 ? 0x7fff : 0x8001, 2);
    payload(mechanism::l2_ball, "valid_extremes", "coordinates +32767 and -32767 alternating", extremes, status::ok);
    builder low;
    low.le(0x8000, 2);
    for (int i = 1; i < 8; ++i) low.le(0, 2);
    payload(mechanism::l2_ball, "coordinate_out_of_range",
            "first coordinate -32768 (0x8000), outside the symmetric range", low, status::out_of_range);
  }

  // projected_unit: an 8-byte seed, then k = 4 int16 coordinates (docs/wire_format.md 5).
  {
    builder extremes;
    extremes.le(0xffffffffffffffffu, 8);
    for (int i = 0; i < 4; ++i) extremes.le(i % 2 == 0 ? 0x7fff : 0x8001, 2);
    payload(mechanism::fastprojunit, "valid_extremes", "seed 2^64 - 1, coordinates +32767 and -32767 alternating",
            extremes, status::ok);
    builder low;
    low.le(7, 8);
    for (int i = 0; i < 3; ++i) low.le(0, 2);
    low.le(0x8000, 2);
    payload(mechanism::projunit, "coordinate_out_of_range", "last of k = 4 coordinates -32768 (0x8000)", low,
            status::out_of_range);
    builder domain_long;
    domain_long.le(7, 8);
    for (int i = 0; i < 8; ++i) domain_long.le(1, 2);
    payload(mechanism::projunit, "d_coordinates", "d = 8 coordinates where the block's k = 4 are due", domain_long,
            status::wrong_length);
  }

  // Header.
  add(mechanism::grr, "empty", "no bytes at all", {}, status::wrong_length);
  {
    const bytes valid = example(params(mechanism::grr));
    add(mechanism::grr, "header_truncated", "9 of the 10 header bytes", bytes(valid.begin(), valid.begin() + 9),
        status::wrong_length);
    bytes other = valid;
    other[1] = static_cast<unsigned char>(mechanism::hr);
    add(mechanism::grr, "other_mechanism", "a known mechanism (hr) that is not the block's", other,
        status::parameter_mismatch);
    bytes none = valid;
    none[1] = 0;
    add(mechanism::grr, "mechanism_none", "mechanism id 0 (none)", none, status::unknown_mechanism);
    bytes version = valid;
    version[0] = 0;
    add(mechanism::grr, "version_zero", "report format version 0", version, status::unsupported_version);
  }

  // index: d = 10 (grr), K = 16 (hr).
  payload(mechanism::grr, "index_out_of_range", "index 10 = d", builder().le(10, 1), status::out_of_range);
  payload(mechanism::grr, "index_ff", "index 0xff", builder().le(0xff, 1), status::out_of_range);
  payload(mechanism::hr, "index_out_of_range", "index 16 = K", builder().le(16, 1), status::out_of_range);

  // unary_bits: d = 10, two bytes, bits 10..15 are padding.
  payload(mechanism::sue, "padding_bit_set", "bit 10, the first padding bit, set", builder().raw({0x00, 0x04}),
          status::reserved_bits_set);
  payload(mechanism::oue, "padding_bit_set", "bit 15, the last padding bit, set", builder().raw({0x01, 0x80}),
          status::reserved_bits_set);
  payload(mechanism::kent_vote, "padding_bit_set", "every bit set, padding included", builder().raw({0xff, 0xff}),
          status::reserved_bits_set);

  // hash_bucket: 8-byte seed, then the bucket (g = 4 for olh, 2 for blh).
  // FLH's index j g + y below k g = 8 x 4 = 32: one byte.
  payload(mechanism::flh, "valid_last_index", "index k g - 1 = 31: function 7, bucket 3", builder().le(31, 1),
          status::ok);
  payload(mechanism::flh, "index_out_of_range", "index 32 = k g", builder().le(32, 1), status::out_of_range);
  payload(mechanism::olh, "bucket_out_of_range", "bucket 4 = g", builder().le(1, 8).le(4, 1), status::out_of_range);
  payload(mechanism::blh, "bucket_out_of_range", "bucket 2 = g", builder().le(1, 8).le(2, 1), status::out_of_range);
  payload(mechanism::olh, "seed_only", "the seed without its bucket", builder().le(1, 8), status::wrong_length);
  // dbitflip (docs/mechanisms.md E.3): the device's seed, then its s = 3 bits packed below 2^3.
  payload(mechanism::dbitflip, "valid_all_bits", "bits 111: all three sampled buckets reported 1",
          builder().le(0x5eed, 8).le(7, 1), status::ok);
  payload(mechanism::dbitflip, "bits_out_of_range", "bits 8 = 2^s: a fourth bit set", builder().le(0x5eed, 8).le(8, 1),
          status::out_of_range);
  payload(mechanism::dbitflip, "seed_only", "the seed without its bits", builder().le(0x5eed, 8), status::wrong_length);

  // sketch_row: row (k = 16), then m = 100 bits in 13 bytes, bits 100..103 are padding.
  {
    builder bits;
    for (int i = 0; i < 13; ++i) bits.le(0, 1);
    builder row_out = builder().le(16, 1);
    row_out.out.insert(row_out.out.end(), bits.out.begin(), bits.out.end());
    payload(mechanism::cms, "row_out_of_range", "row 16 = k", row_out, status::out_of_range);
    builder padded = builder().le(3, 1);
    padded.out.insert(padded.out.end(), bits.out.begin(), bits.out.end());
    padded.out.back() = 0x10;
    payload(mechanism::cms, "padding_bit_set", "bit 100, the first padding bit, set", padded,
            status::reserved_bits_set);
  }

  // sketch_cell: row (k = 16), column (m = 128), sign byte.
  payload(mechanism::hcms, "row_out_of_range", "row 16 = k", builder().le(16, 1).le(5, 1).le(1, 1),
          status::out_of_range);
  payload(mechanism::hcms, "column_out_of_range", "column 128 = m", builder().le(5, 1).le(128, 1).le(1, 1),
          status::out_of_range);
  payload(mechanism::hcms, "sign_reserved_bits", "sign byte 0x02", builder().le(5, 1).le(7, 1).le(2, 1),
          status::reserved_bits_set);

  // fixed_value: one canonical zigzag varint.
  payload(mechanism::laplace, "overlong_varint", "value 0 encoded in two bytes (80 00)", builder().raw({0x80, 0x00}),
          status::malformed_report);
  payload(mechanism::laplace, "overlong_varint_trailing_zero", "value 1 as 82 80 00", builder().raw({0x82, 0x80, 0x00}),
          status::malformed_report);
  payload(mechanism::laplace, "varint_eleven_bytes", "ten continuation bytes, then 00",
          builder().raw({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}), status::malformed_report);
  payload(mechanism::laplace, "varint_above_bit_63", "tenth byte 02: bit 64 set",
          builder().raw({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}), status::malformed_report);
  payload(mechanism::kent_refine, "overlong_varint", "value -1 as 81 00", builder().raw({0x81, 0x00}),
          status::malformed_report);
  payload(mechanism::kent_refine, "unterminated_varint", "a varint whose last byte has the continuation bit",
          builder().raw({0x90, 0x80}), status::wrong_length);

  // seeded_value: an 8-byte seed, then one canonical zigzag varint (Kent M4a's vote, C.1 P4).
  payload(mechanism::kent_support, "valid_extremes", "seed 2^64 - 1, value INT64_MIN",
          builder().le(0xffffffffffffffffu, 8).varint(std::numeric_limits<int64_t>::min()), status::ok);
  payload(mechanism::kent_support, "overlong_varint", "seed 7, value 0 as 80 00", builder().le(7, 8).raw({0x80, 0x00}),
          status::malformed_report);
  payload(mechanism::kent_support, "seed_only", "the 8-byte seed without its value", builder().le(7, 8),
          status::wrong_length);

  // fixed_vector: d = 4 varints.
  payload(mechanism::laplace_vector, "overlong_varint", "third of four entries encoded as 80 00",
          builder().varint(1).varint(2).raw({0x80, 0x00}).varint(4), status::malformed_report);
  payload(mechanism::laplace_vector, "missing_entry", "three well-formed entries of four",
          builder().varint(1).varint(2).varint(3), status::wrong_length);
  payload(mechanism::laplace_vector, "extra_entry", "five well-formed entries of four",
          builder().varint(1).varint(2).varint(3).varint(4).varint(5), status::wrong_length);
  // kway-marginals (docs/wire_format.md 3.14): N' = 10 conjunction indicators of p = 4, k = 2.
  payload(mechanism::kway_marginals, "p_entries", "four entries (one per attribute) where N' = 10 are due",
          builder().varint(1).varint(0).varint(1).varint(1), status::wrong_length);
  // smooth-queries: t^p = 4 features, not p = 2 coordinates (docs/wire_format.md 3.15).
  payload(mechanism::smooth_queries, "p_entries", "two entries (p) instead of t^p = 4", builder().varint(1).varint(2),
          status::wrong_length);

  // bernstein (H.1): fixed_vector with N = (k + 1)^p = 9 entries, the domain field.
  payload(mechanism::bernstein, "missing_entry", "eight well-formed entries of N = 9",
          builder().varint(0).varint(1).varint(2).varint(3).varint(4).varint(5).varint(6).varint(7),
          status::wrong_length);
  payload(mechanism::bernstein, "extra_entry", "ten well-formed entries of N = 9",
          builder().varint(0).varint(1).varint(2).varint(3).varint(4).varint(5).varint(6).varint(7).varint(8).varint(9),
          status::wrong_length);

  // glm-copies (docs/mechanisms.md H.4): a fixed_vector of D (p + 1) = 9 entries (3 copies of x_0, x_1, s).
  payload(mechanism::glm_copies, "missing_entry", "eight well-formed entries of nine",
          builder().varint(1).varint(2).varint(3).varint(4).varint(5).varint(6).varint(7).varint(8),
          status::wrong_length);
  payload(mechanism::glm_copies, "valid_extremes", "entries INT64_MIN and INT64_MAX (noise is unbounded)",
          builder()
              .varint(std::numeric_limits<int64_t>::min())
              .varint(std::numeric_limits<int64_t>::max())
              .varint(0)
              .varint(-1)
              .varint(1)
              .varint(256)
              .varint(-256)
              .varint(0)
              .varint(0),
          status::ok);

  // bit: one byte holding 0 or 1.
  payload(mechanism::duchi, "reserved_bits", "bit byte 0x02", builder().le(2, 1), status::reserved_bits_set);
  payload(mechanism::duchi, "high_bit", "bit byte 0x81", builder().le(0x81, 1), status::reserved_bits_set);

  // coordinate_bit: coordinate (K = 128), bit byte.
  payload(mechanism::vector_duchi, "coordinate_out_of_range", "coordinate 128 = K", builder().le(128, 1).le(1, 1),
          status::out_of_range);
  payload(mechanism::vector_duchi, "reserved_bits", "bit byte 0x03", builder().le(17, 1).le(3, 1),
          status::reserved_bits_set);

  // coordinate_value: coordinate (K = 128), varint.
  payload(mechanism::vector_laplace, "coordinate_out_of_range", "coordinate 128 = K", builder().le(128, 1).varint(-5),
          status::out_of_range);
  payload(mechanism::vector_laplace, "overlong_varint", "value 0 as 80 80 00",
          builder().le(17, 1).raw({0x80, 0x80, 0x00}), status::malformed_report);

  // The public-coin learners (wire_format.md 3.12): coordinate = user index i < n = 1000 (2 bytes);
  // bernstein-genprot's value is the sample index g < T = 16.
  payload(mechanism::bernstein_1bit, "valid_last_user", "user n - 1 = 999, bit 1", builder().le(999, 2).le(1, 1),
          status::ok);
  payload(mechanism::bernstein_1bit, "user_out_of_range", "user 1000 = n", builder().le(1000, 2).le(1, 1),
          status::out_of_range);
  payload(mechanism::bernstein_genprot, "valid_last_choice", "user 5, g = T - 1 = 15", builder().le(5, 2).varint(15),
          status::ok);
  payload(mechanism::bernstein_genprot, "choice_out_of_range", "user 5, g = 16 = T", builder().le(5, 2).varint(16),
          status::out_of_range);
  payload(mechanism::bernstein_genprot, "negative_choice", "user 5, g = -1", builder().le(5, 2).varint(-1),
          status::out_of_range);

  // sparse_pairs: count (1 byte, s = 4), then 2-byte index (d = 1000) + varint value in
  // [clip_lo, clip_hi] = [-65536, 65536], non-zero.
  payload(
      mechanism::sparse_projection, "count_above_sparsity", "count 5 > s = 4, five valid pairs",
      builder().le(5, 1).le(1, 2).varint(1).le(2, 2).varint(1).le(3, 2).varint(1).le(4, 2).varint(1).le(5, 2).varint(1),
      status::out_of_range);
  payload(mechanism::sparse_projection, "indices_decreasing", "indices 7 then 3",
          builder().le(2, 1).le(7, 2).varint(10).le(3, 2).varint(10), status::out_of_range);
  payload(mechanism::sparse_projection, "indices_repeated", "index 7 twice",
          builder().le(2, 1).le(7, 2).varint(10).le(7, 2).varint(20), status::out_of_range);
  payload(mechanism::sparse_projection, "zero_value", "a pair with value 0",
          builder().le(2, 1).le(7, 2).varint(10).le(8, 2).varint(0), status::out_of_range);
  payload(mechanism::sparse_projection, "value_above_clip", "value 65537 > clip_hi",
          builder().le(1, 1).le(7, 2).varint(65537), status::out_of_range);
  payload(mechanism::sparse_projection, "value_below_clip", "value -65537 < clip_lo",
          builder().le(1, 1).le(7, 2).varint(-65537), status::out_of_range);
  payload(mechanism::sparse_projection, "index_out_of_range", "index 1000 = d",
          builder().le(1, 1).le(1000, 2).varint(10), status::out_of_range);
  payload(mechanism::sparse_projection, "overlong_varint", "value 1 as 82 00",
          builder().le(1, 1).le(7, 2).raw({0x82, 0x00}), status::malformed_report);
  payload(mechanism::sparse_projection, "missing_pair", "count 3, two pairs",
          builder().le(3, 1).le(7, 2).varint(10).le(8, 2).varint(10), status::wrong_length);
  return cases;
}

// Decodes the case as the golden test will, and returns the file's last line, or "" if the bytes
// do not produce the status the case claims.
std::string outcome(const golden_case& c, const bytes& block) {
  ldp::wire::params p;
  if (ldp::wire::decode_params(block, &p) != status::ok) return "";
  ldp::wire::report r;
  const status s = ldp::wire::decode_report(p, ldp::wire::fingerprint(p), c.report, &r);
  if (s != c.expected) {
    std::fprintf(stderr, "%s: decodes to %s, expected %s\n", c.name.c_str(), ldp::status_name(s),
                 ldp::status_name(c.expected));
    return "";
  }
  return s == status::ok ? "expect " + ldp::test::describe(p, r) : std::string("status ") + ldp::status_name(s);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: generate_golden DIR\n");
    return 2;
  }
  const std::filesystem::path root = argv[1];
  std::filesystem::create_directories(root / "valid");
  std::filesystem::create_directories(root / "invalid");
  int failures = 0;
  std::vector<std::string> seen;
  for (const golden_case& c : all_cases()) {
    for (const std::string& name : seen) {
      if (name == c.name) {
        std::fprintf(stderr, "%s: duplicate case name\n", c.name.c_str());
        ++failures;
      }
    }
    seen.push_back(c.name);
    bytes block(ldp::wire::params_max_size);
    std::size_t size = 0;
    if (ldp::wire::encode_params(c.params, block, &size) != status::ok) {
      std::fprintf(stderr, "%s: invalid parameters\n", c.name.c_str());
      ++failures;
      continue;
    }
    block.resize(size);
    const std::string last = outcome(c, block);
    if (last.empty()) {
      ++failures;
      continue;
    }
    const auto path = root / (c.expected == status::ok ? "valid" : "invalid") / (c.name + ".txt");
    std::ofstream out(path, std::ios::binary);
    out << "# " << c.comment << "\n"
        << "params " << ldp::test::spaced_hex(block) << "\n"
        << "report" << (c.report.empty() ? "" : " ") << ldp::test::spaced_hex(c.report) << "\n"
        << last << "\n";
    if (!out) {
      std::fprintf(stderr, "%s: cannot write\n", path.string().c_str());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
