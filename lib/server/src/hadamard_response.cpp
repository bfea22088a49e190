// Hadamard response (HR, high-privacy variant) aggregation and estimation, docs/mechanisms.md A.5.
// State: the histogram h[K] of reported y. Item v uses row r = v + 1 and is supported by
// C_v = {y : popcount(r & y) even}. One FWHT of h gives (H h)[r] = 2 S_r - n for every row at once,
// so c-hat_v = (H h)[v + 1] / (2 p-hat - 1). The server's q is 1/2 exactly (orthogonal rows), so
// the variance is the A.0 template with (p-hat, 1/2): n / (2 p-hat - 1)^2 - c_v. The FWHT runs on
// the kernel table's int32 transform whenever n < 2^31 (exact), else on the int64 scalar one.
#include "estimation.h"
#include "factories.h"
#include "histogram_aggregator.h"
#include "integer_fwht.h"
#include "kernel_access.h"
#include "ldp/base/bits.h"
#include "support_model.h"

namespace ldp::server::detail {
namespace {

using wire::field;

class hr_aggregator final : public histogram_aggregator {
 public:
  hr_aggregator(const wire::params& p, std::size_t cells, support_model model)
      : histogram_aggregator(p, cells, model) {}

 protected:
  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const override {
    // Every entry and every FWHT stage is bounded by n in magnitude (the histogram sums to n): the
    // int32 kernel is exact for n < 2^31, int64 for any n <= 2^62.
    std::vector<int64_t> transformed;
    std::vector<int32_t> transformed32;
    if (fwht_fits_i32(hist_.size(), reports_)) {
      transformed32.resize(hist_.size());
      for (std::size_t y = 0; y < hist_.size(); ++y) transformed32[y] = static_cast<int32_t>(hist_[y]);
      fwht_i32(transformed32);
    } else {
      transformed.resize(hist_.size());
      for (std::size_t y = 0; y < hist_.size(); ++y) transformed[y] = static_cast<int64_t>(hist_[y]);
      fwht(transformed);
    }
    const auto n = static_cast<double>(reports_);
    const double scale = 2 * model_.p - 1;
    std::vector<estimate> out;
    out.reserve(items.size());
    for (uint32_t v : items) {
      const std::size_t row = std::size_t{v} + 1;
      const int64_t value = transformed32.empty() ? transformed[row] : transformed32[row];
      const double c = static_cast<double>(value) / scale;
      out.push_back(make_estimate(v, c, model_.variance(c, n), z, variance_kind::exact));
    }
    return out;
  }
};

}  // namespace

status make_hr_aggregator(const wire::params& p, aggregator_ptr* out) {
  return make_pure_aggregator<hr_aggregator>(p, p.get(field::hadamard_dim), out);
}

}  // namespace ldp::server::detail
