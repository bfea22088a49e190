// CMS and HCMS (Apple 2017) aggregation and estimation, docs/mechanisms.md A.6.
//
// Rows use the public hash family h_j(x) = wire::sketch_hash(hash_seed)(j, x, m).
// Wire conventions (device side): a CMS report (row j, m bits) has bit l = 1 for +1; the one-hot
// position h_j(x) starts at +1, the others at -1, and every bit is flipped with q_f = T_other/2^w.
// An HCMS report (row j, column l, bit b) has b = 1 for +1: the true sign H_m[l, h_j(x)] flipped
// with probability T_other/2^w.
//
// State (exact integers): n_j per row, and per cell (j, l) CMS ones[j][l] (row-j reports whose bit
// l is 1) or HCMS sum[j][l] (+1 per bit 1, -1 per bit 0). Finalized sketch M, with
// c = 1/(1 - 2 q-hat):
//   CMS   M[j][l] = k ((c/2)(2 ones[j][l] - n_j) + n_j/2)
//   HCMS  M[j][.] = k c (H_m sum[j][.])            (one FWHT of length m per row)
// Estimate: f-hat(x) = (m/(m-1)) ((1/k) sum_j M[j][h_j(x)] - n/m).
// Variance [derived in A.6], f the plug-in estimates clipped to [0, n], r = m/(m-1):
// - all d items of a sparse family (16 d <= k m, k >= 2): the mean squared error at the public
//   family in use (kind exact; bound when the pairs of items sharing buckets pass the budget of
//   collision_moments.h), Var + b^2 with a_y(x) the share of rows in which y meets x,
//     CMS   Var = r^2 (n (c^2 - 1)/4 + sum_{y != x} f_y a_y(x) (1 - a_y(x)))
//     HCMS  Var = r^2 (n c^2 - f(x) - sum_{y != x} f_y a_y(x)^2)
//     b = r (sum_{y != x} f_y a_y(x) - (n - f(x))/m), estimated from leave-one-row-out plug-ins;
// - otherwise (a candidate list, one row, a dense family) the average over hash families (kind
//   average):
//     CMS   (m/(m-1))^2 n (c^2 - 1)/4 + (n - f(x))/(m - 1) + collisions
//     HCMS  (m/(m-1))^2 [n c^2 - f(x) - (n - f(x))/m^2]    + collisions
//   where collisions = sum_{x' != x} f(x')(f(x') - 1) / (k (m - 1)) runs over the distinct items
//   being estimated, each f(x')(f(x') - 1) taken as at least 0.
#include <algorithm>
#include <cmath>

#include "collision_moments.h"
#include "estimation.h"
#include "factories.h"
#include "integer_fwht.h"
#include "kernel_access.h"
#include "ldp/base/bits.h"
#include "ldp/wire/hash.h"
#include "popcount_queue.h"
#include "state_io.h"
#include "support_model.h"

namespace ldp::server::detail {
namespace {

using wire::field;
using wire::mechanism;

class sketch_aggregator : public frequency_aggregator {
 public:
  sketch_aggregator(const wire::params& p, double c)
      : frequency_aggregator(p),
        k_(static_cast<uint32_t>(p.get(field::sketch_rows))),
        m_(static_cast<uint32_t>(p.get(field::sketch_columns))),
        c_(c),
        rows_(k_) {}

 protected:
  // The finalized sketch M, k x m row-major.
  virtual std::vector<double> finalize() const = 0;
  // The variance without the collision term, for plug-in count f (clipped) and n reports, averaged
  // over hash families (A.6 "Averaged over hash families").
  virtual double noise_variance(double f, double n) const = 0;
  // The variance conditional on the public family (A.6 "Conditional on the public family") for
  // plug-in count f (clipped), n reports and the collision moments s1 = sum_{y != x} f_y a_y(x),
  // s2 = sum_{y != x} f_y a_y(x)^2.
  virtual double conditional_variance(double f, double n, double s1, double s2) const = 0;
  // Cells: append, merge, read with the invariants of the layout.
  virtual void write_cells(std::vector<unsigned char>& out) const = 0;
  virtual void merge_cells(const sketch_aggregator& other) = 0;
  virtual status read_cells(span<const unsigned char> bytes) = 0;

