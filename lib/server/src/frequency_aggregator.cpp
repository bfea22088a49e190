// The mechanism-independent half of the frequency-oracle aggregators (MECHANISMS.md A.0-A.8,
// ARCHITECTURE.md "The server contract"): report, payload and batch ingestion with rejection
// counting, merge, saved state, and the estimate entry points. The per-oracle parts live in
// grr.cpp, unary.cpp, local_hashing.cpp, hadamard_response.cpp and sketch.cpp.
//
// Saved state (docs/wire_format.md section 7): the 32-byte state header written by
// wire::encode_state_header (mechanism, parameter fingerprint, body length and CRC32C), then this
// body. Every integer is little-endian.
//
//   offset   size   field
//   0        2      B, the parameter block length (u16)
//   2        B      the parameter block, canonical encoding (wire::encode_params)
//   2+B      8      n, accepted reports (u64), at most 2^62
//   10+B     128    16 rejection counters (u64), indexed by the ldp::status number; counter 0
//                   (ok) is always 0
//   138+B    ...    the counts of the mechanism:
//     grr        d x u64     h[v], reports equal to v                    (sum = n)
//     sue, oue   d x u64     ones[v], reports whose bit v is 1           (each <= n)
//     blh, olh   n x 12      (seed u64, bucket u32) of every accepted report, sorted by seed then
//                            bucket (duplicates allowed; bucket < g)
//     hr         K x u64     h[y], reports equal to y                    (sum = n)
//     cms        k x u64     n_j, reports of row j                       (sum = n)
//                k*m x u64   ones[j][l], row-major: row-j reports whose bit l is 1 (each <= n_j)
//     hcms       k x u64     n_j, as for cms
//                k*m x i64   sum[j][l], row-major: +1 per row-j report at column l with bit 1,
//                            -1 with bit 0 (sum over l of |sum[j][l]| <= n_j, and of sum[j][l]
//                            has the parity of n_j)
//
// The body holds only exact integers in a canonical order, so any split of the reports merged in
// any order serializes to the same bytes. deserialize() checks the header (wire::decode_state),
// then that the block decodes, names the header's mechanism and has its fingerprint
// (parameter_mismatch otherwise), that the length is exactly the one above (wrong_length: checked
// before anything is allocated, so a length field never sizes an allocation), that n <= 2^62
// (overflow), and the invariants in brackets (malformed_report; a bucket >= g is out_of_range).
#include <algorithm>
#include <limits>
#include <new>
#include <numeric>

#include "detail.h"
#include "ldp/base/bits.h"
#include "ldp/wire/batch.h"
#include "ldp/wire/report.h"
#include "ldp/wire/state.h"

