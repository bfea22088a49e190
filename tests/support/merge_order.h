// The server contract's merge rule (docs/architecture.md "The server contract"): states built from
// any split of the same reports, merged in either order, serialize to the bytes of one aggregator
// that saw them all. Shared by the families' unit tests.
#ifndef LDP_TESTS_SUPPORT_MERGE_ORDER_H
#define LDP_TESTS_SUPPORT_MERGE_ORDER_H

#include <doctest/doctest.h>

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <vector>

#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"

namespace ldp::test {

inline std::unique_ptr<server::aggregator> make_aggregator(const wire::params& p) {
  std::unique_ptr<server::aggregator> a;
  REQUIRE(server::aggregator::create(p, &a) == status::ok);
  return a;
}

// Checks every split point in `splits` (reports [0, split) to one state, the rest to the other)
// against `expected`, the state of all reports.
inline void check_merge_order(const wire::params& p, const std::vector<std::vector<unsigned char>>& reports,
                              std::initializer_list<std::size_t> splits, const std::vector<unsigned char>& expected) {
  REQUIRE(!expected.empty());
  for (std::size_t split : splits) {
    CAPTURE(split);
    const auto x = make_aggregator(p), y = make_aggregator(p);
    for (std::size_t i = 0; i < reports.size(); ++i) REQUIRE((i < split ? x : y)->add_report(reports[i]) == status::ok);
    const auto xy = make_aggregator(p), yx = make_aggregator(p);
    REQUIRE(xy->merge(*x) == status::ok);
    REQUIRE(xy->merge(*y) == status::ok);
    REQUIRE(yx->merge(*y) == status::ok);
    REQUIRE(yx->merge(*x) == status::ok);
    CHECK(xy->serialize() == expected);
    CHECK(yx->serialize() == expected);
  }
}

}  // namespace ldp::test

#endif