  status count_row(uint32_t row) noexcept {
    if (row >= k_) return status::out_of_range;  // the decoder already checks
    ++rows_[row];
    return status::ok;
  }

  status merge_counts(const aggregator& other) final {
    const auto& o = static_cast<const sketch_aggregator&>(other);
    merge_cells(o);
    for (std::size_t j = 0; j < rows_.size(); ++j) rows_[j] += o.rows_[j];
    return status::ok;
  }

  void write_body(std::vector<unsigned char>& out) const final {
    put_u64s(out, rows_);
    write_cells(out);
  }

  status read_body(span<const unsigned char> body) final {
    const std::size_t row_bytes = 8 * rows_.size();
    if (body.size() < row_bytes) return status::wrong_length;
    status s = read_u64s(body.first(row_bytes), rows_);
    if (s != status::ok) return s;
    uint64_t total = 0;
    for (uint64_t r : rows_) {
      if (!checked_add(total, r, &total)) return status::malformed_report;
    }
    if (total != reports_) return status::malformed_report;
    return read_cells(body.subspan(row_bytes));
  }

  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const final {
    const wire::sketch_hash hash(params_.hash_seed);
    const std::vector<double> sketch = finalize();

    const auto n = static_cast<double>(reports_);
    const double k = k_, m = m_;
    const double ratio = m / (m - 1);
    std::vector<double> counts(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      double sum = 0;
      for (uint32_t j = 0; j < k_; ++j) {
        sum += sketch[std::size_t{j} * m_ + hash(j, items[i], m_)];
      }
      counts[i] = ratio * (sum / k - n / m);
    }

    // f(x')(f(x') - 1) of the estimates clipped to [0, n], each at least 0.
    std::vector<double> terms(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      const double c = clip_count(counts[i], n);
      terms[i] = c * (c - 1) > 0 ? c * (c - 1) : 0.0;
    }
    const collision_sums sums = sum_collisions(items, terms);
    // The conditional form needs the whole domain (the items outside a candidate list are unknown),
    // two rows or more (its plug-ins leave one out), and a sparse family, 16 d <= k m: the plug-ins'
    // own collision biases add about 2 d / (k m) of the squared bias (A.6). Otherwise the collision
    // term stays the average over hash families, over the listed items only.
    if (sums.distinct == params_.get(field::domain) && k_ >= 2 && 16 * sums.distinct <= uint64_t{k_} * m_) {
      return conditional_estimates(hash, items, sketch, counts, z);
    }
    const double pairs = sums.total;
    std::vector<estimate> out;
    out.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      const double f = clip_count(counts[i], n);
      double others = pairs - terms[i];
      if (others < 0) others = 0;  // rounding
      const double variance = noise_variance(f, n) + others / (k * (m - 1));
      out.push_back(make_estimate(items[i], counts[i], variance, z, variance_kind::average));
    }
    return out;
  }

