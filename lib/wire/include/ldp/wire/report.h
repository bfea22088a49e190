// Reports (docs/wire_format.md, "Report" and "Payloads"): a 10-byte header (format version,
// mechanism, parameter fingerprint) and a payload whose shape the mechanism fixes. The encoder is
// device code: no allocation, sizes known at compile time. The decoder takes untrusted bytes and
// answers with a specific status, never an assertion; it returns views into the input, so it does
// not allocate either.
#ifndef LDP_WIRE_REPORT_H
#define LDP_WIRE_REPORT_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/group_block.h"
#include "ldp/wire/mechanism.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

inline constexpr uint8_t report_version = 1;
inline constexpr std::size_t report_header_size = 10;
inline constexpr std::size_t varint_max_size = 10;

// A unit_vector payload (and a projected_unit payload after its 8-byte seed: k coordinates): d coordinates, each a little-endian two's-complement int16 in
// [-unit_coordinate_max, unit_coordinate_max] (-2^15 is refused: the range stays symmetric). The device
// writes a unit direction times 2^unit_coordinate_bits (docs/mechanisms.md B.6), so 2^14 + 1 fits.
inline constexpr int64_t unit_coordinate_max = 32767;
inline constexpr unsigned unit_coordinate_bits = 14;
inline constexpr std::size_t unit_coordinate_bytes = 2;

// Bytes of an index field holding values in [0, n): 1 up to n = 2^8, 2 up to 2^16, 3 up to 2^24,
// else 4.
[[nodiscard]] constexpr std::size_t index_bytes(uint64_t n) noexcept {
  return n <= (uint64_t{1} << 8) ? 1 : n <= (uint64_t{1} << 16) ? 2 : n <= (uint64_t{1} << 24) ? 3 : 4;
}

// The blocks B of an HR block (docs/mechanisms.md A.5): hadamard_blocks, 1 when absent (the 1-bit HR).
[[nodiscard]] constexpr uint64_t hr_blocks(const params& p) noexcept {
  return p.has(field::hadamard_blocks) ? p.get(field::hadamard_blocks) : 1;
}

// The values of an index payload lie in [0, bound): GRR d, HR B K (block j and column z as j K + z),
// FLH k g (function j and bucket y as j g + y), square-wave D + 2b (G.1).
[[nodiscard]] constexpr uint64_t index_payload_bound(const params& p) noexcept {
  if (p.mech == mechanism::flh) return p.get(field::sketch_rows) * p.get(field::hash_range);
  if (p.mech == mechanism::square_wave) return square_wave_outputs(p);
  return p.mech == mechanism::hr ? hr_blocks(p) * p.get(field::hadamard_dim) : p.get(field::domain);
}

// The values of a hash_bucket payload's bucket lie in [0, bound): g (BLH, OLH), or 2^d for dbitflip,
// whose "bucket" packs the d bits of its sampled buckets (bit i for the i-th smallest, E.3).
[[nodiscard]] constexpr uint64_t hash_bucket_bound(const params& p) noexcept {
  return p.mech == mechanism::dbitflip ? uint64_t{1} << p.get(field::sampled_buckets) : p.get(field::hash_range);
}

// The coordinates of a coordinate_bit or coordinate_value payload lie in [0, bound): the padded
// dimension d~ of the vector means (B.5), the users n of the public-coin learners, whose coordinate
// is the user index i (docs/wire_format.md 3.12).
[[nodiscard]] constexpr uint64_t coordinate_bound(const params& p) noexcept {
  return in_family(p.mech, mechanism_family::public_coin) ? p.get(field::users) : p.get(field::hadamard_dim);
}

// Whether a coordinate_value payload's value is allowed: any for vector-laplace, a public sample's
// index g in [0, T) for bernstein-genprot (docs/wire_format.md 3.12).
[[nodiscard]] constexpr bool coordinate_value_ok(const params& p, int64_t v) noexcept {
  return p.mech != mechanism::bernstein_genprot || (v >= 0 && static_cast<uint64_t>(v) < p.get(field::public_strings));
}

