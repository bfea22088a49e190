// The device privacy ledger (docs/ledger.md): units, windows, the budget boundary, capacity,
// loading, and the write protocol under a power cut before every byte operation of every erase and
// write of a sequence of configurations and charges.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ldp/device/ledger.h"
#include "ldp/wire/checksum.h"
#include "ledger_flash.h"

namespace {

using ldp::status;
using ldp::device::ledger;
using ldp::device::ledger_entry;
using ldp::test::ledger_flash;

constexpr uint32_t day = 86400;
constexpr uint32_t week = 7 * day;
constexpr uint64_t units_per_epsilon = uint64_t{1} << 40;

// What a ledger holds: every entry, the counter and the latest time.
struct snapshot {
  std::vector<ledger_entry> entries;
  uint64_t counter = 0;
  uint64_t latest = 0;

  bool operator==(const snapshot& o) const {
    if (entries.size() != o.entries.size() || counter != o.counter || latest != o.latest) return false;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const ledger_entry& a = entries[i];
      const ledger_entry& b = o.entries[i];
      if (a.use_case != b.use_case || a.window_seconds != b.window_seconds || a.window != b.window ||
          a.spent != b.spent || a.budget != b.budget) {
        return false;
      }
    }
    return true;
  }
};

snapshot snapshot_of(const ledger& l) {
  snapshot s;
  for (std::size_t i = 0; i < l.use_cases(); ++i) s.entries.push_back(l.entry(i));
  s.counter = l.counter();
  s.latest = l.latest();
  return s;
}

// A flash and an open ledger on it, with a workspace the size of a slot.
struct fixture {
  explicit fixture(uint32_t slot_size = 256) : flash(slot_size), workspace(slot_size) {}
  status open() { return ledger::open(flash.storage(), workspace, &l); }
  ledger_flash flash;
  std::vector<std::byte> workspace;
  ledger l;
};

uint64_t remaining(const ledger& l, uint32_t use_case, uint64_t now) {
  uint64_t units = 0;
  REQUIRE(l.remaining(use_case, now, &units) == status::ok);
  return units;
}

// The protocol's test sequence: configurations, charges up to and past a budget, a window
// rollover, a clock going backwards, a new use case and a budget change mid-way.
struct operation {
  bool configure;
  uint32_t use_case;
  double epsilon;  // the budget of a configuration
  uint32_t window_seconds;
  uint64_t now;
};

const std::vector<operation>& sequence() {
  static const std::vector<operation> ops = {{true, 9, 1.0, day, 0},
                                             {true, 4, 0.5, week, 0},
                                             {false, 9, 0.25, 0, 100 * day},
                                             {false, 4, 0.125, 0, 100 * day},
                                             {false, 9, 0.75, 0, 100 * day + 5},
                                             {false, 9, 0.25, 0, 100 * day + 6},
                                             {false, 9, 0.25, 0, 101 * day},
                                             {false, 9, 0.5, 0, 99 * day},
                                             {true, 2, 2.0, day, 0},
                                             {false, 2, 1.5, 0, 50 * day},
                                             {true, 9, 0.75, day, 0},
                                             {false, 4, 0.375, 0, 101 * day + 1},
                                             {false, 9, 0.125, 0, 102 * day}};
  return ops;
}

status apply(ledger& l, const operation& op) {
  return op.configure ? l.configure(op.use_case, op.epsilon, op.window_seconds)
                      : l.charge(op.use_case, op.epsilon, op.now);
}

}  // namespace

TEST_CASE("units: charges round up, budgets round down, both exact on the 2^-40 grid") {
  using ldp::device::ledger_units_down;
  using ldp::device::ledger_units_up;
  CHECK(ledger_units_up(0.25) == units_per_epsilon / 4);
  CHECK(ledger_units_down(0.25) == units_per_epsilon / 4);
  // 0.1 is not on the grid: 0.1 * 2^40 = 109951162777.6000...
  CHECK(ledger_units_up(0.1) == 109951162778u);
  CHECK(ledger_units_down(0.1) == 109951162777u);
  CHECK(ledger_units_up(1e-300) == 1);
  CHECK(ledger_units_down(1e-300) == 0);
  CHECK(ledger_units_up(4096) == uint64_t{1} << 52);
  CHECK(ledger_units_up(4096.0000001) == 0);
  CHECK(ledger_units_up(0) == 0);
  CHECK(ledger_units_up(-1) == 0);
  CHECK(ledger_units_up(0.0 / 0.0) == 0);
  CHECK(ldp::device::ledger_epsilon(units_per_epsilon * 3 / 2) == 1.5);
  CHECK(static_cast<int>(status::budget_exhausted) == 17);  // stable: logs, the C API
  CHECK(std::string(ldp::status_name(status::budget_exhausted)) == "budget_exhausted");
}