  // The mean squared error conditional on the public family when `items` covers the whole domain
  // (A.6 "Conditional on the public family"): counts[i] is the estimate of items[i], sketch the
  // finalized sketch; k >= 2 (one row leaves no other rows for the plug-ins of the bias).
  std::vector<estimate> conditional_estimates(const wire::sketch_hash& hash, span<const uint32_t> items,
                                              const std::vector<double>& sketch, const std::vector<double>& counts,
                                              double z) const {
    const auto d = static_cast<uint32_t>(params_.get(field::domain));
    const auto n = static_cast<double>(reports_);
    const double m = m_, ratio = m / (m - 1);
    // The rows' buckets, hashed once when they fit 64 MiB (three passes read them).
    std::vector<uint32_t> table;
    if (uint64_t{k_} * d <= (uint64_t{1} << 24)) {
      table.resize(std::size_t{k_} * d);
      for (uint32_t j = 0; j < k_; ++j) {
        for (uint32_t x = 0; x < d; ++x) table[std::size_t{j} * d + x] = hash(j, x, m_);
      }
    }
    const auto rows = [&](uint32_t j, std::vector<uint32_t>& buckets) {
      if (!table.empty()) {
        std::copy_n(table.begin() + static_cast<std::ptrdiff_t>(std::size_t{j} * d), d, buckets.begin());
        return;
      }
      for (uint32_t x = 0; x < d; ++x) buckets[x] = hash(j, x, m_);
    };
    // The family's bias of item x, (m/(m-1)) (sum_{y != x} f_y a_y(x) - (n - f_x)/m) with
    // sum_y f_y = n, for s1 = sum_{y != x} f_y a_y(x).
    const auto bias = [&](double s1, double fx) { return ratio * (s1 - (n - fx) / m); };
    // Plug-in of the bias: in row j, an item y that shares x's bucket carries in its own estimate
    // f-hat_y that bucket's count / k (a heavy item's, say) a second time, so y enters with its
    // estimate from the other rows, f-hat_y^(-j) = (m/(m-1)) ((sum_{j' != j} M[j'][h_j'(y)])/(k - 1)
    // - n/m), whose biases come from rows in which y and x do not meet (A.6). Summed over the
    // bucket l = h_j(x): (m/(m-1)) ((S_j[l] - s_x)/(k - 1) - (c_j[l] - 1)(M[j][l]/(k - 1) + n/m)),
    // with s_y = sum_j M[j][h_j(y)], S_j[l] its sum over the bucket and c_j[l] the bucket's size.
    std::vector<double> own(d), shared(d, 0.0);
    for (std::size_t i = 0; i < items.size(); ++i) own[items[i]] = k_ * (counts[i] / ratio + n / m);
    {
      std::vector<uint32_t> buckets(d);
      std::vector<double> total(m_), size(m_);
      const double others = k_ - 1.0;
      for (uint32_t j = 0; j < k_; ++j) {
        rows(j, buckets);
        std::fill(total.begin(), total.end(), 0.0);
        std::fill(size.begin(), size.end(), 0.0);
        for (uint32_t x = 0; x < d; ++x) {
          total[buckets[x]] += own[x];
          size[buckets[x]] += 1;
        }
        const double* row = sketch.data() + std::size_t{j} * m_;
        for (uint32_t x = 0; x < d; ++x) {
          const uint32_t l = buckets[x];
          shared[x] += ratio * ((total[l] - own[x]) / others - (size[l] - 1) * (row[l] / others + n / m));
        }
      }
    }
    std::vector<std::vector<double>> weights(3, std::vector<double>(d));
    for (std::size_t i = 0; i < items.size(); ++i) weights[0][items[i]] = counts[i];
    // Weights 1 and 2: the plug-ins clipped to [0, n] (the variance needs counts >= 0) and each
    // item's variance without collisions.
    for (uint32_t x = 0; x < d; ++x) {
      weights[1][x] = clip_count(weights[0][x], n);
      weights[2][x] = conditional_variance(weights[1][x], n, 0, 0);
    }
    const collision_moments a = moments_of_collisions(k_, m_, d, rows, weights, true);
    const variance_kind kind = a.exact ? variance_kind::exact : variance_kind::bound;
    std::vector<estimate> out;
    out.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      const uint32_t x = items[i];
      const double variance = conditional_variance(weights[1][x], n, a.first[1][x], a.second[1][x]);
      // The squared bias less the plug-in's own noise (m/(m-1))^2 sum_y a_y(x)^2 Var f-hat_y is
      // unbiased, so not clipped at 0 (that would add about 0.48 times the noise where the bias is
      // small); the total is kept at least half the variance.
      // The plug-ins from k - 1 rows: variance k/(k - 1) times theirs.
      const double b = bias(shared[x] / k_, weights[0][x]);
      const double mse = variance + b * b - ratio * ratio * a.second[2][x] * k_ / (k_ - 1.0);
      out.push_back(make_estimate(x, counts[i], conditional_mse(variance, mse), z, kind));
    }
    return out;
  }

