// The string-discovery family of aggregators (docs/mechanisms.md F, string_discovery.h): one inner
// frequency aggregator per group, on wire::string_inner_block, fed each report with its mechanism set
// back to the inner one. Ingestion, merge and the state are the inner oracle's, group by group; the
// estimates are discover() and estimate_strings().
//
// The counts in a saved state (after the common part documented in aggregator.cpp; docs/wire_format.md
// 7.4), every integer little-endian:
//     G x u64    n_g, the reports of group g                                   (sum = n)
//     then, for g = 0, ..., G - 1, the inner oracle's counts for n_g reports (frequency_aggregator.cpp;
//     for OLH the sorted list or the counts, 7.1, by group g's own n_g and d)
// So the bytes are a function of the set of reports: any split merged in any order gives the same state.
#include <algorithm>
#include <limits>

#include "estimation.h"
#include "family.h"
#include "ldp/base/bits.h"
#include "ldp/server/string_discovery.h"
#include "ldp/wire/byte_cursor.h"
#include "ldp/wire/string_block.h"
#include "ldp/wire/string_params.h"
#include "report_cap.h"
#include "state_io.h"
#include "string_groups.h"

namespace ldp::server {

using wire::field;

namespace {

using group_list = std::vector<std::unique_ptr<frequency_aggregator>>;

// Empty inner aggregators, one per group. The outer block's validation covered the inner block, and
// the outer memory check its state (aggregator_bytes); the inner estimate lists (d estimates) are
// never made, so the inner blocks do not go through aggregator::create's ceiling.
status make_groups(const wire::params& p, group_list* out) {
  const wire::params inner = wire::string_inner_block(p);
  group_list groups(wire::string_groups(p));
  for (auto& g : groups) {
    std::unique_ptr<aggregator> any;
    const status s = detail::make_frequency_aggregator(inner, &any);
    if (s != status::ok) return s;
    g.reset(static_cast<frequency_aggregator*>(any.release()));
  }
  *out = std::move(groups);
  return status::ok;
}

class made_string_discovery final : public string_discovery_aggregator {
 public:
  made_string_discovery(const wire::params& p, group_list groups) : string_discovery_aggregator(p, std::move(groups)) {}
};

}  // namespace

// An upper bound (family.h "grouped"): the inner bodies for the n reports in one group each, at most
// 12 n_g bytes for OLH (its list form; the counts form is shorter) and independent of n_g for the
// sketches, so the sum over any split is at most min(G f(n), 12 n) for OLH and G f(0) otherwise.
bool detail::string_discovery_body_size(const wire::params& p, uint64_t n, uint64_t* out) {
  const wire::params inner = wire::string_inner_block(p);
  const uint64_t groups = wire::string_groups(p);
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

status detail::make_string_discovery_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  group_list groups;
  const status s = make_groups(p, &groups);
  if (s != status::ok) return s;
  *out = std::make_unique<made_string_discovery>(p, std::move(groups));
  return status::ok;
}

string_discovery_aggregator::string_discovery_aggregator(const wire::params& p, group_list groups)
    : aggregator(p), groups_(std::move(groups)) {}

bool string_discovery_aggregator::handles(wire::mechanism m) noexcept {
  return detail::served_by(m, detail::make_string_discovery_aggregator);
}

status string_discovery_aggregator::create(const wire::params& p, std::unique_ptr<string_discovery_aggregator>* out) {
  return detail::create_as(p, detail::make_string_discovery_aggregator, out);
}

status string_discovery_aggregator::deserialize(span<const unsigned char> bytes,
                                                std::unique_ptr<string_discovery_aggregator>* out) {
  return detail::deserialize_as(bytes, detail::make_string_discovery_aggregator, out);
}

uint64_t string_discovery_aggregator::group_reports(uint32_t g) const noexcept {
  return g < groups_.size() ? groups_[g]->reports() : 0;
}

status string_discovery_aggregator::ingest(const wire::report& r) noexcept {
  if (r.group >= groups_.size()) return status::out_of_range;  // the decoder already checks
  aggregator& inner = *groups_[r.group];
  wire::report q = r;
  q.mech = inner.params_.mech;
  q.fingerprint = inner.fingerprint_;
  const status s = inner.ingest(q);
  if (s == status::ok) ++inner.reports_;  // below the outer n, which aggregator::accept caps
  return s;
}

// All or nothing: the merged groups are built beside the current ones (for OLH a copy of both lists,
// what merging appends anyway), then swapped in.
status string_discovery_aggregator::merge_counts(const aggregator& other) {
  const auto& o = static_cast<const string_discovery_aggregator&>(other);
  group_list merged;
  status s = make_groups(params_, &merged);
  if (s != status::ok) return s;
  for (std::size_t g = 0; g < merged.size(); ++g) {
    aggregator& m = *merged[g];
    s = m.merge_counts(*groups_[g]);
    if (s == status::ok) s = m.merge_counts(*o.groups_[g]);
    if (s != status::ok) return s;
    m.reports_ = groups_[g]->reports_ + o.groups_[g]->reports_;  // merge() checked the sum of all n
  }
  groups_ = std::move(merged);
  return status::ok;
}

void string_discovery_aggregator::write_body(std::vector<unsigned char>& out) const {
  for (const auto& g : groups_) detail::put_u64(out, g->reports());
  for (const auto& g : groups_) static_cast<const aggregator&>(*g).write_body(out);
}

status string_discovery_aggregator::read_body(span<const unsigned char> body) {
  const std::size_t groups = groups_.size();
  if (body.size() / 8 < groups) return status::wrong_length;
  wire::byte_reader in(body);
  std::vector<uint64_t> counts(groups);
  uint64_t total = 0;
  for (uint64_t& n_g : counts) {
    n_g = in.get_le(8);
    if (!checked_add(total, n_g, &total)) return status::malformed_report;
  }
  if (total != reports_) return status::malformed_report;
  const wire::params inner = wire::string_inner_block(params_);
  for (std::size_t g = 0; g < groups; ++g) {
    uint64_t size = 0;
    if (!detail::frequency_body_size(inner, counts[g], &size) || size > static_cast<uint64_t>(in.rest().size())) {
      return status::wrong_length;
    }
    aggregator& a = *groups_[g];
    a.reports_ = counts[g];
    const status s = a.read_body(in.get_bytes(static_cast<std::size_t>(size)));
    if (s != status::ok) return s;
  }
  return in.rest().empty() ? status::ok : status::wrong_length;
}

std::vector<estimate> string_discovery_aggregator::estimate_impl(double) const { return {}; }

status string_discovery_aggregator::estimate_strings(const std::vector<std::string>& strings, double confidence,
                                                     std::vector<estimate>* out) const {
  if (out == nullptr || !(confidence >= 0 && confidence <= 1)) return status::invalid_argument;
  out->clear();
  try {
    // The strings pad_string accepts (the others get NaN), as their groups count them: pem and
    // treehist pooled over the groups since each ended, as discover() estimates it (F.2); sfp, the
    // word group.
    std::vector<wire::padded_string> padded;
    std::vector<std::size_t> where;
    for (std::size_t i = 0; i < strings.size(); ++i) {
      const std::string& s = strings[i];
      wire::padded_string one;
      const span<const unsigned char> bytes(reinterpret_cast<const unsigned char*>(s.data()), s.size());
      if (wire::pad_string(params_, bytes, &one) != status::ok) continue;
      padded.push_back(one);
      where.push_back(i);
    }
    const detail::group_view view(params_, groups_, reports_);
    std::vector<estimate> found;
    status s = status::ok;
    if (params_.mech == wire::mechanism::sfp) {
      const uint32_t word = wire::string_groups(params_) - 1;
      std::vector<uint32_t> items;
      for (const wire::padded_string& one : padded) items.push_back(wire::string_item(params_, word, one));
      s = view.scaled(word, items, confidence, &found);
    } else {
      s = detail::estimate_prefix_strings(view, padded, confidence, &found);
    }
    if (s != status::ok) return s;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    out->assign(strings.size(), estimate{0, nan, nan, nan, nan});
    for (std::size_t j = 0; j < where.size(); ++j) (*out)[where[j]] = found[j];
    return status::ok;
  } catch (...) {
    out->clear();
    return status::overflow;
  }
}

status string_discovery_aggregator::discover(const discovery_options& o, std::vector<discovered_string>* out) const {
  if (out == nullptr || o.k == 0 || !(o.confidence >= 0 && o.confidence <= 1)) return status::invalid_argument;
  out->clear();
  try {
    const detail::group_view view(params_, groups_, reports_);
    const uint64_t wide = 4 * uint64_t{o.k};
    status s = status::invalid_parameters;  // a value outside the enumeration
    switch (wire::string_of(params_.mech)) {
      case wire::string_member::pem:
        s = detail::discover_prefixes(view, o, o.keep != 0 ? o.keep : wide, false, out);
        break;
      case wire::string_member::treehist:
        s = detail::discover_prefixes(view, o, o.keep != 0 ? o.keep : wide, true, out);
        break;
      case wire::string_member::sfp: s = detail::discover_words(view, o, o.keep != 0 ? o.keep : wide, out); break;
    }
    if (s != status::ok) out->clear();
    return s;
  } catch (...) {  // std::bad_alloc, std::length_error
    out->clear();
    return status::overflow;
  }
}

}  // namespace ldp::server
