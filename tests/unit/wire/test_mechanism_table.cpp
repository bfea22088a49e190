// The mechanism table (ldp/wire/mechanism_table.h) against what the library does: the queries
// derived from it, validate()'s field check, and the server's aggregators. Walks the table, so a
// new row is tested without a line here; its example block (tests/support/wire_examples.cpp) must
// exist, or example_params fails to compile (-Wswitch) and these checks fail.
#include <doctest/doctest.h>

#include <memory>
#include <set>
#include <string>

#include "ldp/server/aggregator.h"
#include "ldp/wire.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;
using ldp::wire::mechanism_row;

TEST_CASE("ids and wire names are unique and round-trip through the queries") {
  std::set<int> ids;
  std::set<std::string> names;
  for (const mechanism_row& row : ldp::wire::mechanism_table) {
    CAPTURE(row.wire_name);
    CHECK(row.id != mechanism::none);
    CHECK(ids.insert(static_cast<int>(row.id)).second);
    CHECK(names.insert(row.wire_name).second);
    CHECK(std::string(row.cli_name) != "");
    CHECK(ldp::wire::is_known(row.id));
    CHECK(ldp::wire::find_mechanism(row.id) == &row);
    CHECK(ldp::wire::find_mechanism_named(row.wire_name) == &row);
    CHECK(std::string(ldp::wire::mechanism_name(row.id)) == row.wire_name);
    CHECK(ldp::wire::kind_of(row.id) == row.kind);
    CHECK(ldp::wire::in_family(row.id, row.family));
    CHECK(ldp::wire::required_fields(row.id) == row.required);
  }
  CHECK(ids.size() == ldp::wire::mechanism_count);
  CHECK(ldp::wire::find_mechanism_named("") == nullptr);
  CHECK(ldp::wire::find_mechanism_named("sparse-vector") == nullptr);  // the earlier name of id 21
  CHECK(std::string(ldp::wire::mechanism_name(mechanism::sparse_projection)) == "sparse-projection");
}

TEST_CASE("every id outside the table is unknown") {
  for (int v = 0; v < 256; ++v) {
    const auto m = static_cast<mechanism>(v);
    if (ldp::wire::find_mechanism(m) != nullptr) continue;
    CAPTURE(v);
    CHECK_FALSE(ldp::wire::is_known(m));
    CHECK(std::string(ldp::wire::mechanism_name(m)).empty());
    CHECK(ldp::wire::required_fields(m) == 0);
    ldp::wire::params p = ldp::test::example_params(mechanism::grr);
    p.mech = m;
    CHECK(ldp::wire::validate(p) == status::unknown_mechanism);
  }
  CHECK_FALSE(ldp::wire::is_known(mechanism::none));
  CHECK(ldp::test::all_mechanisms().size() == ldp::wire::mechanism_count);
}

TEST_CASE("validate() demands exactly each row's required fields") {
  const unsigned char seed[ldp::wire::seed_size] = {7};
  for (const mechanism_row& row : ldp::wire::mechanism_table) {
    CAPTURE(row.wire_name);
    const ldp::wire::params example = ldp::test::example_params(row.id);
    REQUIRE(ldp::wire::validate(example) == status::ok);
    CHECK(example.present == row.required);  // the example is the minimal block
    for (int t = 1; t <= ldp::wire::field_max; ++t) {
      const auto f = static_cast<field>(t);
      CAPTURE(t);
      ldp::wire::params p = example;
      if (p.has(f)) {
        p.present &= ~ldp::wire::field_bit(f);
      } else if (ldp::wire::field_width(f) == ldp::wire::seed_size) {
        p.set_seed(f, seed);
      } else {
        p.set(f, 1);
      }
      CHECK(ldp::wire::validate(p) == status::invalid_parameters);
    }
  }
}

TEST_CASE("the server has an aggregator exactly for the rows that say so") {
  for (const mechanism_row& row : ldp::wire::mechanism_table) {
    CAPTURE(row.wire_name);
    std::unique_ptr<ldp::server::aggregator> agg;
    const status s = ldp::server::aggregator::create(ldp::test::example_params(row.id), &agg);
    CHECK((s == status::ok) == row.server_side);
    CHECK((agg != nullptr) == row.server_side);
    if (agg != nullptr) CHECK(agg->parameters().mech == row.id);
  }
}