TEST_CASE("a fresh ledger on erased flash, configured and charged, reloads to the same state") {
  fixture f;
  REQUIRE(f.open() == status::ok);
  CHECK(f.l.capacity() == (256 - 32) / 32);
  CHECK(f.l.use_cases() == 0);
  CHECK(f.l.counter() == 0);
  CHECK(f.flash.operations() == 0);  // loading never writes
  REQUIRE(f.l.configure(7, 1.0, day) == status::ok);
  REQUIRE(f.l.charge(7, 0.25, 10) == status::ok);
  const snapshot before = snapshot_of(f.l);
  CHECK(before.counter == 2);
  CHECK(before.entries[0].spent == units_per_epsilon / 4);
  ledger again;
  std::vector<std::byte> workspace(256);
  REQUIRE(ledger::open(f.flash.storage(), workspace, &again) == status::ok);
  CHECK(snapshot_of(again) == before);
  // Both slots hold the same record after a completed charge.
  const std::size_t size = ldp::device::ledger_record_size(1);
  CHECK(std::memcmp(f.flash.bytes().data(), f.flash.bytes().data() + 256, size) == 0);
}

TEST_CASE("the budget boundary is exact: a charge up to the budget passes, one unit more is refused") {
  fixture f;
  REQUIRE(f.open() == status::ok);
  REQUIRE(f.l.configure(1, 1.0, day) == status::ok);
  for (int i = 0; i < 4; ++i) REQUIRE(f.l.charge(1, 0.25, 5) == status::ok);
  CHECK(remaining(f.l, 1, 5) == 0);
  const uint64_t writes = f.flash.operations();
  CHECK(f.l.charge(1, 1e-300, 5) == status::budget_exhausted);  // the smallest charge, one unit
  CHECK(f.flash.operations() == writes);                        // a refusal writes nothing
  REQUIRE(f.l.configure(2, 1.0, day) == status::ok);
  REQUIRE(f.l.charge(2, 0.5, 5) == status::ok);
  CHECK(f.l.charge(2, 0.5 + 1.0 / 1099511627776.0, 5) == status::budget_exhausted);  // 2^-40 over
  CHECK(remaining(f.l, 2, 5) == units_per_epsilon / 2);
  CHECK(f.l.charge(2, 0.5, 5) == status::ok);  // exactly up to the budget
  CHECK(remaining(f.l, 2, 5) == 0);
  // Off the grid, rounding is against the device: three charges of 0.1 pass a budget of 0.3?
  // ceil(0.1 * 2^40) * 3 > floor(0.3 * 2^40), so the third is refused.
  REQUIRE(f.l.configure(3, 0.3, day) == status::ok);
  CHECK(f.l.charge(3, 0.1, 5) == status::ok);
  CHECK(f.l.charge(3, 0.1, 5) == status::ok);
  CHECK(f.l.charge(3, 0.1, 5) == status::budget_exhausted);
  // A single charge above the budget, and arguments out of range.
  CHECK(f.l.charge(3, 0.5, 5) == status::budget_exhausted);
  CHECK(f.l.charge(3, 0, 5) == status::invalid_argument);
  CHECK(f.l.charge(3, 41, 5) == status::invalid_argument);
  CHECK(f.l.charge(99, 0.1, 5) == status::invalid_argument);
  uint64_t units = 0;
  CHECK(f.l.remaining(99, 5, &units) == status::invalid_argument);
}

