// The distribution family of aggregators (docs/mechanisms.md G, distribution.h). Square Wave counts
// its reports' outputs (G.1); the tree forms hold one inner OLH aggregator per level, on
// wire::distribution_inner_block, as string discovery holds one per group (group_state.h). The
// estimates come from a range model of the counts (range_model.h): EMS with its bootstrap for
// Square Wave (square_wave_estimation.cpp), the linear tree estimators for the others
// (tree_estimation.cpp), answered by distribution_queries.cpp.
//
// The counts in a saved state (after the common part documented in aggregator.cpp; docs/wire_format.md
// 7.5), every integer little-endian:
//     square-wave:            (D + 2b) x u64, the reports of each output y          (sum = n)
//     hierarchical, haar:     h x u64 n_g, the reports of level group g              (sum = n)
//                             then, for g = 0, ..., h - 1, the inner OLH's list or counts form (7.1)
//                             for group g's own n_g and the domain D
// So the bytes are a function of the set of reports: any split merged in any order gives the same state.
#include <algorithm>
#include <limits>
#include <utility>

#include "distribution_queries.h"
#include "estimation.h"
#include "family.h"
#include "group_state.h"
#include "ldp/base/bits.h"
#include "ldp/server/distribution.h"
#include "ldp/wire/distribution_params.h"
#include "ldp/wire/report.h"
#include "range_model.h"
#include "state_io.h"

namespace ldp::server {
namespace {

using detail::range_model;

// The queries of every form: validated, then answered from the form's model of the counts.
class distribution_base : public distribution_aggregator {
 public:
  using distribution_aggregator::distribution_aggregator;

  status ranges(span<const std::pair<double, double>> queries, const distribution_options& o,
                std::vector<range_estimate>* out) const final {
    if (out == nullptr || !detail::valid_ranges(queries)) return status::invalid_argument;
    return from_model(o, out,
                      [&](const range_model* m, double z) { return detail::answer_ranges(params_, m, queries, z); });
  }

  status quantiles(span<const double> qs, const distribution_options& o,
                   std::vector<quantile_estimate>* out) const final {
    if (out == nullptr || !detail::valid_quantiles(qs)) return status::invalid_argument;
    return from_model(o, out,
                      [&](const range_model* m, double z) { return detail::answer_quantiles(params_, m, qs, z); });
  }

  status density(const distribution_options& o, std::vector<density_estimate>* out) const final {
    if (out == nullptr) return status::invalid_argument;
    return from_model(o, out, [&](const range_model* m, double z) { return detail::answer_density(params_, m, z); });
  }

  status answer(const distribution_query& q, const distribution_options& o, distribution_answer* out) const final {
    if (out == nullptr || !detail::valid_ranges(q.ranges) || !detail::valid_quantiles(q.quantiles)) {
      return status::invalid_argument;
    }
    return from_model(o, out, [&](const range_model* m, double z) {
      distribution_answer a;
      if (!q.ranges.empty()) a.ranges = detail::answer_ranges(params_, m, q.ranges, z);
      if (!q.quantiles.empty()) a.quantiles = detail::answer_quantiles(params_, m, q.quantiles, z);
      if (q.density) a.density = detail::answer_density(params_, m, z);
      return a;
    });
  }

 protected:
  std::vector<estimate> estimate_impl(double z) const final {
    std::unique_ptr<range_model> m;
    if (reports_ != 0 && model(distribution_options{}, &m) != status::ok) return {};
    return detail::bucket_counts(params_, m.get(), reports_, z, kind());
  }

  // The model of the counts (reports_ > 0); overflow when memory runs out.
  [[nodiscard]] virtual status model(const distribution_options& o, std::unique_ptr<range_model>* out) const = 0;
  // What the model's variances are (docs/mechanisms.md 0 "Variance kinds").
  [[nodiscard]] virtual variance_kind kind() const noexcept = 0;

 private:
  // Without reports there is no model (every estimate is NaN); `make` answers from the model.
  template <class Result, class Make>
  status from_model(const distribution_options& o, Result* out, Make make) const {
    *out = Result{};
    if (!(o.confidence >= 0 && o.confidence <= 1)) return status::invalid_argument;
    try {
      std::unique_ptr<range_model> m;
      if (reports_ != 0) {
        const status s = model(o, &m);
        if (s != status::ok) return s;
      }
      *out = make(m.get(), detail::confidence_z(o.confidence));
      return status::ok;
    } catch (...) {  // std::bad_alloc, std::length_error
      *out = Result{};
      return status::overflow;
    }
  }
};

// G.1: the histogram of the D + 2b outputs.
class square_wave_aggregator final : public distribution_base {
 public:
  square_wave_aggregator(const wire::params& p, std::size_t outputs) : distribution_base(p), counts_(outputs) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (r.index >= counts_.size()) return status::out_of_range;  // the decoder already checks
    ++counts_[r.index];
    return status::ok;
  }

