// BLH and OLH aggregation and estimation, docs/mechanisms.md A.4.
// State: the (seed, bucket) pair of every accepted report. A report supports v iff
// hash_to_range(report_hash_key(seed), v, g) == bucket. For a value the user does not hold the
// support probability is q* = 1/g (not the device's (1 - p)/(g - 1): the "integer-g bug"), so
// c-hat_v = (C_v - n/g)/(p-hat - 1/g) and the variance is the A.0 template with (p-hat, 1/g).
//
// Reports are kept as structure of arrays (seed, a, b, bucket), the key (a, b) derived once when
// the report is accepted, so decoding is the kernel table's olh_support over n reports and the
// candidates: O(n * items) hash evaluations, vectorized over candidates (docs/performance.md 5; FLH or
// HR when that is too much). The saved state holds only (seed, bucket), sorted.
#include <algorithm>

#include "estimation.h"
#include "factories.h"
#include "kernel_access.h"
#include "ldp/wire/byte_cursor.h"
#include "ldp/wire/hash.h"
#include "state_io.h"
#include "support_model.h"

namespace ldp::server::detail {
namespace {

using wire::field;

struct entry {
  uint64_t seed;
  uint32_t bucket;
  bool operator<(const entry& o) const noexcept { return seed != o.seed ? seed < o.seed : bucket < o.bucket; }
};

constexpr std::size_t entry_bytes = 12;

// Room for `more` elements without reallocating, growing geometrically.
template <class T>
void make_room(std::vector<T>& v, std::size_t more) {
  if (v.capacity() - v.size() >= more) return;
  const std::size_t doubled = 2 * v.capacity();
  v.reserve(std::max(v.size() + more, std::max<std::size_t>(doubled, 64)));
}

class local_hash_aggregator final : public frequency_aggregator {
 public:
  local_hash_aggregator(const wire::params& p, support_model model)
      : frequency_aggregator(p), model_(model), g_(static_cast<uint32_t>(p.get(field::hash_range))) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (r.index >= g_) return status::out_of_range;  // the decoder already checks
    try {
      reserve(1);
    } catch (...) {
      return status::overflow;  // out of memory: the report is rejected, the state is unchanged
    }
    append(r.seed, r.index);  // cannot throw now
    return status::ok;
  }

  status merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const local_hash_aggregator&>(other);
    const std::size_t theirs = o.seeds_.size();
    reserve(theirs);  // may throw; nothing has changed yet
    // Index-based so that merging an aggregator into itself stays valid (no reallocation now).
    for (std::size_t i = 0; i < theirs; ++i) {
      seeds_.push_back(o.seeds_[i]);
      a_.push_back(o.a_[i]);
      b_.push_back(o.b_[i]);
      buckets_.push_back(o.buckets_[i]);
    }
    return status::ok;
  }

  // Sorted, so the bytes do not depend on the order reports arrived or states were merged.
  void write_body(std::vector<unsigned char>& out) const override {
    std::vector<entry> sorted(seeds_.size());
    for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = entry{seeds_[i], buckets_[i]};
    std::sort(sorted.begin(), sorted.end());
    out.reserve(out.size() + entry_bytes * sorted.size());
    for (const entry& e : sorted) {
      put_u64(out, e.seed);
      put_u32(out, e.bucket);
    }
  }

  status read_body(span<const unsigned char> body) override {
    if (body.size() % entry_bytes != 0 || body.size() / entry_bytes != reports_) return status::wrong_length;
    local_hash_aggregator read(params_, model_);
    read.reserve(body.size() / entry_bytes);
    wire::byte_reader in(body);
    entry last{0, 0};
    for (uint64_t i = 0; i < reports_; ++i) {
      const entry e{in.get_le(8), static_cast<uint32_t>(in.get_le(4))};
      if (e.bucket >= g_) return status::out_of_range;
      if (i != 0 && e < last) return status::malformed_report;  // not canonical
      read.append(e.seed, e.bucket);
      last = e;
    }
    seeds_ = std::move(read.seeds_);
    a_ = std::move(read.a_);
    b_ = std::move(read.b_);
    buckets_ = std::move(read.buckets_);
    return status::ok;
  }

  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const override {
    std::vector<uint64_t> support(items.size(), 0);
    if (!items.empty() && !seeds_.empty()) {
      kernel_table().olh_support(a_.data(), b_.data(), buckets_.data(), seeds_.size(), g_, items.data(), items.size(),
                                 support.data());
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
  // Room for `more` reports in every array (may throw, changing capacities only).
  void reserve(std::size_t more) {
    make_room(seeds_, more);
    make_room(a_, more);
    make_room(b_, more);
    make_room(buckets_, more);
  }

  // Appends one report; does not allocate after reserve(1).
  void append(uint64_t seed, uint32_t bucket) noexcept {
    const wire::hash_key key = wire::report_hash_key(seed);
    seeds_.push_back(seed);
    a_.push_back(key.a);
    b_.push_back(key.b);
    buckets_.push_back(bucket);
  }

  support_model model_;
  uint32_t g_;
  // One entry per accepted report, in arrival order; a_, b_ are report_hash_key(seed).
  std::vector<uint64_t> seeds_;
  std::vector<uint64_t> a_;
  std::vector<uint64_t> b_;
  std::vector<uint32_t> buckets_;
};

}  // namespace

status make_local_hash_aggregator(const wire::params& p, aggregator_ptr* out) {
  const support_model model = pure_model(p);  // q* = 1/g
  if (model.degenerate()) return status::invalid_parameters;
  *out = std::make_unique<local_hash_aggregator>(p, model);
  return status::ok;
}

}  // namespace ldp::server::detail