TEST_CASE("windows roll over at multiples of their length, each use case on its own") {
  fixture f;
  REQUIRE(f.open() == status::ok);
  REQUIRE(f.l.configure(1, 1.0, day) == status::ok);
  REQUIRE(f.l.configure(2, 1.0, week) == status::ok);
  REQUIRE(f.l.charge(1, 1.0, 10 * day + day - 1) == status::ok);
  REQUIRE(f.l.charge(2, 1.0, 10 * day + day - 1) == status::ok);
  CHECK(f.l.charge(1, 0.5, 10 * day + day - 1) == status::budget_exhausted);
  REQUIRE(f.l.charge(1, 1.0, 11 * day) == status::ok);  // the next day's window
  CHECK(f.l.entry(0).window == 11);
  CHECK(f.l.entry(0).spent == units_per_epsilon);
  // Day 11 is still week 1 (days 7 to 13): the weekly use case stays exhausted until day 14.
  CHECK(f.l.charge(2, 0.5, 11 * day) == status::budget_exhausted);
  CHECK(f.l.charge(2, 0.5, 14 * day - 1) == status::budget_exhausted);
  CHECK(remaining(f.l, 2, 14 * day) == units_per_epsilon);
  REQUIRE(f.l.charge(2, 0.5, 14 * day) == status::ok);
  CHECK(f.l.entry(1).window == 2);
}

TEST_CASE("a clock going backwards never resets a window, also across a reload") {
  fixture f;
  REQUIRE(f.open() == status::ok);
  REQUIRE(f.l.configure(1, 1.0, day) == status::ok);
  REQUIRE(f.l.configure(2, 1.0, day) == status::ok);
  REQUIRE(f.l.charge(1, 0.25, 10 * day + 3600) == status::ok);
  // The clock falls back to day 9 (a reset RTC, an NTP correction). Use case 2 has never been
  // charged; its charge counts in day 10, the latest time seen, not in day 9 ...
  REQUIRE(f.l.charge(2, 1.0, 9 * day) == status::ok);
  CHECK(f.l.entry(1).window == 10);
  CHECK(f.l.latest() == 10 * day + 3600);
  // ... so when the clock comes back to day 10, no new window opens.
  CHECK(f.l.charge(2, 0.25, 10 * day + 7200) == status::budget_exhausted);
  CHECK(f.l.charge(1, 1.0, 0) == status::budget_exhausted);
  ledger again;
  REQUIRE(ledger::open(f.flash.storage(), f.workspace, &again) == status::ok);
  CHECK(again.latest() == 10 * day + 3600);  // refusals write nothing, not even the time
  CHECK(again.charge(2, 0.25, 3) == status::budget_exhausted);
  CHECK(again.charge(2, 0.25, 11 * day) == status::ok);
}

TEST_CASE("configure: added in id order, budgets change durably, window lengths never, no write when unchanged") {
  fixture f;
  REQUIRE(f.open() == status::ok);
  REQUIRE(f.l.configure(30, 1.0, day) == status::ok);
  REQUIRE(f.l.configure(10, 1.0, day) == status::ok);
  REQUIRE(f.l.configure(20, 2.0, week) == status::ok);
  CHECK(f.l.entry(0).use_case == 10);
  CHECK(f.l.entry(1).use_case == 20);
  CHECK(f.l.entry(2).use_case == 30);
  const uint64_t writes = f.flash.operations();
  CHECK(f.l.configure(20, 2.0, week) == status::ok);
  CHECK(f.flash.operations() == writes);
  CHECK(f.l.configure(20, 2.0, day) == status::invalid_argument);
  CHECK(f.l.configure(21, 0, day) == status::invalid_argument);
  CHECK(f.l.configure(21, 5000, day) == status::invalid_argument);
  CHECK(f.l.configure(21, 1.0, 0) == status::invalid_argument);
  REQUIRE(f.l.charge(20, 1.5, 0) == status::ok);
  REQUIRE(f.l.configure(20, 1.0, week) == status::ok);  // lowered below the spend: exhausted now
  CHECK(remaining(f.l, 20, 0) == 0);
  ledger again;
  REQUIRE(ledger::open(f.flash.storage(), f.workspace, &again) == status::ok);
  CHECK(snapshot_of(again) == snapshot_of(f.l));
}

