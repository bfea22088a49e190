// FLH, fast local hashing (Cormode, Maddock, Maple 2021), aggregation and estimation:
// docs/mechanisms.md A.4.
//
// A report names one of the block's k public functions H_j (wire::flh_function, j revealed) and a
// bucket y = GRR_g(H_j(v)), as the index j g + y. The state is the histogram h of those indexes:
// k x g exact counts, h[j g + y] (histogram_aggregator: merge by addition, saved as k g u64 summing
// to n). O(1) per report.
//
// Support of v: C_v = sum_j h[j g + H_j(v)], O(k) per item, so O(k d) for every item instead of
// OLH's O(n d). Estimator as OLH: the A.0 template with (p-hat, q* = 1/g). Variance: the template
// plus the term of users who share a function, sum_{w != v} f_w (f_w - 1) / (k (g - 1)) [derived in
// A.4 for 3-wise independent functions], with f the estimates clipped to [0, n] over the items being
// estimated (collision_sums, as CMS and HCMS).
#include <algorithm>

#include "estimation.h"
#include "factories.h"
#include "histogram_aggregator.h"
#include "ldp/wire/hash.h"
#include "support_model.h"

namespace ldp::server::detail {
namespace {

using wire::field;

// Items per block of the all-items decode: the block's support counts (32 KiB) stay in L1 while every
// function adds to them.
constexpr uint32_t decode_block = 4096;

class flh_aggregator final : public histogram_aggregator {
 public:
  flh_aggregator(const wire::params& p, std::size_t cells, support_model model)
      : histogram_aggregator(p, cells, model),
        k_(static_cast<uint32_t>(p.get(field::sketch_rows))),
        g_(static_cast<uint32_t>(p.get(field::hash_range))) {}

 protected:
  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const override {
    const std::vector<uint64_t> support = supports(items);
    const auto n = static_cast<double>(reports_);
    std::vector<double> counts(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) counts[i] = model_.count(static_cast<double>(support[i]), n);
    const std::vector<double> others = collision_sums(items, counts, n);
    const double shared = static_cast<double>(k_) * static_cast<double>(g_ - 1);
    std::vector<estimate> out;
    out.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      out.push_back(make_estimate(items[i], counts[i], model_.variance(counts[i], n) + others[i] / shared, z));
    }
    return out;
  }

 private:
  // C_v of each item: by finite differences over all d items when the items are at least an eighth
  // of the domain (about the break-even of the two loops), otherwise by Horner's rule per function.
  std::vector<uint64_t> supports(span<const uint32_t> items) const {
    std::vector<wire::flh_key> keys(k_);
    for (uint32_t j = 0; j < k_; ++j) keys[j] = wire::flh_function(params_.hash_seed, j);
    const uint64_t d = params_.get(field::domain);
    std::vector<uint64_t> out(items.size());
    if (uint64_t{items.size()} * 8 >= d) {
      const std::vector<uint64_t> all = all_supports(keys);
      for (std::size_t i = 0; i < items.size(); ++i) out[i] = all[items[i]];
      return out;
    }
    for (uint32_t j = 0; j < k_; ++j) {
      const uint64_t* row = hist_.data() + std::size_t{j} * g_;
      for (std::size_t i = 0; i < items.size(); ++i) {
        out[i] += row[wire::flh_bucket(wire::flh_value(keys[j], items[i]), g_)];
      }
    }
    return out;
  }

  // Every item's support. h_j(v + 1) - h_j(v) = a (2 v + 1) + b: each function walks the items with
  // its value and that difference, two modular additions per item, block by block.
  std::vector<uint64_t> all_supports(const std::vector<wire::flh_key>& keys) const {
    const auto d = static_cast<uint32_t>(params_.get(field::domain));
    std::vector<uint64_t> support(d);
    std::vector<uint64_t> value(k_), step(k_);  // h_j(v) and h_j(v + 1) - h_j(v) at the block's start
    std::vector<uint32_t> used;                 // the functions some report named
    for (uint32_t j = 0; j < k_; ++j) {
      value[j] = keys[j].c;
      step[j] = wire::add_mod61(keys[j].a, keys[j].b);
      const uint64_t* row = hist_.data() + std::size_t{j} * g_;
      if (std::any_of(row, row + g_, [](uint64_t c) { return c != 0; })) used.push_back(j);
    }
    for (uint32_t first = 0; first < d; first += decode_block) {
      const uint32_t last = d - first < decode_block ? d : first + decode_block;
      for (uint32_t j : used) {
        const uint64_t* row = hist_.data() + std::size_t{j} * g_;
        const uint64_t twice_a = wire::add_mod61(keys[j].a, keys[j].a);
        uint64_t h = value[j], delta = step[j];
        for (uint32_t v = first; v < last; ++v) {
          support[v] += row[wire::flh_bucket(h, g_)];
          h = wire::add_mod61(h, delta);
          delta = wire::add_mod61(delta, twice_a);
        }
        value[j] = h;
        step[j] = delta;
      }
    }
    return support;
  }

  uint32_t k_;
  uint32_t g_;
};

}  // namespace

status make_flh_aggregator(const wire::params& p, aggregator_ptr* out) {
  return make_pure_aggregator<flh_aggregator>(p, p.get(field::sketch_rows) * p.get(field::hash_range), out);
}

}  // namespace ldp::server::detail
