// Reports of a tree-form distribution block (docs/mechanisms.md G.2 hierarchical, G.3 haar) for server
// tests, split by level as the distribution aggregator splits them: a device draws its group g
// uniformly first, then randomizes the item wire::distribution_item(p, g, bucket) with
// device::frequency_context on wire::distribution_inner_block(p), and the inner OLH report counts in
// level g's frequency aggregator (the one make_tree_model reads).
#ifndef LDP_TESTS_SUPPORT_TREE_FLEET_H
#define LDP_TESTS_SUPPORT_TREE_FLEET_H

#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "device_context.h"
#include "ldp/device/coins.h"
#include "ldp/device/frequency.h"
#include "ldp/random/drbg.h"
#include "ldp/server/frequency.h"
#include "ldp/wire.h"

namespace ldp::test {

using tree_levels = std::vector<std::unique_ptr<server::frequency_aggregator>>;

class tree_fleet {
 public:
  explicit tree_fleet(const wire::params& p)
      : params_(p), inner_(wire::distribution_inner_block(p)), oracle_(inner_), report_(wire::max_report_size(inner_)) {
    REQUIRE(oracle_.code == status::ok);
  }

  // One empty frequency aggregator per level.
  tree_levels levels() const {
    tree_levels out(wire::distribution_levels(params_));
    for (auto& a : out) REQUIRE(server::frequency_aggregator::create(inner_, &a) == status::ok);
    return out;
  }

  // One device whose value lies in `bucket`: its report counted in its group's level.
  void add(uint32_t bucket, random::drbg& rng, tree_levels& levels) {
    device::drbg_coins coins(rng);
    const uint32_t g = coins.uniform_below(wire::distribution_levels(params_));
    std::size_t size = 0;
    REQUIRE(oracle_->randomize(wire::distribution_item(params_, g, bucket), rng, report_, device::framing::report,
                               &size) == status::ok);
    REQUIRE(levels[g]->add_report({report_.data(), size}) == status::ok);
  }

 private:
  wire::params params_, inner_;
  owned_context<device::frequency_context> oracle_;
  std::vector<unsigned char> report_;
};

}  // namespace ldp::test

#endif