TEST_CASE("capacity: the use cases that fit both the slot and the workspace; a full ledger refuses a new one") {
  fixture f(ldp::device::ledger_record_size(3));
  REQUIRE(f.open() == status::ok);
  CHECK(f.l.capacity() == 3);
  for (uint32_t id = 1; id <= 3; ++id) REQUIRE(f.l.configure(id, 1.0, day) == status::ok);
  CHECK(f.l.configure(4, 1.0, day) == status::limit_exceeded);
  CHECK(f.l.configure(2, 0.5, day) == status::ok);  // a known use case is still configurable
  REQUIRE(f.l.charge(3, 0.5, 0) == status::ok);
  // A workspace for 2 use cases cannot load the 3 of the record: fail closed, not truncated.
  std::vector<std::byte> small(ldp::device::ledger_record_size(2));
  ledger narrow;
  CHECK(ledger::open(f.flash.storage(), small, &narrow) == status::limit_exceeded);
  CHECK(narrow.capacity() == 2);
  CHECK(narrow.charge(3, 0.1, 0) == status::limit_exceeded);
  // Too little memory or storage for one use case.
  std::vector<std::byte> tiny(ldp::device::ledger_record_size(1) - 1);
  CHECK(ledger::open(f.flash.storage(), tiny, &narrow) == status::workspace_too_small);
  ldp::device::ledger_storage short_slots = f.flash.storage();
  short_slots.slot_size = ldp::device::ledger_record_size(1) - 1;
  CHECK(ledger::open(short_slots, f.workspace, &narrow) == status::invalid_argument);
  ldp::device::ledger_storage no_erase = f.flash.storage();
  no_erase.erase = nullptr;
  CHECK(ledger::open(no_erase, f.workspace, &narrow) == status::invalid_argument);
}

TEST_CASE("loading: both slots invalid fails closed; an erased slot beside an invalid one is a fresh ledger") {
  fixture f;
  REQUIRE(f.open() == status::ok);
  REQUIRE(f.l.configure(1, 1.0, day) == status::ok);
  REQUIRE(f.l.charge(1, 0.5, 0) == status::ok);
  std::vector<unsigned char>& bytes = f.flash.bytes();
  bytes[40] ^= 0x01;
  bytes[256 + 40] ^= 0x01;
  ledger closed;
  CHECK(ledger::open(f.flash.storage(), f.workspace, &closed) == status::checksum_mismatch);
  CHECK(closed.state() == status::checksum_mismatch);
  CHECK(closed.charge(1, 0.1, 0) == status::checksum_mismatch);
  CHECK(closed.configure(1, 1.0, day) == status::checksum_mismatch);
  uint64_t units = 1;
  CHECK(closed.remaining(1, 0, &units) == status::checksum_mismatch);
  CHECK(units == 0);
  // Slot 1 erased: only a first record that never completed leaves this (docs/ledger.md "Loading").
  for (std::size_t i = 256; i < 512; ++i) bytes[i] = 0xFF;
  ledger fresh;
  REQUIRE(ledger::open(f.flash.storage(), f.workspace, &fresh) == status::ok);
  CHECK(fresh.use_cases() == 0);
  CHECK(fresh.counter() == 0);
  // An erased header over a slot that is not erased is not an erased slot.
  for (std::size_t i = 0; i < 32; ++i) bytes[i] = 0xFF;
  ldp::device::ledger_slot_info info;
  REQUIRE(ldp::device::examine_ledger_slot(f.flash.storage(), 0, &info) == status::ok);
  CHECK(info.state == ldp::device::ledger_slot_state::invalid);
  CHECK(info.reason == status::malformed_report);
  CHECK(ledger::open(f.flash.storage(), f.workspace, &fresh) == status::ok);
}

TEST_CASE("examine names why a slot is invalid") {
  fixture f;
  REQUIRE(f.open() == status::ok);
  REQUIRE(f.l.configure(1, 1.0, day) == status::ok);
  REQUIRE(f.l.configure(2, 1.0, day) == status::ok);
  const std::vector<unsigned char> good = f.flash.bytes();
  // Rewrites slot 0 after `edit`, with a correct CRC when `fix_crc`.
  auto reason_after = [&](auto edit, bool fix_crc) {
    f.flash.bytes() = good;
    unsigned char* record = f.flash.bytes().data();
    edit(record);
    if (fix_crc) {
      uint32_t crc = ldp::wire::crc32c({record, 28});
      crc = ldp::wire::crc32c({record + 32, 64}, crc);
      for (int i = 0; i < 4; ++i) record[28 + i] = static_cast<unsigned char>(crc >> (8 * i));
    }
    ldp::device::ledger_slot_info info;
    REQUIRE(ldp::device::examine_ledger_slot(f.flash.storage(), 0, &info) == status::ok);
    return info.state == ldp::device::ledger_slot_state::valid ? status::ok : info.reason;
  };
  CHECK(reason_after([](unsigned char*) {}, true) == status::ok);
  CHECK(reason_after([](unsigned char* r) { r[0] = 'X'; }, true) == status::malformed_report);
  CHECK(reason_after([](unsigned char* r) { r[4] = 2; }, true) == status::unsupported_version);
  CHECK(reason_after([](unsigned char* r) { r[5] = 1; }, true) == status::reserved_bits_set);
  CHECK(reason_after([](unsigned char* r) { r[27] = 1; }, true) == status::reserved_bits_set);
  CHECK(reason_after([](unsigned char* r) { r[6] = 8; }, true) == status::wrong_length);  // 8 of 7
  CHECK(reason_after([](unsigned char* r) { r[40] ^= 1; }, false) == status::checksum_mismatch);
  CHECK(reason_after([](unsigned char* r) { r[64] = 0; }, true) == status::malformed_report);  // ids 1, 0
  CHECK(reason_after([](unsigned char* r) { r[64] = 1; }, true) == status::malformed_report);  // ids 1, 1
  CHECK(reason_after([](unsigned char* r) { std::memset(r + 36, 0, 4); }, true) == status::malformed_report);
}

