// GRR (k-RR) aggregation and estimation, docs/mechanisms.md A.1 with the A.0 template.
// State: the histogram h[d] of reported values. C_v = h[v]; p-hat = T/2^w and
// q-hat = (1 - p-hat)/(d - 1) exactly as the device implements them.
#include "factories.h"
#include "histogram_aggregator.h"
#include "ldp/base/bits.h"
#include "support_model.h"

namespace ldp::server::detail {
namespace {

using wire::field;

class grr_aggregator final : public histogram_aggregator {
 public:
  grr_aggregator(const wire::params& p, std::size_t cells, support_model model)
      : histogram_aggregator(p, cells, model) {}

 protected:
  std::vector<estimate> estimate_items_impl(span<const uint32_t> items, double z) const override {
    return template_estimates(model_, hist_, items, reports_, z);
  }
};

}  // namespace

status make_grr_aggregator(const wire::params& p, aggregator_ptr* out) {
  return make_pure_aggregator<grr_aggregator>(p, p.get(field::domain), out);
}

}  // namespace ldp::server::detail
