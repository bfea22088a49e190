// Hadamard response (HR) aggregation and estimation, docs/mechanisms.md A.5: the 1-bit HR (one block)
// and the block HR (B >= 2 blocks of K - 1 items). State: the histogram h[B K] of reported y = j K + z.
// Item v is row r = v mod (K - 1) + 1 of block j = v / (K - 1). One FWHT of block j's K counts gives
// (H h_j)[r] = sum over block j's reports of H_K[r, z] for every row at once, and (H h_j)[0] = N_j, the
// reports in block j. Per report Z = H_K[r, z] on v's block (0 elsewhere) has mean `scale` for a user
// holding v and 0 for any other user (orthogonal rows; uniform z on other blocks), so
// c-hat_v = (H h_j)[r] / scale, and
//   Var[c-hat_v] = (c_J in_block + (n - c_J) out_block) / scale^2 - c_v
// with c_J the users whose item is in block j (wire::hr_model). E[N_j] = c_J in_block + (n - c_J)
// out_block exactly, so the server plugs in N_j clamped to [n out_block, n in_block] (c_J in [0, n]),
// and c_v clipped to [0, n]. One block: N_0 = n, in_block = 1, scale = 2 p-hat - 1, which is the A.0
// template with (p-hat, 1/2), n / (2 p-hat - 1)^2 - c_v. The FWHT runs on the kernel table's int32
// transform whenever n < 2^31 (exact), else on the int64 scalar one.
#include <algorithm>

#include "estimation.h"
#include "factories.h"
#include "histogram_aggregator.h"
#include "integer_fwht.h"
#include "kernel_access.h"
#include "ldp/wire/oracle_params.h"
#include "support_model.h"

namespace ldp::server::detail {
namespace {

using wire::field;

// Every block's FWHT of the histogram, block by block, in `Int`.
template <class Int, class Transform>
std::vector<int64_t> block_transforms(const std::vector<uint64_t>& hist, std::size_t k, Transform transform) {
  std::vector<Int> x(hist.size());
  for (std::size_t y = 0; y < hist.size(); ++y) x[y] = static_cast<Int>(hist[y]);
  for (std::size_t at = 0; at < x.size(); at += k) transform(span<Int>(x.data() + at, k));
  return std::vector<int64_t>(x.begin(), x.end());
}

class hr_aggregator final : public histogram_aggregator {
 public:
  hr_aggregator(const wire::params& p, std::size_t cells, support_model model)
      : histogram_aggregator(p, cells, model), moments_(wire::hr_model(p)) {}

 protected:
  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const override {
    // Every entry and every FWHT stage of a block is bounded by n in magnitude (the histogram sums
    // to n): the int32 kernel is exact for n < 2^31, int64 for any n <= 2^62.
    const auto k = static_cast<std::size_t>(params_.get(field::hadamard_dim));
    const std::vector<int64_t> transformed =
        fwht_fits_i32(k, reports_) ? block_transforms<int32_t>(hist_, k, [](span<int32_t> x) { fwht_i32(x); })
                                   : block_transforms<int64_t>(hist_, k, [](span<int64_t> x) { fwht(x); });
    const auto n = static_cast<double>(reports_);
    const double scale2 = moments_.scale * moments_.scale;
    std::vector<estimate> out;
    out.reserve(items.size());
    for (uint32_t v : items) {
      const std::size_t block = v / (k - 1) * k, row = v % (k - 1) + 1;
      const double c = static_cast<double>(transformed[block + row]) / moments_.scale;
      const double in_block =
          std::clamp(static_cast<double>(transformed[block]), n * moments_.out_block, n * moments_.in_block);
      out.push_back(make_estimate(v, c, in_block / scale2 - clip_count(c, n), z, variance_kind::exact));
    }
    return out;
  }

 private:
  wire::hr_moments moments_;
};

}  // namespace

status make_hr_aggregator(const wire::params& p, aggregator_ptr* out) {
  // validate() holds scale > 0 (the item's half more likely than any other), so no block is
  // degenerate; the block HR has no A.0 model, and the estimates use the moments only.
  std::size_t size = 0;
  if (!cell_count(wire::index_payload_bound(p), &size)) return status::overflow;
  *out = std::make_unique<hr_aggregator>(p, size, pure_model(p));
  return status::ok;
}

}  // namespace ldp::server::detail