TEST_CASE("either slot may be corrupted at rest: the other still holds the last charge") {
  fixture f;
  REQUIRE(f.open() == status::ok);
  for (const operation& op : sequence()) static_cast<void>(apply(f.l, op));
  const snapshot last = snapshot_of(f.l);
  const std::vector<unsigned char> good = f.flash.bytes();
  const std::size_t size = ldp::device::ledger_record_size(last.entries.size());
  for (uint32_t slot = 0; slot < 2; ++slot) {
    for (std::size_t at = 0; at < size; ++at) {
      f.flash.bytes() = good;
      f.flash.bytes()[slot * 256 + at] ^= 0x10;
      ledger l;
      REQUIRE(ledger::open(f.flash.storage(), f.workspace, &l) == status::ok);
      INFO("slot ", slot, " byte ", at);
      CHECK(snapshot_of(l) == last);
    }
  }
}

TEST_CASE("a power cut before any byte operation leaves the state before or after the interrupted step") {
  // The reference run: the state after each operation, and the byte operations each one took.
  std::vector<snapshot> after;
  std::vector<uint64_t> end_of;
  std::vector<status> result;
  {
    fixture f;
    REQUIRE(f.open() == status::ok);
    after.push_back(snapshot_of(f.l));
    for (const operation& op : sequence()) {
      result.push_back(apply(f.l, op));
      after.push_back(snapshot_of(f.l));
      end_of.push_back(f.flash.operations());
    }
  }
  // The sequence exercises refusals and writes alike.
  CHECK(result[5] == status::budget_exhausted);
  CHECK(result[7] == status::ok);
  CHECK(end_of.back() > 4000);
  std::size_t cuts = 0;
  for (uint64_t cut = 0; cut < end_of.back(); ++cut) {
    for (const bool torn : {false, true}) {
      INFO("power cut before byte operation ", cut, torn ? " (torn byte)" : "");
      fixture f;
      REQUIRE(f.open() == status::ok);
      f.flash.cut_after(cut, torn);
      std::size_t j = 0;  // the operation the cut interrupts
      while (!f.flash.off()) {
        REQUIRE(j < sequence().size());
        const status s = apply(f.l, sequence()[j]);
        if (f.flash.off()) {
          CHECK(s != status::ok);  // an interrupted step never releases its report
        } else {
          REQUIRE(s == result[j]);
          ++j;
        }
      }
      REQUIRE(j < sequence().size());
      ++cuts;
      // Power back: the ledger loads, at the state before the interrupted step or after it, never
      // below what a completed step released. Since the states of the sequence only grow in each
      // window, the spend never decreases.
      f.flash.power_on();
      ledger l;
      REQUIRE(ledger::open(f.flash.storage(), f.workspace, &l) == status::ok);
      const snapshot loaded = snapshot_of(l);
      const bool old_state = loaded == after[j];
      const bool new_state = loaded == after[j + 1];
      CHECK((old_state || new_state));
      // The device carries on (redoing the step when it did not take) and ends where the
      // reference ended.
      for (std::size_t k = new_state ? j + 1 : j; k < sequence().size(); ++k) {
        REQUIRE(apply(l, sequence()[k]) == result[k]);
      }
      ledger final_load;
      REQUIRE(ledger::open(f.flash.storage(), f.workspace, &final_load) == status::ok);
      CHECK(snapshot_of(final_load) == after.back());
    }
  }
  CHECK(cuts == 2 * end_of.back());
}

