// A server state fed with reports of one vector input, as the unit-vector family's statistical tests
// build it (docs/mechanisms.md D.3): every report drawn by the same device context from the test's
// seeded generator.
#ifndef LDP_TESTS_SUPPORT_VECTOR_FLEET_H
#define LDP_TESTS_SUPPORT_VECTOR_FLEET_H

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/device/context.h"
#include "ldp/random/drbg.h"
#include "ldp/server/aggregator.h"
#include "merge_order.h"

namespace ldp::test {

// An aggregator of `reports` reports of x, randomized by `device` (any context with a vector
// randomize) under block p.
template <class Context>
std::unique_ptr<server::aggregator> aggregate_reports(Context& device, const wire::params& p, span<const int64_t> x,
                                                      random::drbg& rng, int reports) {
  auto a = make_aggregator(p);
  std::vector<unsigned char> out(wire::max_report_size(p));
  for (int n = 0; n < reports; ++n) {
    std::size_t size = 0;
    REQUIRE(device.randomize(x, rng, out, device::framing::report, &size) == status::ok);
    REQUIRE(a->add_report(span<const unsigned char>(out.data(), size)) == status::ok);
  }
  return a;
}

}  // namespace ldp::test

#endif
