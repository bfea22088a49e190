#include "ldp/wire/report.h"

#include "codec.h"
#include "framing.h"

namespace ldp::wire {
namespace {

using detail::reader;
using detail::writer;

// The bound of the payload's index field (its values lie in [0, bound)).
uint64_t index_bound(const params& p) {
  switch (kind_of(p.mech)) {
    case payload_kind::index: return index_payload_bound(p);
    case payload_kind::hash_bucket: return hash_bucket_bound(p);
    case payload_kind::sketch_row:
    case payload_kind::sketch_cell: return p.get(field::sketch_rows);
    case payload_kind::coordinate_bit:
    case payload_kind::coordinate_value: return coordinate_bound(p);
    case payload_kind::unary_bits:
    case payload_kind::fixed_value:
    case payload_kind::fixed_vector:
    case payload_kind::bit:
    case payload_kind::unit_vector:
    case payload_kind::projected_unit:
    case payload_kind::sparse_pairs:
    case payload_kind::seeded_value:
    case payload_kind::group_round: break;  // the group's bound, then the inner block's (below)
  }
  return 0;
}

uint64_t bit_count(const params& p) {
  return kind_of(p.mech) == payload_kind::sketch_row ? p.get(field::sketch_columns) : p.get(field::domain);
}

// The bits past `nbits` in the last byte are padding and must be zero.
bool padding_clear(span<const unsigned char> bits, uint64_t nbits) {
  return nbits % 8 == 0 || (bits[bits.size() - 1] >> (nbits % 8)) == 0;
}

bool unit_coordinate_ok(int64_t v) { return v >= -unit_coordinate_max && v <= unit_coordinate_max; }

// A unit_vector coordinate from its two bytes (two's complement).
int64_t unit_coordinate(uint64_t bits) { return static_cast<int16_t>(static_cast<uint16_t>(bits)); }

// The int16 coordinates of a unit_vector (d) or projected_unit (k, after the seed) payload.
uint64_t unit_coordinate_count(const params& p) {
  return kind_of(p.mech) == payload_kind::projected_unit ? p.get(field::projection_dim) : p.get(field::domain);
}

// Sparse values are non-zero and inside the clipping range.
bool sparse_value_ok(const params& p, int64_t v) {
  return v != 0 && v >= p.get_signed(field::clip_lo) && v <= p.get_signed(field::clip_hi);
}

status encode_fields(const params& p, const report& r, writer& w) {
  const payload_kind kind = kind_of(p.mech);
  if (kind == payload_kind::group_round) {  // wire_format.md 5: the group, then the inner oracle's payload
    const uint32_t groups = group_count(p);
    if (r.group >= groups) return status::out_of_range;
    w.put_le(r.group, index_bytes(groups));
    return encode_fields(group_inner_block(p), r, w);
  }
  const uint64_t bound = index_bound(p);
  const std::size_t ib = index_bytes(bound);
  switch (kind) {
    case payload_kind::index:
    case payload_kind::coordinate_bit:
    case payload_kind::coordinate_value:
    case payload_kind::sketch_row:
    case payload_kind::sketch_cell:
    case payload_kind::hash_bucket:
      if (kind == payload_kind::hash_bucket) w.put_le(r.seed, 8);
      if (r.index >= bound) return status::out_of_range;
      w.put_le(r.index, ib);
      break;
    case payload_kind::unary_bits:
    case payload_kind::fixed_value:
    case payload_kind::fixed_vector:
    case payload_kind::bit:
    case payload_kind::unit_vector:
    case payload_kind::projected_unit:
    case payload_kind::sparse_pairs:
    case payload_kind::seeded_value:
    case payload_kind::group_round: break;
  }
  switch (kind) {
    case payload_kind::unary_bits:
    case payload_kind::sketch_row: {
      const uint64_t nbits = bit_count(p);
      if (r.bits.size() != (nbits + 7) / 8) return status::invalid_argument;
      if (!padding_clear(r.bits, nbits)) return status::reserved_bits_set;
      w.put_bytes(r.bits);
      break;
    }
    case payload_kind::sketch_cell:
      if (r.column >= p.get(field::sketch_columns)) return status::out_of_range;
      w.put_le(r.column, index_bytes(p.get(field::sketch_columns)));
      [[fallthrough]];
    case payload_kind::bit:
    case payload_kind::coordinate_bit:
      if (r.bit > 1) return status::out_of_range;
      w.put_le(r.bit, 1);
      break;
    case payload_kind::seeded_value:
      w.put_le(r.seed, 8);
      w.put_varint(r.value);
      break;
    case payload_kind::fixed_value:
    case payload_kind::coordinate_value:
      if (!coordinate_value_ok(p, r.value)) return status::out_of_range;
      w.put_varint(r.value);
      break;
    case payload_kind::fixed_vector:
      if (r.values.size() != p.get(field::domain)) return status::invalid_argument;
      for (int64_t v : r.values) w.put_varint(v);
      break;
    case payload_kind::projected_unit:
    case payload_kind::unit_vector:
      if (kind == payload_kind::projected_unit) w.put_le(r.seed, 8);
      if (r.values.size() != unit_coordinate_count(p)) return status::invalid_argument;
      for (int64_t v : r.values) {
        if (!unit_coordinate_ok(v)) return status::out_of_range;
        w.put_le(static_cast<uint16_t>(v), unit_coordinate_bytes);
      }
      break;
    case payload_kind::sparse_pairs: {
      const uint64_t s = p.get(field::sparsity), d = p.get(field::domain);
      if (r.indices.size() != r.values.size()) return status::invalid_argument;
      if (r.indices.size() > s) return status::out_of_range;
      w.put_le(r.indices.size(), index_bytes(s + 1));
      for (std::size_t i = 0; i < r.indices.size(); ++i) {
        if (r.indices[i] >= d || (i > 0 && r.indices[i] <= r.indices[i - 1])) return status::out_of_range;
        if (!sparse_value_ok(p, r.values[i])) return status::out_of_range;
        w.put_le(r.indices[i], index_bytes(d));
        w.put_varint(r.values[i]);
      }
      break;
    }
    case payload_kind::index:
    case payload_kind::hash_bucket:
    case payload_kind::group_round: break;
  }
  return w.overflow ? status::buffer_too_small : status::ok;
}

}  // namespace

status encode_payload_validated(const params& p, const report& r, span<unsigned char> out,
                                std::size_t* written) noexcept {
  *written = 0;
  writer w(out);
  const status s = encode_fields(p, r, w);
  if (s == status::ok) *written = static_cast<std::size_t>(w.at - out.data());
  return s;
}

status encode_payload(const params& p, const report& r, span<unsigned char> out, std::size_t* written) noexcept {
  *written = 0;
  const status valid = validate(p);
  if (valid != status::ok) return valid;
  return encode_payload_validated(p, r, out, written);
}

status encode_report_validated(const params& p, uint64_t fp, const report& r, span<unsigned char> out,
                               std::size_t* written) noexcept {
  *written = 0;
  if (out.size() < report_header_size) return status::buffer_too_small;
  std::size_t payload = 0;
  const status s = encode_payload_validated(p, r, out.subspan(report_header_size), &payload);
  if (s != status::ok) return s;
  writer w(out);
  w.put_le(report_version, 1);
  w.put_le(static_cast<uint8_t>(p.mech), 1);
  w.put_le(fp, 8);
  *written = report_header_size + payload;
  return status::ok;
}

status encode_report(const params& p, uint64_t fp, const report& r, span<unsigned char> out,
                     std::size_t* written) noexcept {
  *written = 0;
  if (out.size() < report_header_size) return status::buffer_too_small;
  const status valid = validate(p);
  if (valid != status::ok) return valid;
  return encode_report_validated(p, fp, r, out, written);
}

status decode_payload(const params& p, span<const unsigned char> bytes, report* out) noexcept {
  *out = report{};
  const status valid = validate(p);
  if (valid != status::ok) return valid;
  return decode_payload_validated(p, bytes, out);
}

namespace {

// The fields of one payload of block p from `in` into r (a group_round's group, then its inner
// oracle's fields); errors are in in.error.
void read_fields(const params& p, reader& in, report& r) {
  const payload_kind kind = kind_of(p.mech);
  if (kind == payload_kind::group_round) {
    const uint32_t groups = group_count(p);
    const uint64_t group = in.get_le(index_bytes(groups));
    if (in.error == status::ok && group >= groups) in.fail(status::out_of_range);
    r.group = static_cast<uint32_t>(group);
    read_fields(group_inner_block(p), in, r);
    return;
  }
  const uint64_t bound = index_bound(p);
  if (kind == payload_kind::hash_bucket || kind == payload_kind::projected_unit || kind == payload_kind::seeded_value) {
    r.seed = in.get_le(8);
  }
  if (bound != 0) {
    const uint64_t index = in.get_le(index_bytes(bound));
    if (in.error == status::ok && index >= bound) in.fail(status::out_of_range);
    r.index = static_cast<uint32_t>(index);
  }
  switch (kind) {
    case payload_kind::unary_bits:
    case payload_kind::sketch_row: {
      const uint64_t nbits = bit_count(p);
      r.bits = in.get_bytes(static_cast<std::size_t>((nbits + 7) / 8));
      if (in.error == status::ok && !padding_clear(r.bits, nbits)) in.fail(status::reserved_bits_set);
      break;
    }
    case payload_kind::sketch_cell: {
      const uint64_t m = p.get(field::sketch_columns);
      const uint64_t column = in.get_le(index_bytes(m));
      if (in.error == status::ok && column >= m) in.fail(status::out_of_range);
      r.column = static_cast<uint32_t>(column);
    }
      [[fallthrough]];
    case payload_kind::bit:
    case payload_kind::coordinate_bit: {
      const uint64_t b = in.get_le(1);
      if (in.error == status::ok && b > 1) in.fail(status::reserved_bits_set);
      r.bit = static_cast<uint8_t>(b);
      break;
    }
    case payload_kind::fixed_value:
    case payload_kind::coordinate_value:
    case payload_kind::seeded_value:
      r.value = in.get_varint();
      if (in.error == status::ok && !coordinate_value_ok(p, r.value)) in.fail(status::out_of_range);
      break;
    case payload_kind::fixed_vector: {
      const unsigned char* first = in.at;
      const uint64_t d = p.get(field::domain);
      for (uint64_t i = 0; i < d && in.error == status::ok; ++i) in.get_varint();
      r.count = static_cast<uint32_t>(d);
      r.entries = span<const unsigned char>(first, static_cast<std::size_t>(in.at - first));
      break;
    }
    case payload_kind::projected_unit:
    case payload_kind::unit_vector: {
      const unsigned char* first = in.at;
      const uint64_t d = unit_coordinate_count(p);
      for (uint64_t i = 0; i < d && in.error == status::ok; ++i) {
        const int64_t v = unit_coordinate(in.get_le(unit_coordinate_bytes));
        if (in.error == status::ok && !unit_coordinate_ok(v)) in.fail(status::out_of_range);
      }
      r.count = static_cast<uint32_t>(d);
      r.entries = span<const unsigned char>(first, static_cast<std::size_t>(in.at - first));
      break;
    }
    case payload_kind::sparse_pairs: {
      const uint64_t s = p.get(field::sparsity), d = p.get(field::domain);
      const uint64_t count = in.get_le(index_bytes(s + 1));
      if (in.error == status::ok && count > s) in.fail(status::out_of_range);
      const unsigned char* first = in.at;
      uint64_t previous = 0;
      for (uint64_t i = 0; i < count && in.error == status::ok; ++i) {
        const uint64_t index = in.get_le(index_bytes(d));
        const int64_t value = in.get_varint();
        if (in.error != status::ok) break;
        if (index >= d || (i > 0 && index <= previous) || !sparse_value_ok(p, value)) {
          in.fail(status::out_of_range);
        }
        previous = index;
      }
      r.count = static_cast<uint32_t>(count);
      r.entries = span<const unsigned char>(first, static_cast<std::size_t>(in.at - first));
      break;
    }
    case payload_kind::index:
    case payload_kind::hash_bucket:
    case payload_kind::group_round: break;
  }
}

}  // namespace

status decode_payload_validated(const params& p, span<const unsigned char> bytes, report* out) noexcept {
  *out = report{};
  reader in(bytes);
  report r;
  r.mech = p.mech;
  read_fields(p, in, r);
  if (in.error == status::ok && in.left() != 0) in.fail(status::wrong_length);
  if (in.error != status::ok) return in.error;
  *out = r;
  return status::ok;
}

namespace detail {

status read_report_header(span<const unsigned char> bytes, mechanism* mech, uint64_t* fp) noexcept {
  reader in(bytes);
  const uint64_t version = in.get_le(1);
  const auto m = static_cast<mechanism>(in.get_le(1));
  const uint64_t got = in.get_le(8);
  if (in.error != status::ok) return in.error;
  if (version != report_version) return status::unsupported_version;
  if (!is_known(m)) return status::unknown_mechanism;
  *mech = m;
  *fp = got;
  return status::ok;
}

}  // namespace detail

status decode_report(const params& p, uint64_t fp, span<const unsigned char> bytes, report* out) noexcept {
  *out = report{};
  mechanism mech = mechanism::none;
  uint64_t got = 0;
  const status header = detail::read_report_header(bytes, &mech, &got);
  if (header != status::ok) return header;
  if (mech != p.mech || got != fp) return status::parameter_mismatch;
  const status s = decode_payload(p, bytes.subspan(report_header_size), out);
  if (s == status::ok) out->fingerprint = got;
  return s;
}

status read_vector(const report& r, span<int64_t> out) noexcept {
  const payload_kind kind = kind_of(r.mech);
  if (!is_vector_payload(kind)) {
    return status::invalid_argument;
  }
  if (out.size() < r.count) return status::buffer_too_small;
  reader in(r.entries);
  for (uint32_t i = 0; i < r.count; ++i) {
    out[i] = kind == payload_kind::fixed_vector ? in.get_varint() : unit_coordinate(in.get_le(unit_coordinate_bytes));
  }
  return in.error;
}

status read_sparse(const params& p, const report& r, span<uint32_t> indices, span<int64_t> values) noexcept {
  if (kind_of(r.mech) != payload_kind::sparse_pairs || r.mech != p.mech) return status::invalid_argument;
  if (indices.size() < r.count || values.size() < r.count) return status::buffer_too_small;
  reader in(r.entries);
  const std::size_t width = index_bytes(p.get(field::domain));
  for (uint32_t i = 0; i < r.count; ++i) {
    indices[i] = static_cast<uint32_t>(in.get_le(width));
    values[i] = in.get_varint();
  }
  return in.error;
}

}  // namespace ldp::wire
