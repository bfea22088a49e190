// The string-discovery family of aggregators (docs/mechanisms.md F, string_discovery.h): one inner
// frequency aggregator per group, on wire::string_inner_block, fed each report with its mechanism set
// back to the inner one. Ingestion, merge and the state are the inner oracle's, group by group
// (group_state.h); the estimates are discover() and estimate_strings().
//
// The counts in a saved state (after the common part documented in aggregator.cpp; docs/wire_format.md
// 7.4), every integer little-endian:
//     G x u64    n_g, the reports of group g                                   (sum = n)
//     then, for g = 0, ..., G - 1, the inner oracle's counts for n_g reports (frequency_aggregator.cpp;
//     for OLH the sorted list or the counts, 7.1, by group g's own n_g and d)
// So the bytes are a function of the set of reports: any split merged in any order gives the same state.
#include <limits>

#include "estimation.h"
#include "family.h"
#include "group_state.h"
#include "ldp/server/string_discovery.h"
#include "ldp/wire/string_block.h"
#include "ldp/wire/string_params.h"
#include "string_groups.h"

namespace ldp::server {

namespace {

class made_string_discovery final : public string_discovery_aggregator {
 public:
  made_string_discovery(const wire::params& p, detail::group_list groups)
      : string_discovery_aggregator(p, std::move(groups)) {}
};

}  // namespace

status detail::make_string_discovery_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  group_list groups;
  const status s = group_state::make(p, &groups);
  if (s != status::ok) return s;
  *out = std::make_unique<made_string_discovery>(p, std::move(groups));
  return status::ok;
}

string_discovery_aggregator::string_discovery_aggregator(const wire::params& p, detail::group_list groups)
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
  return detail::group_state::ingest(groups_, r);
}

status string_discovery_aggregator::merge_counts(const aggregator& other) {
  return detail::group_state::merge(params_, groups_, static_cast<const string_discovery_aggregator&>(other).groups_);
}

void string_discovery_aggregator::write_body(std::vector<unsigned char>& out) const {
  detail::group_state::write(groups_, out);
}

status string_discovery_aggregator::read_body(span<const unsigned char> body) {
  return detail::group_state::read(params_, groups_, reports_, body);
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
