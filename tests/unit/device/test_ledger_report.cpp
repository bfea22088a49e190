// Reports under the ledger, dummy reports included (docs/ledger.md "Dummy reports"): for every
// frequency oracle, a dummy report has the size of a real one and is charged the same epsilon; a
// refused charge leaves no report behind.
#include <doctest/doctest.h>

#include <vector>

#include "ldp/device/ledger_report.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/report.h"
#include "ledger_flash.h"

namespace {

using ldp::status;
using ldp::device::ledger;
using ldp::wire::mechanism;

constexpr uint32_t use_case = 5;

uint64_t spent(const ledger& l) { return l.entry(0).spent; }

}  // namespace

TEST_CASE("a dummy report has a real report's size and is charged like one, for every frequency oracle") {
  const unsigned char seed[ldp::wire::seed_size] = {1, 2, 3};
  for (const mechanism m : {mechanism::grr, mechanism::sue, mechanism::oue, mechanism::blh, mechanism::olh,
                            mechanism::hr, mechanism::cms, mechanism::hcms, mechanism::flh}) {
    INFO("mechanism ", ldp::wire::mechanism_name(m));
    const uint32_t rows = m == mechanism::flh ? 64 : m == mechanism::cms || m == mechanism::hcms ? 4 : 0;
    const uint32_t columns = m == mechanism::cms || m == mechanism::hcms ? 32 : 0;
    // 20 real items and the dummy item 20.
    const ldp::wire::derived_params block = ldp::wire::make_frequency_oracle(m, 1.0, 21, rows, columns, seed);
    REQUIRE(block.code == status::ok);
    std::vector<std::byte> workspace(ldp::device::frequency_context::workspace_size(block.block));
    ldp::device::frequency_context oracle;
    REQUIRE(ldp::device::frequency_context::init(workspace, block.block, &oracle) == status::ok);
    const uint64_t charge = ldp::device::ledger_units_up(ldp::wire::implemented_epsilon(block.block));

    ldp::test::ledger_flash flash(256);
    std::vector<std::byte> memory(256);
    ledger l;
    REQUIRE(ledger::open(flash.storage(), memory, &l) == status::ok);
    REQUIRE(l.configure(use_case, 3.0, 86400) == status::ok);
    ldp::random::drbg rng(seed);
    std::vector<unsigned char> real(ldp::wire::max_report_size(block.block));
    std::vector<unsigned char> dummy(real.size());
    std::size_t real_size = 0;
    std::size_t dummy_size = 0;
    const auto report = ldp::device::framing::report;
    REQUIRE(ldp::device::ledger_report(l, use_case, 0, oracle, 7, rng, real, report, &real_size) == status::ok);
    CHECK(spent(l) == charge);
    REQUIRE(ldp::device::ledger_report(l, use_case, 0, oracle, ldp::device::no_item, rng, dummy, report, &dummy_size) ==
            status::ok);
    CHECK(spent(l) == 2 * charge);
    CHECK(dummy_size == real_size);
    // Both decode as reports of the block, which the server cannot tell apart by their framing.
    ldp::wire::report decoded;
    CHECK(ldp::wire::decode_report(block.block, oracle.fingerprint(), {dummy.data(), dummy_size}, &decoded) ==
          status::ok);
    CHECK(ldp::wire::decode_report(block.block, oracle.fingerprint(), {real.data(), real_size}, &decoded) ==
          status::ok);
    // The reserved item is not an input, and nothing is charged for it.
    CHECK(ldp::device::ledger_report(l, use_case, 0, oracle, 20, rng, real, report, &real_size) ==
          status::out_of_range);
    CHECK(real_size == 0);
    CHECK(spent(l) == 2 * charge);
  }
}

TEST_CASE("a refused charge wipes the report: nothing is left to send") {
  const ldp::wire::derived_params block = ldp::wire::make_grr(1.0, 4);
  REQUIRE(block.code == status::ok);
  ldp::device::frequency_context oracle;
  REQUIRE(ldp::device::frequency_context::init({}, block.block, &oracle) == status::ok);
  ldp::test::ledger_flash flash(128);
  std::vector<std::byte> memory(128);
  ledger l;
  REQUIRE(ledger::open(flash.storage(), memory, &l) == status::ok);
  REQUIRE(l.configure(use_case, 1.5, 86400) == status::ok);
  const unsigned char seed[ldp::random::drbg::seed_size] = {9};
  ldp::random::drbg rng(seed);
  std::vector<unsigned char> out(ldp::wire::max_report_size(block.block));
  std::size_t written = 0;
  const auto report = ldp::device::framing::report;
  REQUIRE(ldp::device::ledger_report(l, use_case, 10, oracle, 1, rng, out, report, &written) == status::ok);
  CHECK(written > 0);
  // The second report would pass 1.5: refused, the buffer zeroed, even for a dummy.
  CHECK(ldp::device::ledger_report(l, use_case, 10, oracle, ldp::device::no_item, rng, out, report, &written) ==
        status::budget_exhausted);
  CHECK(written == 0);
  for (const unsigned char b : out) CHECK(b == 0);
  CHECK(l.entry(0).spent == ldp::device::ledger_units_up(ldp::wire::implemented_epsilon(block.block)));
  CHECK(ldp::device::ledger_report(l, use_case, 10, oracle, 1, rng, out, report, nullptr) == status::invalid_argument);
}