  uint32_t k_;
  uint32_t m_;
  double c_;
  std::vector<uint64_t> rows_;  // n_j
};

// The ingestion blocks of all rows together; one row's block holds at least one report.
constexpr std::size_t cms_block_bytes = std::size_t{2} << 20;

class cms_aggregator final : public sketch_aggregator {
 public:
  cms_aggregator(const wire::params& p, std::size_t cells, double c)
      : sketch_aggregator(p, c), ones_(cells), queues_(k_, popcount_queue(m_, cms_block_bytes / k_)) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (r.bits.size() != (std::size_t{m_} + 7) / 8) return status::wrong_length;  // decoder checks
    const status s = count_row(r.index);
    if (s != status::ok) return s;
    // Padding bits past m are zero (checked by the decoder); the kernel ignores them anyway.
    queues_[r.index].push(r.bits.data(), row(r.index));
    return status::ok;
  }

  std::vector<double> finalize() const override {
    const std::vector<uint64_t> ones = cells();
    std::vector<double> sketch(ones.size());
    const double k = k_;
    for (uint32_t j = 0; j < k_; ++j) {
      const uint64_t nj = rows_[j];
      for (uint32_t l = 0; l < m_; ++l) {
        const std::size_t at = std::size_t{j} * m_ + l;
        // 2 ones - n_j = ones - (n_j - ones), exact in int64 (ones <= n_j <= 2^62).
        const int64_t signs = static_cast<int64_t>(ones[at]) - static_cast<int64_t>(nj - ones[at]);
        sketch[at] = k * ((c_ / 2) * static_cast<double>(signs) + static_cast<double>(nj) / 2);
      }
    }
    return sketch;
  }

  double noise_variance(double f, double n) const override {
    const double m = m_, ratio = m / (m - 1);
    return ratio * ratio * n * (c_ * c_ - 1) / 4 + (n - f) / (m - 1);
  }

  // Each report: (c^2 - 1)/4 from its flips, a(1 - a) from its row for a user whose item meets x in
  // a fraction a of the rows.
  double conditional_variance(double, double n, double s1, double s2) const override {
    const double m = m_, ratio = m / (m - 1);
    return ratio * ratio * (n * (c_ * c_ - 1) / 4 + s1 - s2);
  }

  void write_cells(std::vector<unsigned char>& out) const override { put_u64s(out, cells()); }

  void merge_cells(const sketch_aggregator& other) override {
    const auto& o = static_cast<const cms_aggregator&>(other);
    const std::vector<uint64_t> theirs = o.cells();  // may throw; nothing has changed yet
    for (std::size_t i = 0; i < ones_.size(); ++i) ones_[i] += theirs[i];
  }

  status read_cells(span<const unsigned char> bytes) override {  // a fresh aggregator: empty queues
    const status s = read_u64s(bytes, ones_);
    if (s != status::ok) return s;
    for (uint32_t j = 0; j < k_; ++j) {
      for (uint32_t l = 0; l < m_; ++l) {
        if (ones_[std::size_t{j} * m_ + l] > rows_[j]) return status::malformed_report;
      }
    }
    return status::ok;
  }

 private:
  uint64_t* row(uint32_t j) noexcept { return ones_.data() + std::size_t{j} * m_; }

  // ones_ plus every row's queued reports (allocates; may throw).
  std::vector<uint64_t> cells() const {
    std::vector<uint64_t> out(ones_);
    for (uint32_t j = 0; j < k_; ++j) queues_[j].add_queued(out.data() + std::size_t{j} * m_);
    return out;
  }

  std::vector<uint64_t> ones_;
  std::vector<popcount_queue> queues_;  // row j's reports not yet in ones_
};