  // Batch records are the output alone, index_bytes(D + 2b) bytes little-endian (docs/wire_format.md
  // 5): a run is counted in one pass after checking every output.
  std::size_t run_payload_size() const noexcept override { return wire::max_payload_size(params_); }
  bool ingest_run(const unsigned char* first, std::size_t stride, std::size_t count) noexcept override {
    const std::size_t width = run_payload_size();
    const auto output = [&](std::size_t i) {
      std::size_t y = 0;
      for (std::size_t k = width; k-- > 0;) y = y << 8 | first[i * stride + k];
      return y;
    };
    for (std::size_t i = 0; i < count; ++i) {
      if (output(i) >= counts_.size()) return false;
    }
    for (std::size_t i = 0; i < count; ++i) ++counts_[output(i)];
    return true;
  }

  status merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const square_wave_aggregator&>(other);
    for (std::size_t y = 0; y < counts_.size(); ++y) counts_[y] += o.counts_[y];  // both sum to at most 2^62
    return status::ok;
  }

  void write_body(std::vector<unsigned char>& out) const override { detail::put_u64s(out, counts_); }

  status read_body(span<const unsigned char> body) override {
    const status s = detail::read_u64s(body, counts_);
    if (s != status::ok) return s;
    uint64_t total = 0;
    for (uint64_t c : counts_) {
      if (!checked_add(total, c, &total)) return status::malformed_report;
    }
    return total == reports_ ? status::ok : status::malformed_report;
  }

  status model(const distribution_options& o, std::unique_ptr<range_model>* out) const override {
    return detail::make_square_wave_model(params_, counts_, o, out);
  }

  // EMS has no closed form: the bootstrap's spread at the fitted distribution (G.1).
  variance_kind kind() const noexcept override { return variance_kind::bootstrap; }

 private:
  std::vector<uint64_t> counts_;
};

// G.2, G.3: one inner OLH aggregator per level group.
class tree_aggregator final : public distribution_base {
 public:
  tree_aggregator(const wire::params& p, detail::group_list levels)
      : distribution_base(p), levels_(std::move(levels)) {}

 protected:
  status ingest(const wire::report& r) noexcept override { return detail::group_state::ingest(levels_, r); }

  status merge_counts(const aggregator& other) override {
    return detail::group_state::merge(params_, levels_, static_cast<const tree_aggregator&>(other).levels_);
  }

  void write_body(std::vector<unsigned char>& out) const override { detail::group_state::write(levels_, out); }

  status read_body(span<const unsigned char> body) override {
    return detail::group_state::read(params_, levels_, reports_, body);
  }

  status model(const distribution_options& o, std::unique_ptr<range_model>* out) const override {
    return detail::make_tree_model(params_, levels_, reports_, o, out);
  }

  // Linear in the OLH estimates, whose variances are A.4's closed form (G.2; up to the correlation of
  // nearby items that "What the variance leaves out" measures).
  variance_kind kind() const noexcept override { return variance_kind::exact; }

 private:
  detail::group_list levels_;
};

}  // namespace

bool detail::distribution_body_size(const wire::params& p, uint64_t n, uint64_t* out) {
  switch (wire::distribution_of(p.mech)) {
    case wire::distribution_member::square_wave: return checked_mul(wire::square_wave_outputs(p), 8, out);
    case wire::distribution_member::hierarchical:
    case wire::distribution_member::haar: return group_state::body_size(p, n, out);
  }
  return false;
}

status detail::make_distribution_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  switch (wire::distribution_of(p.mech)) {
    case wire::distribution_member::square_wave: {
      std::size_t outputs = 0;
      if (!cell_count(wire::square_wave_outputs(p), &outputs)) return status::overflow;
      *out = std::make_unique<square_wave_aggregator>(p, outputs);
      return status::ok;
    }
    case wire::distribution_member::hierarchical:
    case wire::distribution_member::haar: {
      group_list levels;
      const status s = group_state::make(p, &levels);
      if (s != status::ok) return s;
      *out = std::make_unique<tree_aggregator>(p, std::move(levels));
      return status::ok;
    }
  }
  return status::invalid_parameters;  // a value outside the enumeration
}

bool distribution_aggregator::handles(wire::mechanism m) noexcept {
  return detail::served_by(m, detail::make_distribution_aggregator);
}

status distribution_aggregator::create(const wire::params& p, std::unique_ptr<distribution_aggregator>* out) {
  return detail::create_as(p, detail::make_distribution_aggregator, out);
}

status distribution_aggregator::deserialize(span<const unsigned char> bytes,
                                            std::unique_ptr<distribution_aggregator>* out) {
  return detail::deserialize_as(bytes, detail::make_distribution_aggregator, out);
}

}  // namespace ldp::server