// The largest payload the parameters allow (exact for every fixed-size payload kind).
[[nodiscard]] constexpr std::size_t max_payload_size(const params& p) noexcept {
  const uint64_t d = p.get(field::domain);
  switch (kind_of(p.mech)) {
    case payload_kind::index: return index_bytes(index_payload_bound(p));
    case payload_kind::unary_bits: return static_cast<std::size_t>((d + 7) / 8);
    case payload_kind::hash_bucket: return 8 + index_bytes(hash_bucket_bound(p));
    case payload_kind::sketch_row:
      return index_bytes(p.get(field::sketch_rows)) + static_cast<std::size_t>((p.get(field::sketch_columns) + 7) / 8);
    case payload_kind::sketch_cell:
      return index_bytes(p.get(field::sketch_rows)) + index_bytes(p.get(field::sketch_columns)) + 1;
    case payload_kind::fixed_value: return varint_max_size;
    case payload_kind::seeded_value: return 8 + varint_max_size;
    case payload_kind::fixed_vector: return static_cast<std::size_t>(d) * varint_max_size;
    case payload_kind::bit: return 1;
    case payload_kind::coordinate_bit: return index_bytes(coordinate_bound(p)) + 1;
    case payload_kind::coordinate_value: return index_bytes(coordinate_bound(p)) + varint_max_size;
    case payload_kind::unit_vector: return static_cast<std::size_t>(d) * unit_coordinate_bytes;
    case payload_kind::projected_unit:
      return 8 + static_cast<std::size_t>(p.get(field::projection_dim)) * unit_coordinate_bytes;
    case payload_kind::sparse_pairs: {
      const uint64_t s = p.get(field::sparsity);
      return index_bytes(s + 1) + static_cast<std::size_t>(s) * (index_bytes(d) + varint_max_size);
    }
    case payload_kind::group_round: return index_bytes(group_count(p)) + max_payload_size(group_inner_block(p));
  }
  return 0;
}

[[nodiscard]] constexpr std::size_t max_report_size(const params& p) noexcept {
  return report_header_size + max_payload_size(p);
}

// A report's fields. Which ones are meaningful depends on the payload kind (wire_format.md,
// table 5). To encode, fill them in; decoding fills them and points `bits` and `entries` into the
// input buffer, which must outlive the report.
struct report {
  mechanism mech = mechanism::none;
  uint64_t fingerprint = 0;
  uint32_t group = 0;                 // group_round: the device's group, before the inner oracle's fields
  uint32_t index = 0;                 // index, bucket, row, or coordinate
  uint32_t column = 0;                // sketch_cell
  uint64_t seed = 0;                  // hash_bucket, projected_unit, seeded_value
  uint8_t bit = 0;                    // sketch_cell sign, bit, coordinate_bit
  int64_t value = 0;                  // fixed_value, coordinate_value, seeded_value
  span<const unsigned char> bits;     // unary_bits (d bits), sketch_row (m bits), packed LSB first
  span<const int64_t> values;         // encode: fixed_vector, unit_vector (d), projected_unit (k), sparse_pairs
  span<const uint32_t> indices;       // encode: sparse_pairs indices, strictly increasing
  uint32_t count = 0;                 // decode: entries of fixed_vector, (projected_)unit_vector, sparse_pairs
  span<const unsigned char> entries;  // decode: their validated encoding; see read_vector/read_sparse
};

// Payload only (batch records) and full report (header + payload). The encoder checks the fields
// against the parameters (out_of_range, invalid_argument) so a device cannot emit a report the
// server would reject.
[[nodiscard]] status encode_payload(const params& p, const report& r, span<unsigned char> out,
                                    std::size_t* written) noexcept;
[[nodiscard]] status encode_report(const params& p, uint64_t fingerprint, const report& r, span<unsigned char> out,
                                   std::size_t* written) noexcept;
// The same for a block that already passed validate(): a device context checks its block once, at
// init, not once per report (docs/architecture.md "The device contract"). Precondition:
// validate(p) == status::ok.
[[nodiscard]] status encode_payload_validated(const params& p, const report& r, span<unsigned char> out,
                                              std::size_t* written) noexcept;
[[nodiscard]] status encode_report_validated(const params& p, uint64_t fingerprint, const report& r,
                                             span<unsigned char> out, std::size_t* written) noexcept;

// Strict decoding of exactly `bytes`. decode_report checks, in order: length of the header
// (wrong_length), version (unsupported_version), mechanism (unknown_mechanism, then
// parameter_mismatch if it is not the block's), fingerprint (parameter_mismatch), then the payload.
[[nodiscard]] status decode_payload(const params& p, span<const unsigned char> bytes, report* out) noexcept;
// decode_payload for a block that already passed validate(): a server checks its block once, not
// once per report. Precondition: validate(p) == status::ok.
[[nodiscard]] status decode_payload_validated(const params& p, span<const unsigned char> bytes, report* out) noexcept;
[[nodiscard]] status decode_report(const params& p, uint64_t fingerprint, span<const unsigned char> bytes,
                                   report* out) noexcept;

// The payload kinds whose entries are one coordinate per index, read by read_vector.
[[nodiscard]] constexpr bool is_vector_payload(payload_kind k) noexcept {
  return k == payload_kind::fixed_vector || k == payload_kind::unit_vector || k == payload_kind::projected_unit;
}

// The entries of a decoded report of a vector payload (is_vector_payload; out.size() >= count) or of
// a sparse_pairs report.
[[nodiscard]] status read_vector(const report& r, span<int64_t> out) noexcept;
[[nodiscard]] status read_sparse(const params& p, const report& r, span<uint32_t> indices,
                                 span<int64_t> values) noexcept;

}  // namespace ldp::wire

#endif