class hcms_aggregator final : public sketch_aggregator {
 public:
  hcms_aggregator(const wire::params& p, std::size_t cells, double c) : sketch_aggregator(p, c), sum_(cells) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (r.column >= m_ || r.bit > 1) return status::out_of_range;  // the decoder already checks
    const status s = count_row(r.index);
    if (s != status::ok) return s;
    sum_[std::size_t{r.index} * m_ + r.column] += r.bit != 0 ? 1 : -1;
    return status::ok;
  }

  std::vector<double> finalize() const override {
    std::vector<double> sketch(sum_.size());
    std::vector<int64_t> row;
    std::vector<int32_t> row32;
    const double scale = static_cast<double>(k_) * c_;
    for (uint32_t j = 0; j < k_; ++j) {
      const int64_t* first = sum_.data() + std::size_t{j} * m_;
      double* out = sketch.data() + std::size_t{j} * m_;
      // |values| <= n_j at every stage (the row's |sum| adds up to at most n_j): exact in the int32
      // kernel when n_j < 2^31, else in int64.
      if (fwht_fits_i32(m_, rows_[j])) {
        row32.resize(m_);
        for (uint32_t l = 0; l < m_; ++l) row32[l] = static_cast<int32_t>(first[l]);
        fwht_i32(row32);
        for (uint32_t l = 0; l < m_; ++l) out[l] = scale * static_cast<double>(row32[l]);
      } else {
        row.assign(first, first + m_);
        fwht(row);
        for (uint32_t l = 0; l < m_; ++l) out[l] = scale * static_cast<double>(row[l]);
      }
    }
    return sketch;
  }

  double noise_variance(double f, double n) const override {
    const double m = m_, ratio = m / (m - 1);
    return ratio * ratio * (n * c_ * c_ - f - (n - f) / (m * m));
  }

  // Each report's term is +-c with mean a (the fraction of rows in which its item meets x): c^2 - a^2.
  double conditional_variance(double f, double n, double, double s2) const override {
    const double m = m_, ratio = m / (m - 1);
    return ratio * ratio * (n * c_ * c_ - f - s2);
  }

  void write_cells(std::vector<unsigned char>& out) const override {
    out.reserve(out.size() + 8 * sum_.size());
    for (int64_t v : sum_) put_u64(out, static_cast<uint64_t>(v));
  }

  void merge_cells(const sketch_aggregator& other) override {
    const auto& o = static_cast<const hcms_aggregator&>(other);
    for (std::size_t i = 0; i < sum_.size(); ++i) sum_[i] += o.sum_[i];
  }

  status read_cells(span<const unsigned char> bytes) override {
    if (bytes.size() % 8 != 0 || bytes.size() / 8 != sum_.size()) return status::wrong_length;
    for (std::size_t i = 0; i < sum_.size(); ++i) sum_[i] = static_cast<int64_t>(load_le64(bytes.data() + 8 * i));
    for (uint32_t j = 0; j < k_; ++j) {
      // Sum of |sum[j][l]| <= n_j, and sum over l of sum[j][l] has the parity of n_j.
      uint64_t magnitude = 0, parity = 0;
      for (uint32_t l = 0; l < m_; ++l) {
        const int64_t v = sum_[std::size_t{j} * m_ + l];
        const uint64_t a = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
        if (!checked_add(magnitude, a, &magnitude) || magnitude > rows_[j]) return status::malformed_report;
        parity ^= a & 1u;
      }
      if (parity != (rows_[j] & 1u)) return status::malformed_report;
    }
    return status::ok;
  }

 private:
  std::vector<int64_t> sum_;
};

}  // namespace

status make_sketch_aggregator(const wire::params& p, aggregator_ptr* out) {
  const double c = sketch_scale(p);
  if (!std::isfinite(c)) return status::invalid_parameters;  // q-hat = 1/2: no signal
  std::size_t cells = 0;
  if (!cell_count(p.get(field::sketch_rows) * p.get(field::sketch_columns), &cells)) return status::overflow;
  if (p.mech == mechanism::cms) {
    *out = std::make_unique<cms_aggregator>(p, cells, c);
  } else {
    *out = std::make_unique<hcms_aggregator>(p, cells, c);
  }
  return status::ok;
}

}  // namespace ldp::server::detail