namespace ldp::server {
namespace {

using wire::field;
using wire::mechanism;

bool same_block(const wire::params& a, const wire::params& b) {
  if (a.mech != b.mech || a.present != b.present) return false;
  for (int f = 0; f <= wire::field_max; ++f) {
    if (a.value[f] != b.value[f]) return false;
  }
  return std::equal(a.hash_seed, a.hash_seed + wire::seed_size, b.hash_seed) &&
         std::equal(a.rotation_seed, a.rotation_seed + wire::seed_size, b.rotation_seed);
}

uint64_t saturating_add(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  return checked_add(a, b, &sum) ? sum : std::numeric_limits<uint64_t>::max();
}

bool is_frequency_oracle(mechanism m) {
  const auto id = static_cast<uint8_t>(m);
  return id >= static_cast<uint8_t>(mechanism::grr) && id <= static_cast<uint8_t>(mechanism::hcms);
}

// Bytes of the counts section for a validated block and n reports (see the layout above); false
// when the product does not fit in 64 bits (no file can be that long).
bool counts_size(const wire::params& p, uint64_t n, uint64_t* out) {
  switch (p.mech) {
    case mechanism::grr:
    case mechanism::sue:
    case mechanism::oue: return checked_mul(p.get(field::domain), 8, out);
    case mechanism::blh:
    case mechanism::olh: return checked_mul(n, 12, out);
    case mechanism::hr: return checked_mul(p.get(field::hadamard_dim), 8, out);
    case mechanism::cms:
    case mechanism::hcms: {
      const uint64_t k = p.get(field::sketch_rows), m = p.get(field::sketch_columns);
      uint64_t cells = 0;
      return checked_mul(k, m + 1, &cells) && checked_mul(cells, 8, out);
    }
    default: return false;
  }
}

}  // namespace

frequency_aggregator::frequency_aggregator(const wire::params& p)
    : params_(p), fingerprint_(wire::fingerprint(p)) {}

status frequency_aggregator::create(const wire::params& p, std::unique_ptr<frequency_aggregator>* out) {
  if (out == nullptr) return status::invalid_argument;
  out->reset();
  try {
    const status valid = wire::validate(p);
    if (valid != status::ok) return valid;
    switch (p.mech) {
      case mechanism::grr: return detail::make_grr_aggregator(p, out);
      case mechanism::sue:
      case mechanism::oue: return detail::make_unary_aggregator(p, out);
      case mechanism::blh:
      case mechanism::olh: return detail::make_local_hash_aggregator(p, out);
      case mechanism::hr: return detail::make_hr_aggregator(p, out);
      case mechanism::cms:
      case mechanism::hcms: return detail::make_sketch_aggregator(p, out);
      default: return status::invalid_parameters;  // a known mechanism, but not a frequency oracle
    }
  } catch (...) {  // std::bad_alloc, std::length_error: the state does not fit in memory
    out->reset();
    return status::overflow;
  }
}

void frequency_aggregator::reject(status s, uint64_t count) noexcept {
  const auto index = static_cast<int32_t>(s);
  if (index <= 0 || index >= status_count) return;  // ok, or a code this build does not know
  rejected_[static_cast<std::size_t>(index)] = saturating_add(rejected_[static_cast<std::size_t>(index)], count);
}

status frequency_aggregator::accept(status decoded, const wire::report& r) noexcept {
  if (decoded != status::ok) {
    reject(decoded, 1);
    return decoded;
  }
  if (reports_ >= detail::max_reports) {
    reject(status::overflow, 1);
    return status::overflow;
  }
  const status s = ingest(r);
  if (s != status::ok) {
    reject(s, 1);
    return s;
  }
  ++reports_;
  return status::ok;
}

status frequency_aggregator::add_report(span<const unsigned char> report) noexcept {
  wire::report r;
  return accept(wire::decode_report(params_, fingerprint_, report, &r), r);
}

status frequency_aggregator::add_payload(span<const unsigned char> payload) noexcept {
  wire::report r;
  // create() and deserialize() validated the block: skip the per-report check.
  return accept(wire::decode_payload_validated(params_, payload, &r), r);
}

status frequency_aggregator::add_batch(span<const unsigned char> batch) noexcept {
  wire::batch_reader reader;
  status s = reader.open(batch);
  if (s != status::ok) return s;  // an unreadable header: nothing in the batch can be counted
  if (reader.fingerprint() != fingerprint_ || !same_block(reader.parameters(), params_)) {
    return status::parameter_mismatch;
  }
  while (!reader.done()) {
    wire::chunk_view chunk;
    s = reader.next_chunk(&chunk);
    if (s == status::checksum_mismatch) {
      reject(s, chunk.records);  // the chunk's claimed records; reading goes on after it
      continue;
    }
    if (s != status::ok) return s;  // the next chunk cannot be located; earlier ones counted
    wire::record_cursor cursor(chunk);
    for (;;) {
      const uint32_t left = cursor.remaining();
      span<const unsigned char> payload;
      const status rs = cursor.next(&payload);
      if (rs == status::malformed_report) {
        reject(rs, left);  // this record and the ones after it cannot be located
        break;
      }
      if (rs != status::ok) {
        reject(rs, 1);  // wrong_length: bytes after the claimed records, counted once
        break;
      }
      if (payload.empty()) break;
      static_cast<void>(add_payload(payload));  // counted either way
    }
  }
  return status::ok;
}

status frequency_aggregator::merge(const frequency_aggregator& other) noexcept {
  if (other.fingerprint_ != fingerprint_ || !same_block(other.params_, params_)) {
    return status::parameter_mismatch;
  }
  uint64_t total = 0;
  if (!checked_add(reports_, other.reports_, &total) || total > detail::max_reports) {
    return status::overflow;
  }
  try {
    merge_counts(other);  // all-or-nothing: implementations allocate before they modify
  } catch (...) {
    return status::overflow;
  }
  reports_ = total;
  for (std::size_t i = 0; i < rejected_.size(); ++i) rejected_[i] = saturating_add(rejected_[i], other.rejected_[i]);
  return status::ok;
}

std::vector<unsigned char> frequency_aggregator::serialize() const {
  try {
    unsigned char block[wire::params_max_size];
    std::size_t block_size = 0;
    if (wire::encode_params(params_, block, &block_size) != status::ok) return {};
    std::vector<unsigned char> out(wire::state_header_size);
    detail::put_u16(out, static_cast<uint16_t>(block_size));
    out.insert(out.end(), block, block + block_size);
    detail::put_u64(out, reports_);
    for (uint64_t c : rejected_) detail::put_u64(out, c);
    write_body(out);
    const span<const unsigned char> body(out.data() + wire::state_header_size,
                                         out.size() - wire::state_header_size);
    if (wire::encode_state_header(params_.mech, fingerprint_, body,
                                  span<unsigned char>(out.data(), wire::state_header_size)) != status::ok) {
      return {};
    }
    return out;
  } catch (...) {
    return {};
  }
}

status frequency_aggregator::deserialize(span<const unsigned char> bytes,
                                         std::unique_ptr<frequency_aggregator>* out) {
  if (out == nullptr) return status::invalid_argument;
  out->reset();
  try {
    wire::state_header header;
    span<const unsigned char> body;
    status s = wire::decode_state(bytes, &header, &body);
    if (s != status::ok) return s;

    detail::body_reader in(body);
    const span<const unsigned char> block = in.bytes(static_cast<std::size_t>(in.u16()));
    if (!in.ok) return status::wrong_length;
    wire::params p;
    s = wire::decode_params(block, &p);
    if (s != status::ok) return s;
    if (p.mech != header.mech || wire::fingerprint(p) != header.fingerprint) {
      return status::parameter_mismatch;
    }
    const uint64_t n = in.u64();
    rejection_counts rejected{};
    for (uint64_t& c : rejected) c = in.u64();
    if (!in.ok) return status::wrong_length;

    if (!is_frequency_oracle(p.mech)) return status::invalid_parameters;  // as create() says
    if (n > detail::max_reports) return status::overflow;
    if (rejected[0] != 0) return status::malformed_report;
    uint64_t expected = 0;
    if (!counts_size(p, n, &expected) || expected != static_cast<uint64_t>(in.rest.size())) {
      return status::wrong_length;
    }

    std::unique_ptr<frequency_aggregator> agg;
    s = create(p, &agg);
    if (s != status::ok) return s;
    agg->reports_ = n;
    agg->rejected_ = rejected;
    s = agg->read_body(in.rest);
    if (s != status::ok) return s;
    *out = std::move(agg);
    return status::ok;
  } catch (...) {
    out->reset();
    return status::overflow;
  }
}

std::vector<estimate> frequency_aggregator::estimate_all(double confidence) const {
  try {
    std::vector<uint32_t> items(static_cast<std::size_t>(params_.get(field::domain)));
    std::iota(items.begin(), items.end(), uint32_t{0});
    return estimate_impl(items, detail::confidence_z(confidence));
  } catch (...) {
    return {};
  }
}

std::vector<estimate> frequency_aggregator::estimate_items(span<const uint32_t> items,
                                                           double confidence) const {
  try {
    const uint64_t d = params_.get(field::domain);
    const double z = detail::confidence_z(confidence);
    const bool all_valid =
        std::all_of(items.begin(), items.end(), [d](uint32_t v) { return v < d; });
    if (all_valid) return estimate_impl(items, z);
    // Out-of-domain candidates get NaN in every field; the others are estimated as usual.
    std::vector<uint32_t> valid;
    for (uint32_t v : items) {
      if (v < d) valid.push_back(v);
    }
    const std::vector<estimate> found = estimate_impl(valid, z);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<estimate> out;
    out.reserve(items.size());
    std::size_t next = 0;
    for (uint32_t v : items) {
      if (v < d) {
        out.push_back(found[next++]);
      } else {
        out.push_back(estimate{v, nan, nan, nan, nan});
      }
    }
    return out;
  } catch (...) {
    return {};
  }
}

}  // namespace ldp::server
