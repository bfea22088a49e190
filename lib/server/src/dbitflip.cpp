// dBitFlip (Ding, Kulkarni, Yekhanin 2017) aggregation and estimation, docs/mechanisms.md E.3.
//
// A report carries the device's 64-bit seed, which names its s sampled buckets
// (wire::dbitflip_buckets, the same expansion as the device's), and one bit per sampled bucket
// (bit i for the i-th smallest). State (exact integers): sampled[v], the reports that sampled v,
// and ones[v], those whose bit for v is 1. With p-hat = T_keep / 2^32, q-hat = T_other / 2^32 and
// every bucket sampled with probability s / k:
//   c-hat_v = (k / s) (ones[v] - q-hat sampled[v]) / (p-hat - q-hat)        (DKY's h(v) times n)
//   Var     = (k / s) n q(1 - q) / (p - q)^2 + c_v ((k / s)(1 - 2q) / (p - q) - 1)
// with c_v the plug-in estimate clipped to [0, n] (as A.0 does). Over n reports of distinct devices.
#include "estimation.h"
#include "factories.h"
#include "ldp/base/bits.h"
#include "ldp/wire/hash.h"
#include "ldp/wire/report.h"
#include "state_io.h"

namespace ldp::server::detail {
namespace {

using wire::field;

class dbitflip_aggregator final : public frequency_aggregator {
 public:
  dbitflip_aggregator(const wire::params& p, std::size_t k)
      : frequency_aggregator(p),
        k_(static_cast<uint32_t>(k)),
        s_(static_cast<uint32_t>(p.get(field::sampled_buckets))),
        p_(threshold_probability(p, field::threshold_keep)),
        q_(threshold_probability(p, field::threshold_other)),
        sampled_(k),
        ones_(k) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    uint32_t buckets[wire::dbitflip_max_sampled];
    wire::dbitflip_buckets(r.seed, k_, s_, buckets);
    for (uint32_t i = 0; i < s_; ++i) {
      ++sampled_[buckets[i]];
      ones_[buckets[i]] += (r.index >> i) & 1u;  // the decoder checked index < 2^s
    }
    return status::ok;
  }

  status merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const dbitflip_aggregator&>(other);
    for (std::size_t v = 0; v < sampled_.size(); ++v) {
      sampled_[v] += o.sampled_[v];
      ones_[v] += o.ones_[v];
    }
    return status::ok;
  }

  void write_body(std::vector<unsigned char>& out) const override {
    put_u64s(out, sampled_);
    put_u64s(out, ones_);
  }

  status read_body(span<const unsigned char> body) override {
    const std::size_t half = 8 * sampled_.size();
    if (body.size() != 2 * half) return status::wrong_length;
    status s = read_u64s(body.first(half), sampled_);
    if (s == status::ok) s = read_u64s(body.subspan(half), ones_);
    if (s != status::ok) return s;
    uint64_t total = 0, expected = 0;
    for (std::size_t v = 0; v < sampled_.size(); ++v) {
      if (sampled_[v] > reports_ || ones_[v] > sampled_[v] || !checked_add(total, sampled_[v], &total)) {
        return status::malformed_report;
      }
    }
    if (!checked_mul(reports_, s_, &expected) || total != expected) return status::malformed_report;
    return status::ok;
  }

  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const override {
    const auto n = static_cast<double>(reports_);
    const double ratio = static_cast<double>(k_) / static_cast<double>(s_), gap = p_ - q_;
    std::vector<estimate> out;
    out.reserve(items.size());
    for (const uint32_t v : items) {
      const double count = ratio * (static_cast<double>(ones_[v]) - q_ * static_cast<double>(sampled_[v])) / gap;
      const double variance =
          ratio * n * q_ * (1 - q_) / (gap * gap) + clip_count(count, n) * (ratio * (1 - 2 * q_) / gap - 1);
      out.push_back(make_estimate(v, count, variance, z));
    }
    return out;
  }

 private:
  uint32_t k_, s_;
  double p_, q_;
  std::vector<uint64_t> sampled_, ones_;
};

}  // namespace

status make_dbitflip_aggregator(const wire::params& p, aggregator_ptr* out) {
  if (!(threshold_probability(p, field::threshold_keep) > threshold_probability(p, field::threshold_other))) {
    return status::invalid_parameters;
  }
  std::size_t k = 0;
  if (!cell_count(2 * p.get(field::domain), &k)) return status::overflow;
  *out = std::make_unique<dbitflip_aggregator>(p, static_cast<std::size_t>(p.get(field::domain)));
  return status::ok;
}

}  // namespace ldp::server::detail
