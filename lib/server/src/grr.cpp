// GRR (k-RR) aggregation and estimation, MECHANISMS.md A.1 with the A.0 template.
// State: the histogram h[d] of reported values. C_v = h[v]; p-hat = T/2^w and
// q-hat = (1 - p-hat)/(d - 1) exactly as the device implements them.
#include "detail.h"
#include "ldp/base/bits.h"

namespace ldp::server::detail {
namespace {

using wire::field;

class grr_aggregator final : public frequency_aggregator {
 public:
  grr_aggregator(const wire::params& p, std::size_t d, support_model model)
      : frequency_aggregator(p), model_(model), hist_(d) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (r.index >= hist_.size()) return status::out_of_range;  // the decoder already checks
    ++hist_[r.index];
    return status::ok;
  }

  void merge_counts(const frequency_aggregator& other) override {
    const auto& o = static_cast<const grr_aggregator&>(other);
    for (std::size_t v = 0; v < hist_.size(); ++v) hist_[v] += o.hist_[v];
  }

  void write_body(std::vector<unsigned char>& out) const override { put_u64s(out, hist_); }

  status read_body(span<const unsigned char> body) override {
    const status s = read_u64s(body, hist_);
    if (s != status::ok) return s;
    uint64_t total = 0;
    for (uint64_t h : hist_) {
      if (!checked_add(total, h, &total)) return status::malformed_report;
    }
    return total == reports_ ? status::ok : status::malformed_report;
  }

  std::vector<estimate> estimate_impl(span<const uint32_t> items, double z) const override {
    const auto n = static_cast<double>(reports_);
    std::vector<estimate> out;
    out.reserve(items.size());
    for (uint32_t v : items) {
      const double c = model_.count(static_cast<double>(hist_[v]), n);
      out.push_back(make_estimate(v, c, model_.variance(c, n), z));
    }
    return out;
  }

 private:
  support_model model_;
  std::vector<uint64_t> hist_;
};

}  // namespace

status make_grr_aggregator(const wire::params& p, aggregator_ptr* out) {
  const support_model model = pure_model(p);
  if (model.degenerate()) return status::invalid_parameters;
  std::size_t cells = 0;
  if (!cell_count(p.get(field::domain), &cells)) return status::overflow;
  *out = std::make_unique<grr_aggregator>(p, cells, model);
  return status::ok;
}

}  // namespace ldp::server::detail
