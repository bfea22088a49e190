// SUE (basic one-time RAPPOR, MECHANISMS.md A.2) and OUE (A.3) aggregation and estimation with the
// A.0 template. State: ones[d], the column sums of the reported unary bit vectors, and n.
// C_v = ones[v]; p-hat = T_keep/2^w, q-hat = T_other/2^w. (A SIMD positional popcount is a later
// optimization; this is the scalar reference loop over bytes and bits.)
#include "detail.h"

namespace ldp::server::detail {
namespace {

using wire::field;

class unary_aggregator final : public frequency_aggregator {
 public:
  unary_aggregator(const wire::params& p, std::size_t d, support_model model)
      : frequency_aggregator(p), model_(model), ones_(d) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    const std::size_t d = ones_.size();
    if (r.bits.size() != (d + 7) / 8) return status::wrong_length;  // the decoder already checks
    for (std::size_t byte = 0; byte < r.bits.size(); ++byte) {
      unsigned bits = r.bits[byte];
      const std::size_t base = 8 * byte;
      for (std::size_t b = 0; bits != 0; ++b, bits >>= 1) {
        // Padding bits past d are zero (checked by the decoder): base + b < d whenever set.
        if ((bits & 1u) != 0 && base + b < d) ++ones_[base + b];
      }
    }
    return status::ok;
  }

  void merge_counts(const frequency_aggregator& other) override {
    const auto& o = static_cast<const unary_aggregator&>(other);
    for (std::size_t v = 0; v < ones_.size(); ++v) ones_[v] += o.ones_[v];
  }

  void write_body(std::vector<unsigned char>& out) const override { put_u64s(out, ones_); }

  status read_body(span<const unsigned char> body) override {
    const status s = read_u64s(body, ones_);
    if (s != status::ok) return s;
    for (uint64_t c : ones_) {
      if (c > reports_) return status::malformed_report;
    }
    return status::ok;
  }

  std::vector<estimate> estimate_impl(span<const uint32_t> items, double z) const override {
    const auto n = static_cast<double>(reports_);
    std::vector<estimate> out;
    out.reserve(items.size());
    for (uint32_t v : items) {
      const double c = model_.count(static_cast<double>(ones_[v]), n);
      out.push_back(make_estimate(v, c, model_.variance(c, n), z));
    }
    return out;
  }

 private:
  support_model model_;
  std::vector<uint64_t> ones_;
};

}  // namespace

status make_unary_aggregator(const wire::params& p, aggregator_ptr* out) {
  const support_model model = pure_model(p);
  if (model.degenerate()) return status::invalid_parameters;
  std::size_t cells = 0;
  if (!cell_count(p.get(field::domain), &cells)) return status::overflow;
  *out = std::make_unique<unary_aggregator>(p, cells, model);
  return status::ok;
}

}  // namespace ldp::server::detail
