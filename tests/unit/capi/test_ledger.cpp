// The C API of the privacy ledger (ldp.h): the C99 program ledger_example.c against the C++
// ledger on the same bytes, and the C API's argument checks.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "ldp.h"
#include "ldp/device/ledger.h"
#include "ledger_example.h"

namespace {

using ldp::status;

// The C++ ledger's view of the C program's flash.
struct cxx_view {
  explicit cxx_view(std::vector<uint8_t>& flash) : memory{flash.data(), LEDGER_EXAMPLE_SLOT_SIZE, 0xFF} {
    REQUIRE(ldp::device::ledger::open(ldp::device::ledger_memory_storage(&memory), workspace, &l) == status::ok);
  }
  ldp::device::ledger_memory memory;
  std::vector<std::byte> workspace = std::vector<std::byte>(LEDGER_EXAMPLE_SLOT_SIZE);
  ldp::device::ledger l;
};

}  // namespace

TEST_CASE("C: a day of reports stops at the budget, dummies included, and the flash holds the spend") {
  std::vector<uint8_t> flash(2 * LEDGER_EXAMPLE_SLOT_SIZE, 0xFF);
  const uint64_t now = 20000 * uint64_t{LEDGER_EXAMPLE_DAY} + 5;
  const ledger_example_result r = ledger_example_run(flash.data(), now);
  REQUIRE(r.first_error == LDP_OK);
  const uint64_t charge = ldp::device::ledger_units_up(r.epsilon);
  const uint64_t budget = ldp::device::ledger_units_down(LEDGER_EXAMPLE_BUDGET);
  CHECK(r.released == budget / charge);  // as many as fit, exactly
  CHECK(r.released == 4);
  CHECK(r.refused == 10 - r.released);
  CHECK(r.dummies == 2);  // attempts 0 and 3 had nothing to report
  CHECK(r.dummy_size == r.real_size);
  CHECK(r.remaining == ldp::device::ledger_epsilon(budget - r.released * charge));
  cxx_view view(flash);
  REQUIRE(view.l.use_cases() == 1);
  const ldp::device::ledger_entry e = view.l.entry(0);
  CHECK(e.use_case == LEDGER_EXAMPLE_USE_CASE);
  CHECK(e.window == 20000);
  CHECK(e.spent == r.released * charge);
  CHECK(view.l.counter() == 1 + r.released);  // the configuration, then one record per charge
  // The next boot on the same day: configure writes nothing, every report is refused.
  const std::vector<uint8_t> before = flash;
  const ledger_example_result again = ledger_example_run(flash.data(), now + 60);
  REQUIRE(again.first_error == LDP_OK);
  CHECK(again.released == 0);
  CHECK(again.refused == 10);
  CHECK(flash == before);
  // The next day the budget is back.
  const ledger_example_result next_day = ledger_example_run(flash.data(), now + LEDGER_EXAMPLE_DAY);
  CHECK(next_day.released == r.released);
}

TEST_CASE("C: argument checks, and a ledger that failed to load stays closed") {
  ldp_ledger ledger;
  std::memset(&ledger, 0, sizeof ledger);
  double left = 1;
  CHECK(ldp_ledger_charge(&ledger, 1, 0.5, 0) == LDP_INVALID_ARGUMENT);  // never opened
  CHECK(ldp_ledger_configure(nullptr, 1, 0.5, 1) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_ledger_remaining(&ledger, 1, 0, &left) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_ledger_open(&ledger, nullptr, nullptr, 0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_ledger_open(nullptr, nullptr, nullptr, 0) == LDP_INVALID_ARGUMENT);
  // Two slots of garbage: fail closed with checksum_mismatch, and every call says so.
  std::vector<uint8_t> flash(2 * LEDGER_EXAMPLE_SLOT_SIZE, 0x5A);
  const ledger_example_result r = ledger_example_run(flash.data(), 0);
  CHECK(r.first_error == LDP_CHECKSUM_MISMATCH);
  CHECK(r.released == 0);
  CHECK(LDP_BUDGET_EXHAUSTED == static_cast<int>(status::budget_exhausted));
  CHECK(std::strcmp(ldp_status_name(LDP_BUDGET_EXHAUSTED), "budget_exhausted") == 0);
  CHECK(LDP_LEDGER_RECORD_SIZE(3) == ldp::device::ledger_record_size(3));
}
