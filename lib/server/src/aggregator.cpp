// The mechanism-independent half of every aggregator (docs/architecture.md "The server contract"):
// report, payload and batch ingestion with rejection counting, merge, and saved state. The
// families (frequency_aggregator.cpp, ...) supply ingest, counts, body and estimates.
//
// Saved state (docs/wire_format.md section 7): the 32-byte state header written by
// wire::encode_state_header (mechanism, parameter fingerprint, body length and CRC32C), then this
// body. Every integer is little-endian.
//
//   offset   size   field
//   0        2      B, the parameter block length (u16)
//   2        B      the parameter block, canonical encoding (wire::encode_params)
//   2+B      8      n, accepted reports (u64), at most 2^62
//   10+B     128    16 rejection counters (u64, rejection_counter_count), indexed by the
//                   ldp::status number; counter 0 (ok, which rejects nothing) counts the batch
//                   chunks whose CRC failed (damaged_chunks(): their record counts are not
//                   trusted, so their records are counted nowhere). Statuses >= 16 reject nothing.
//   138+B    ...    the counts of the family, documented in its source file
//
// The body holds only exact integers in a canonical order, so any split of the reports merged in
// any order serializes to the same bytes. deserialize() checks the header (wire::decode_state),
// then that the state fits the caller's limits (limit_exceeded), that the block decodes, names the header's mechanism and has its fingerprint
// (parameter_mismatch otherwise), that n <= 2^62 (overflow), that the counts have exactly the
// family's length for n (wrong_length: checked before anything is allocated for them, so a length
// field never sizes an allocation), then the family's invariants.
#include <algorithm>
#include <limits>

#include "estimation.h"
#include "family.h"
#include "group_state.h"
#include "kernel_access.h"
#include "ldp/base/bits.h"
#include "ldp/wire/batch.h"
#include "ldp/wire/byte_cursor.h"
#include "ldp/wire/report.h"
#include "ldp/wire/state.h"
#include "report_cap.h"
#include "state_io.h"

