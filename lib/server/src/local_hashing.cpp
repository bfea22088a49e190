// BLH and OLH aggregation and estimation, MECHANISMS.md A.4.
// State: the (seed, bucket) pair of every accepted report. A report supports v iff
// hash_to_range(report_hash_key(seed), v, g) == bucket. For a value the user does not hold the
// support probability is q* = 1/g (not the device's (1 - p)/(g - 1): the "integer-g bug"), so
// c-hat_v = (C_v - n/g)/(p-hat - 1/g) and the variance is the A.0 template with (p-hat, 1/g).
// Decoding costs O(n * items) hash evaluations (PERFORMANCE.md: FLH or HR when that is too much).
#include <algorithm>

#include "detail.h"
#include "ldp/wire/hash.h"

namespace ldp::server::detail {
namespace {

using wire::field;

struct entry {
  uint64_t seed;
  uint32_t bucket;
  bool operator<(const entry& o) const noexcept {
    return seed != o.seed ? seed < o.seed : bucket < o.bucket;
  }
};

constexpr std::size_t entry_bytes = 12;

class local_hash_aggregator final : public frequency_aggregator {
 public:
  local_hash_aggregator(const wire::params& p, support_model model)
      : frequency_aggregator(p), model_(model), g_(static_cast<uint32_t>(p.get(field::hash_range))) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (r.index >= g_) return status::out_of_range;  // the decoder already checks
    try {
      entries_.push_back(entry{r.seed, r.index});
    } catch (...) {
      return status::overflow;  // out of memory: the report is rejected, the state is unchanged
    }
    return status::ok;
  }

  void merge_counts(const frequency_aggregator& other) override {
    const auto& o = static_cast<const local_hash_aggregator&>(other);
    const std::size_t theirs = o.entries_.size();
    entries_.reserve(entries_.size() + theirs);  // may throw; nothing has changed yet
    // Index-based so that merging an aggregator into itself stays valid (no reallocation now).
    for (std::size_t i = 0; i < theirs; ++i) entries_.push_back(o.entries_[i]);
  }

  // Sorted, so the bytes do not depend on the order reports arrived or states were merged.
  void write_body(std::vector<unsigned char>& out) const override {
    std::vector<entry> sorted = entries_;
    std::sort(sorted.begin(), sorted.end());
    out.reserve(out.size() + entry_bytes * sorted.size());
    for (const entry& e : sorted) {
      put_u64(out, e.seed);
      put_u32(out, e.bucket);
    }
  }

  status read_body(span<const unsigned char> body) override {
    if (body.size() % entry_bytes != 0 || body.size() / entry_bytes != reports_) return status::wrong_length;
    std::vector<entry> read;
    read.reserve(body.size() / entry_bytes);
    body_reader in(body);
    for (uint64_t i = 0; i < reports_; ++i) {
      const entry e{in.u64(), static_cast<uint32_t>(in.u32())};
      if (e.bucket >= g_) return status::out_of_range;
      if (!read.empty() && e < read.back()) return status::malformed_report;  // not canonical
      read.push_back(e);
    }
    entries_ = std::move(read);
    return status::ok;
  }

  std::vector<estimate> estimate_impl(span<const uint32_t> items, double z) const override {
    // Reports in the outer loop: one key derivation per report, then a cheap hash per item.
    std::vector<uint64_t> support(items.size(), 0);
    for (const entry& e : entries_) {
      const wire::hash_key key = wire::report_hash_key(e.seed);
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (wire::hash_to_range(key, items[i], g_) == e.bucket) ++support[i];
      }
    }
    const auto n = static_cast<double>(reports_);
    std::vector<estimate> out;
    out.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      const double c = model_.count(static_cast<double>(support[i]), n);
      out.push_back(make_estimate(items[i], c, model_.variance(c, n), z));
    }
    return out;
  }

 private:
  support_model model_;
  uint32_t g_;
  std::vector<entry> entries_;
};

}  // namespace

status make_local_hash_aggregator(const wire::params& p, aggregator_ptr* out) {
  const support_model model = pure_model(p);  // q* = 1/g
  if (model.degenerate()) return status::invalid_parameters;
  *out = std::make_unique<local_hash_aggregator>(p, model);
  return status::ok;
}

}  // namespace ldp::server::detail
