// The inner aggregators of a group_round block (group_state.h, docs/wire_format.md 7.4, 7.5).
#include "group_state.h"

#include <algorithm>
#include <limits>

#include "family.h"
#include "ldp/base/bits.h"
#include "ldp/wire/byte_cursor.h"
#include "ldp/wire/group_block.h"
#include "state_io.h"

namespace ldp::server::detail {

status group_state::make(const wire::params& p, group_list* out) {
  const wire::params inner = wire::group_inner_block(p);
  group_list groups(wire::group_count(p));
  for (auto& g : groups) {
    std::unique_ptr<aggregator> any;
    const status s = make_frequency_aggregator(inner, &any);
    if (s != status::ok) return s;
    g.reset(static_cast<frequency_aggregator*>(any.release()));
  }
  *out = std::move(groups);
  return status::ok;
}

bool group_state::body_size(const wire::params& p, uint64_t n, uint64_t* out) {
  const wire::params inner = wire::group_inner_block(p);
  const uint64_t groups = wire::group_count(p);
  uint64_t one = 0, all = 0, head = 0;
  if (!frequency_body_size(inner, n, &one) || !checked_mul(groups, 8, &head)) return false;
  if (!checked_mul(groups, one, &all)) all = std::numeric_limits<uint64_t>::max();
  if (inner.mech == wire::mechanism::olh) {
    uint64_t listed = 0;
    if (!checked_mul(n, 12, &listed)) return false;
    all = std::min(all, listed);
  } else if (all == std::numeric_limits<uint64_t>::max()) {
    return false;
  }
  return checked_add(head, all, out);
}

status group_state::ingest(group_list& groups, const wire::report& r) noexcept {
  if (r.group >= groups.size()) return status::out_of_range;  // the decoder already checks
  aggregator& inner = *groups[r.group];
  wire::report q = r;
  q.mech = inner.params_.mech;
  q.fingerprint = inner.fingerprint_;
  const status s = inner.ingest(q);
  if (s == status::ok) ++inner.reports_;
  return s;
}

status group_state::merge(const wire::params& p, group_list& groups, const group_list& other) {
  group_list merged;
  status s = make(p, &merged);
  if (s != status::ok) return s;
  for (std::size_t g = 0; g < merged.size(); ++g) {
    aggregator& m = *merged[g];
    s = m.merge_counts(*groups[g]);
    if (s == status::ok) s = m.merge_counts(*other[g]);
    if (s != status::ok) return s;
    m.reports_ = groups[g]->reports_ + other[g]->reports_;
  }
  groups = std::move(merged);
  return status::ok;
}

void group_state::write(const group_list& groups, std::vector<unsigned char>& out) {
  for (const auto& g : groups) put_u64(out, g->reports());
  for (const auto& g : groups) static_cast<const aggregator&>(*g).write_body(out);
}

status group_state::read(const wire::params& p, group_list& groups, uint64_t n, span<const unsigned char> body) {
  const std::size_t count = groups.size();
  if (body.size() / 8 < count) return status::wrong_length;
  wire::byte_reader in(body);
  std::vector<uint64_t> counts(count);
  uint64_t total = 0;
  for (uint64_t& n_g : counts) {
    n_g = in.get_le(8);
    if (!checked_add(total, n_g, &total)) return status::malformed_report;
  }
  if (total != n) return status::malformed_report;
  const wire::params inner = wire::group_inner_block(p);
  for (std::size_t g = 0; g < count; ++g) {
    uint64_t size = 0;
    if (!frequency_body_size(inner, counts[g], &size) || size > static_cast<uint64_t>(in.rest().size())) {
      return status::wrong_length;
    }
    aggregator& a = *groups[g];
    a.reports_ = counts[g];
    const status s = a.read_body(in.get_bytes(static_cast<std::size_t>(size)));
    if (s != status::ok) return s;
  }
  return in.rest().empty() ? status::ok : status::wrong_length;
}

}  // namespace ldp::server::detail
