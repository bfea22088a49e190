// TEMPORARY (branch wt-server-core only, dropped at merge): make_tree_model is the "server-tree"
// helper's (tree_estimation.cpp); this stub only lets the library link until it lands.
#include "range_model.h"

namespace ldp::server::detail {

status make_tree_model(const wire::params&, const std::vector<std::unique_ptr<frequency_aggregator>>&, uint64_t,
                       const distribution_options&, std::unique_ptr<range_model>*) {
  return status::invalid_parameters;
}

}  // namespace ldp::server::detail