namespace ldp::server {
namespace {

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

constexpr detail::family frequency_family{detail::make_frequency_aggregator, detail::frequency_body_size};
constexpr detail::family mean_family{detail::make_mean_aggregator, detail::mean_body_size};
constexpr detail::family vector_mean_family{detail::make_vector_mean_aggregator, detail::vector_mean_body_size};
constexpr detail::family unit_vector_family{detail::make_unit_vector_aggregator, detail::unit_vector_body_size};
constexpr detail::family sparse_projection_family{detail::make_sparse_projection_aggregator,
                                                  detail::sparse_projection_body_size};
constexpr detail::family winsorized_bins_family{detail::make_winsorized_bins_aggregator,
                                                detail::winsorized_bins_body_size};
constexpr detail::family winsorized_sums_family{detail::make_winsorized_sums_aggregator,
                                                detail::winsorized_sums_body_size};
constexpr detail::family kent_support_family{detail::make_kent_support_aggregator, detail::kent_support_body_size};
constexpr detail::family public_coin_family{detail::make_public_coin_aggregator, detail::public_coin_body_size};
constexpr detail::family glm_family{detail::make_glm_aggregator, detail::glm_body_size};
constexpr detail::family string_discovery_family{detail::make_string_discovery_aggregator,
                                                 detail::group_state::body_size, true, false};
// Square Wave's body has a fixed length, the tree forms' is bounded (docs/wire_format.md 7.5).
constexpr detail::family distribution_family{detail::make_distribution_aggregator, detail::distribution_body_size,
                                             true};

}  // namespace

// The mechanism table's family decides the aggregator; its server_side column whether there is one.
const detail::family* detail::family_of(wire::mechanism m) noexcept {
  const wire::mechanism_row* row = wire::find_mechanism(m);
  if (row == nullptr || !row->server_side) return nullptr;
  switch (row->family) {
    case wire::mechanism_family::frequency_oracle:
    case wire::mechanism_family::user_level_vote: return &frequency_family;  // a vote is a unary report
    case wire::mechanism_family::mean:
    case wire::mechanism_family::user_level_refine: return &mean_family;  // a clipped local mean
    case wire::mechanism_family::vector_mean: return &vector_mean_family;
    case wire::mechanism_family::sparse_projection: return &sparse_projection_family;
    case wire::mechanism_family::winsorized_bins: return &winsorized_bins_family;
    case wire::mechanism_family::winsorized_sums: return &winsorized_sums_family;
    case wire::mechanism_family::unit_vector: return &unit_vector_family;
    case wire::mechanism_family::string_discovery: return &string_discovery_family;
    case wire::mechanism_family::distribution: return &distribution_family;
    case wire::mechanism_family::user_level_support: return &kent_support_family;  // C.1 P4
    case wire::mechanism_family::public_coin: return &public_coin_family;          // H.2, H.3
    case wire::mechanism_family::gaussian_copies: return &glm_family;              // H.4
  }
  return nullptr;
}

bool detail::served_by(wire::mechanism m, make_function make) noexcept {
  const family* f = family_of(m);
  return f != nullptr && f->make == make;
}

aggregator::aggregator(const wire::params& p) : params_(p), fingerprint_(wire::fingerprint(p)) {}

const char* variance_kind_name(variance_kind k) noexcept {
  switch (k) {
    case variance_kind::exact: return "exact";
    case variance_kind::average: return "average";
    case variance_kind::bound: return "bound";
    case variance_kind::bootstrap: return "bootstrap";
  }
  return "unknown";
}

status aggregator::create(const wire::params& p, std::unique_ptr<aggregator>* out) { return create(p, limits{}, out); }

status aggregator::create(const wire::params& p, const limits& lim, std::unique_ptr<aggregator>* out) {
  if (out == nullptr) return status::invalid_argument;
  out->reset();
  try {
    const status valid = wire::validate(p);
    if (valid != status::ok) return valid;
    const detail::family* f = detail::family_of(p.mech);
    if (f == nullptr) return status::invalid_parameters;  // a known mechanism without a server side
    // The memory contract (docs/security_model.md): refused from the block alone, before make().
    uint64_t need = 0;
    const status sized = aggregator_bytes(p, &need);
    if (sized == status::overflow || (sized == status::ok && need > lim.max_state_bytes)) {
      return status::limit_exceeded;
    }
    if (sized != status::ok) return sized;
    return f->make(p, out);
  } catch (...) {  // std::bad_alloc, std::length_error: the state does not fit in memory
    out->reset();
    return status::overflow;
  }
}

void aggregator::reject(status s, uint64_t count) noexcept {
  const auto index = static_cast<std::size_t>(static_cast<int32_t>(s));
  // ok counts nothing here (counter 0 is the damaged chunks'); no report is rejected with a status
  // past the saved counters (limit_exceeded is a create-time refusal).
  if (index == 0 || index >= rejection_counter_count) return;
  rejected_[index] = saturating_add(rejected_[index], count);
}

uint64_t aggregator::rejected_total() const noexcept {
  uint64_t total = 0;
  for (std::size_t i = 1; i < rejected_.size(); ++i) total = saturating_add(total, rejected_[i]);
  return total;
}

status aggregator::accept(status decoded, const wire::report& r) noexcept {
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

status aggregator::add_report(span<const unsigned char> report) noexcept {
  wire::report r;
  return accept(wire::decode_report(params_, fingerprint_, report, &r), r);
}

status aggregator::add_payload(span<const unsigned char> payload) noexcept {
  wire::report r;
  // create() and deserialize() validated the block: skip the per-report check.
  return accept(wire::decode_payload_validated(params_, payload, &r), r);
}

bool aggregator::ingest_run(const unsigned char*, std::size_t, std::size_t) noexcept { return false; }

bool aggregator::ingest_chunk_run(span<const unsigned char> body, uint32_t records) noexcept {
  const std::size_t size = run_payload_size();
  if (size == 0 || records == 0) return false;
  unsigned char prefix[10];
  const std::size_t prefix_size = wire::record_prefix(size, prefix);
  const std::size_t stride = prefix_size + size;
  // A chunk body is at most 2^24 bytes, so the product cannot wrap.
  if (body.size() != stride * records || records > detail::max_reports - reports_) return false;
  for (std::size_t i = 0; i < records; ++i) {
    const unsigned char* record = body.data() + i * stride;
    for (std::size_t k = 0; k < prefix_size; ++k) {
      if (record[k] != prefix[k]) return false;
    }
  }
  if (!ingest_run(body.data() + prefix_size, stride, records)) return false;
  reports_ += records;
  return true;
}

status aggregator::add_batch(span<const unsigned char> batch) noexcept {
  wire::batch_reader reader;
  status s = reader.open(batch, detail::kernel_table().crc32c);
  if (s != status::ok) return s;  // an unreadable header: nothing in the batch can be counted
  if (reader.fingerprint() != fingerprint_ || !same_block(reader.parameters(), params_)) {
    return status::parameter_mismatch;
  }
  while (!reader.done()) {
    wire::chunk_view chunk;
    s = reader.next_chunk(&chunk);
    if (s == status::checksum_mismatch) {
      // Its record count is among the damaged bytes (docs/wire_format.md section 6): counted as one
      // damaged chunk, its records as unknown; reading goes on after it.
      rejected_[0] = saturating_add(rejected_[0], 1);
      continue;
    }
    if (s != status::ok) return s;  // the next chunk cannot be located; earlier ones counted
    if (ingest_chunk_run(chunk.body, chunk.records)) continue;
    wire::record_cursor cursor(chunk);
    for (;;) {
      span<const unsigned char> payload;
      const status rs = cursor.next(&payload);
      if (rs == status::malformed_report) {
        reject(rs, cursor.unreadable());  // this record and the ones after it cannot be located
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

status aggregator::merge(const aggregator& other) noexcept {
  if (other.fingerprint_ != fingerprint_ || !same_block(other.params_, params_)) {
    return status::parameter_mismatch;
  }
  uint64_t total = 0;
  if (!checked_add(reports_, other.reports_, &total) || total > detail::max_reports) {
    return status::overflow;
  }
  try {
    const status s = merge_counts(other);  // all-or-nothing: implementations allocate before they modify
    if (s != status::ok) return s;
  } catch (...) {  // std::bad_alloc, std::length_error: memory runs out
    return status::overflow;
  }
  reports_ = total;
  for (std::size_t i = 0; i < rejected_.size(); ++i) rejected_[i] = saturating_add(rejected_[i], other.rejected_[i]);
  return status::ok;
}

status state_bytes(const wire::params& p, uint64_t reports, uint64_t* bytes) noexcept {
  *bytes = 0;
  unsigned char block[wire::params_max_size];
  std::size_t block_size = 0;
  const status s = wire::encode_params(p, block, &block_size);
  if (s != status::ok) return s;
  const detail::family* f = detail::family_of(p.mech);
  if (f == nullptr) return status::invalid_parameters;
  // serialize()'s layout: header, block length and block, n, the rejection counters, the counts.
  const uint64_t fixed = wire::state_header_size + 2 + block_size + 8 + 8 * uint64_t{rejection_counter_count};
  uint64_t body = 0;
  if (!f->body_size(p, reports, &body) || !checked_add(body, fixed, bytes)) return status::overflow;
  return status::ok;
}

status aggregator_bytes(const wire::params& p, uint64_t* bytes) noexcept {
  const status s = state_bytes(p, 0, bytes);
  if (s != status::ok) return s;
  if (!detail::family_of(p.mech)->lists_estimates) return status::ok;  // family.h
  // Estimates: one per item (d, a distribution's buckets) or coordinate (d, or the padded K of HR
  // and the vectors). They also cover the d support counts (8 bytes each) a BLH/OLH aggregator holds
  // once it has loaded or merged a counts-form state, whose empty state is only the fixed part
  // (docs/wire_format.md 7.1).
  static_assert(sizeof(estimate) >= sizeof(uint64_t), "the estimates bound BLH/OLH's counts");
  const uint64_t items = std::max({uint64_t{1}, p.get(wire::field::domain), p.get(wire::field::hadamard_dim)});
  uint64_t estimates = 0;
  if (!checked_mul(items, uint64_t{sizeof(estimate)}, &estimates)) return status::overflow;
  *bytes = std::max(*bytes, estimates);
  return status::ok;
}

std::vector<unsigned char> aggregator::serialize() const {
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
    const span<const unsigned char> body(out.data() + wire::state_header_size, out.size() - wire::state_header_size);
    if (wire::encode_state_header(params_.mech, fingerprint_, body,
                                  span<unsigned char>(out.data(), wire::state_header_size)) != status::ok) {
      return {};
    }
    return out;
  } catch (...) {
    return {};
  }
}

status aggregator::deserialize(span<const unsigned char> bytes, std::unique_ptr<aggregator>* out) {
  return deserialize(bytes, limits{}, out);
}

status aggregator::deserialize(span<const unsigned char> bytes, const limits& lim, std::unique_ptr<aggregator>* out) {
  if (out == nullptr) return status::invalid_argument;
  out->reset();
  if (bytes.size() > lim.max_state_bytes) return status::limit_exceeded;
  try {
    wire::state_header header;
    span<const unsigned char> body;
    status s = wire::decode_state(bytes, &header, &body);
    if (s != status::ok) return s;

    wire::byte_reader in(body);
    const span<const unsigned char> block = in.get_bytes(static_cast<std::size_t>(in.get_le(2)));
    if (!in.ok()) return status::wrong_length;
    wire::params p;
    s = wire::decode_params(block, &p);
    if (s != status::ok) return s;
    if (p.mech != header.mech || wire::fingerprint(p) != header.fingerprint) {
      return status::parameter_mismatch;
    }
    const uint64_t n = in.get_le(8);
    rejection_counts rejected{};
    for (uint64_t& c : rejected) c = in.get_le(8);
    if (!in.ok()) return status::wrong_length;

    const detail::family* f = detail::family_of(p.mech);
    if (f == nullptr) return status::invalid_parameters;  // as create() says
    if (n > detail::max_reports) return status::overflow;
    uint64_t expected = 0;
    // A grouped family's body_size() is a bound; its read_body() checks the exact length.
    const auto rest = static_cast<uint64_t>(in.rest().size());
    if (!f->body_size(p, n, &expected) || (f->grouped ? rest > expected : rest != expected)) {
      return status::wrong_length;
    }

    std::unique_ptr<aggregator> agg;
    s = create(p, lim, &agg);
    if (s != status::ok) return s;
    agg->reports_ = n;
    agg->rejected_ = rejected;
    s = agg->read_body(in.rest());
    if (s != status::ok) return s;
    *out = std::move(agg);
    return status::ok;
  } catch (...) {
    out->reset();
    return status::overflow;
  }
}

std::vector<estimate> aggregator::estimate_all(double confidence) const {
  try {
    return estimate_impl(detail::confidence_z(confidence));
  } catch (...) {
    return {};
  }
}

}  // namespace ldp::server