TEST_CASE("storage failures are returned unchanged, and a failed charge stays counted") {
  fixture f;
  REQUIRE(f.open() == status::ok);
  REQUIRE(f.l.configure(1, 1.0, day) == status::ok);
  f.flash.cut_after(10, false);                         // the next write fails part-way
  CHECK(f.l.charge(1, 0.5, 0) == status::unsupported);  // the simulator's "power lost"
  f.flash.power_on();
  CHECK(remaining(f.l, 1, 0) == units_per_epsilon / 2);  // counted although not durable
  REQUIRE(f.l.charge(1, 0.25, 0) == status::ok);
  ledger again;
  REQUIRE(ledger::open(f.flash.storage(), f.workspace, &again) == status::ok);
  CHECK(remaining(again, 1, 0) == units_per_epsilon / 4);
  // A storage that acknowledges writes it does not keep: the read-back refuses the charge.
  ldp::device::ledger_storage lossy = f.flash.storage();
  lossy.write = [](void*, uint32_t, uint32_t, const unsigned char*, uint32_t) { return status::ok; };
  ledger l;
  REQUIRE(ledger::open(lossy, f.workspace, &l) == status::ok);
  CHECK(l.charge(1, 0.125, 0) == status::checksum_mismatch);
  // A failing read closes the ledger with the storage's status.
  ldp::device::ledger_storage unreadable = f.flash.storage();
  unreadable.read = [](void*, uint32_t, uint32_t, unsigned char*, uint32_t) { return status::overflow; };
  CHECK(ledger::open(unreadable, f.workspace, &l) == status::overflow);
  CHECK(l.charge(1, 0.125, 0) == status::overflow);
}

TEST_CASE("an exhausted record counter refuses every write") {
  fixture f;
  REQUIRE(f.open() == status::ok);
  REQUIRE(f.l.configure(1, 1.0, day) == status::ok);
  // Slot 0 with the counter at 2^64 - 1 (a valid record: CRC recomputed).
  std::vector<unsigned char>& bytes = f.flash.bytes();
  for (int i = 8; i < 16; ++i) bytes[i] = 0xFF;
  uint32_t crc = ldp::wire::crc32c({bytes.data(), 28});
  crc = ldp::wire::crc32c({bytes.data() + 32, 32}, crc);
  for (int i = 0; i < 4; ++i) bytes[28 + i] = static_cast<unsigned char>(crc >> (8 * i));
  ledger l;
  REQUIRE(ledger::open(f.flash.storage(), f.workspace, &l) == status::ok);
  CHECK(l.counter() == UINT64_MAX);
  CHECK(l.charge(1, 0.5, 0) == status::overflow);
}

TEST_CASE("loading takes the valid record with the larger counter, in either slot") {
  for (const uint32_t first_write : {1u, 0u}) {
    fixture f;
    REQUIRE(f.open() == status::ok);
    REQUIRE(f.l.configure(1, 1.0, day) == status::ok);
    if (first_write == 0) {
      // Only slot 1 valid (slot 0 damaged): the next write goes to slot 0 first. With both valid,
      // slot 1 is written first (the tie goes to slot 0 as current).
      f.flash.bytes()[40] ^= 1;
      REQUIRE(f.open() == status::ok);
    }
    const snapshot before = snapshot_of(f.l);
    // Power fails on the first byte of the second slot's erase, which it leaves untouched: the first
    // slot holds the new record, the second the previous one, both valid.
    f.flash.cut_after(f.flash.slot_size() + ldp::device::ledger_record_size(1), false);
    CHECK(f.l.charge(1, 0.25, 0) != status::ok);
    f.flash.power_on();
    ldp::device::ledger_slot_info slots[2];
    REQUIRE(ldp::device::examine_ledger_slot(f.flash.storage(), 0, &slots[0]) == status::ok);
    REQUIRE(ldp::device::examine_ledger_slot(f.flash.storage(), 1, &slots[1]) == status::ok);
    REQUIRE(slots[0].state == ldp::device::ledger_slot_state::valid);
    REQUIRE(slots[1].state == ldp::device::ledger_slot_state::valid);
    CHECK(slots[first_write].counter == before.counter + 1);
    CHECK(ldp::device::current_ledger_slot(slots) == static_cast<int>(first_write));
    ledger l;
    REQUIRE(ledger::open(f.flash.storage(), f.workspace, &l) == status::ok);
    CHECK(l.counter() == before.counter + 1);
    CHECK(remaining(l, 1, 0) == units_per_epsilon - ldp::device::ledger_units_up(0.25));
  }
}
