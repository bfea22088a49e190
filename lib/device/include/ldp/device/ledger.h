// The device privacy ledger (docs/ledger.md): per use case (a 32-bit id) and per time window of a
// length the use case fixes (a day, a week), the epsilon spent under basic composition, kept in two
// slots of caller storage (flash pages, a file) so that a power cut at any byte never lowers it.
// No heap, no exceptions, no virtual calls: storage is a struct of function pointers and a context
// (the Mbed TLS f_rng/p_rng shape), and the record image lives in the caller's workspace.
#ifndef LDP_DEVICE_LEDGER_H
#define LDP_DEVICE_LEDGER_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"

namespace ldp::device {

// ---- Units (docs/ledger.md "Units") ------------------------------------------------------------

// Epsilon on the ledger is an integer number of 2^-40. Charges round up and budgets round down, so
// the ledger never counts less than was spent nor allows more than was asked.
inline constexpr unsigned ledger_unit_bits = 40;
// The largest budget: every amount of a record written by this code stays below 2^52 units, so a
// double holds it exactly.
inline constexpr double ledger_budget_max = 4096;

// epsilon in units, rounded up (a charge) or down (a budget); 0 unless 0 < epsilon <= ledger_budget_max.
[[nodiscard]] uint64_t ledger_units_up(double epsilon) noexcept;
[[nodiscard]] uint64_t ledger_units_down(double epsilon) noexcept;
// units / 2^40 (exact below 2^53 units).
[[nodiscard]] double ledger_epsilon(uint64_t units) noexcept;

// ---- Storage (docs/ledger.md "Storage") --------------------------------------------------------

// Two slots of slot_size bytes each (a flash page, a file region). Each function returns
// status::ok, or a failure status of its own choice, which the ledger returns unchanged. `read`
// and `write` stay within [0, slot_size) of slot 0 or 1; `erase` sets a whole slot to erased_byte.
// `write` is only called on an erased slot (NOR flash can only clear bits).
struct ledger_storage {
  status (*read)(void* context, uint32_t slot, uint32_t offset, unsigned char* out, uint32_t size) = nullptr;
  status (*write)(void* context, uint32_t slot, uint32_t offset, const unsigned char* bytes, uint32_t size) = nullptr;
  status (*erase)(void* context, uint32_t slot) = nullptr;
  void* context = nullptr;
  uint32_t slot_size = 0;
  unsigned char erased_byte = 0xFF;
};

// Two slots held back to back in memory (the ledger file of docs/ledger.md "File layout"), read
// only: ledger_memory_storage gives read() over them; write and erase answer invalid_argument.
struct ledger_memory {
  const unsigned char* bytes = nullptr;  // 2 * slot_size bytes
  uint32_t slot_size = 0;
  unsigned char erased_byte = 0xFF;
};
[[nodiscard]] ledger_storage ledger_memory_storage(const ledger_memory* memory) noexcept;

// ---- Record layout (docs/ledger.md "Record layout") --------------------------------------------

inline constexpr std::size_t ledger_header_size = 32;
inline constexpr std::size_t ledger_entry_size = 32;
inline constexpr unsigned char ledger_magic[4] = {'L', 'D', 'P', 'L'};
inline constexpr unsigned char ledger_version = 1;
inline constexpr std::size_t ledger_max_use_cases = 65535;  // the record's 16-bit count

[[nodiscard]] constexpr std::size_t ledger_record_size(std::size_t use_cases) noexcept {
  return ledger_header_size + ledger_entry_size * use_cases;
}
// Use cases whose record fits `bytes` (a slot, a workspace).
[[nodiscard]] constexpr std::size_t ledger_capacity(std::size_t bytes) noexcept {
  const std::size_t n = bytes < ledger_header_size ? 0 : (bytes - ledger_header_size) / ledger_entry_size;
  return n < ledger_max_use_cases ? n : ledger_max_use_cases;
}

// One use case's line of the record.
struct ledger_entry {
  uint32_t use_case = 0;
  uint32_t window_seconds = 0;  // the window length, fixed for the use case's life
  uint64_t window = 0;          // the window `spent` belongs to: floor(time / window_seconds)
  uint64_t spent = 0;           // units spent in that window
  uint64_t budget = 0;          // units allowed per window
};

[[nodiscard]] ledger_entry decode_ledger_entry(const unsigned char bytes[ledger_entry_size]) noexcept;

enum class ledger_slot_state : uint8_t { erased, valid, invalid };

// What a slot holds. For a valid record: its counter, latest time and number of use cases. For an
// invalid one, `reason`: malformed_report (magic, order of use cases, a zero window length, an
// erased header over a slot that is not erased), unsupported_version, reserved_bits_set,
// wrong_length (more use cases than the slot holds), checksum_mismatch.
struct ledger_slot_info {
  ledger_slot_state state = ledger_slot_state::invalid;
  status reason = status::ok;
  uint64_t counter = 0;
  uint64_t latest = 0;
  uint32_t use_cases = 0;
};

// Reads and checks one slot (its whole record, and the whole slot when the header is erased). The
// result is the storage's failure status, if any; the slot's verdict is in *out.
[[nodiscard]] status examine_ledger_slot(const ledger_storage& storage, uint32_t slot, ledger_slot_info* out) noexcept;

// The slot a load takes: the valid one with the larger counter (slot 0 on a tie), or -1 when
// neither is valid (docs/ledger.md "Loading").
[[nodiscard]] int current_ledger_slot(const ledger_slot_info (&slots)[2]) noexcept;

// ---- The ledger ---------------------------------------------------------------------------------

class ledger {
 public:
  ledger() noexcept = default;
  ledger(const ledger&) = delete;  // two copies would write diverging records to one storage
  ledger& operator=(const ledger&) = delete;

  // Loads the current record (docs/ledger.md "Loading"; reads only) into `workspace`, which must
  // outlive the ledger, as must storage.context (the struct itself is copied). Capacity: the use cases whose record fits both the slot and the
  // workspace (ledger_capacity). Statuses: invalid_argument (a null function, slot_size below
  // ledger_record_size(1)); workspace_too_small (no room for one use case);
  // the storage's failure; checksum_mismatch when neither slot is valid and neither is erased;
  // limit_exceeded when the current record has more use cases than the capacity. After any failure
  // the ledger is closed: every later call returns the same status.
  [[nodiscard]] static status open(const ledger_storage& storage, span<std::byte> workspace, ledger* out) noexcept;

  // Adds `use_case` with a budget per window of `budget` epsilon (rounded down to units) and a
  // window of `window_seconds`, or sets the budget of a known one (durably, before returning; no
  // write when nothing changes, so firmware may call it at every boot). invalid_argument for a
  // budget outside (0, ledger_budget_max], a zero window, or another window length than the one
  // stored (a use case's windows never change: use a new id); limit_exceeded when the ledger is
  // full.
  [[nodiscard]] status configure(uint32_t use_case, double budget, uint32_t window_seconds) noexcept;

  // Charges `epsilon` (in (0, 40], the epsilon of one report; rounded up to units) to the window of
  // `now` (seconds on any clock that only the device moves; a time before the latest one seen
  // counts as the latest). budget_exhausted (and nothing changes) when the window's spend would
  // pass the budget; otherwise the new spend is written to both slots and read back before ok is
  // returned, so the caller releases the report only after. invalid_argument for an unknown use
  // case or epsilon; a storage status when writing failed (the spend then stays counted in memory:
  // the ledger never under-counts); overflow when the record counter is exhausted.
  [[nodiscard]] status charge(uint32_t use_case, double epsilon, uint64_t now) noexcept;

  // The units the use case may still spend in the window of `now`.
  [[nodiscard]] status remaining(uint32_t use_case, uint64_t now, uint64_t* units) const noexcept;

  // ok, or the status that closed the ledger.
  [[nodiscard]] status state() const noexcept { return state_; }
  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t use_cases() const noexcept { return count_; }
  ledger_entry entry(std::size_t i) const noexcept;  // i < use_cases(), by ascending use case id
  uint64_t counter() const noexcept { return counter_; }
  uint64_t latest() const noexcept { return latest_; }

 private:
  // The index of use_case, or of where it would be inserted (*found false).
  std::size_t find(uint32_t use_case, bool* found) const noexcept;
  void store_entry(std::size_t i, const ledger_entry& e) noexcept;
  // The window and spend of entry i at `now` (docs/ledger.md "Windows").
  ledger_entry at_time(std::size_t i, uint64_t now, uint64_t* time) const noexcept;
  status persist() noexcept;
  status write_slot(uint32_t slot, std::size_t size) noexcept;

  ledger_storage storage_{};
  unsigned char* image_ = nullptr;  // the record: header, then count_ entries
  std::size_t capacity_ = 0;
  std::size_t count_ = 0;
  uint64_t counter_ = 0;
  uint64_t latest_ = 0;
  uint32_t current_ = 0;  // a slot holding the latest durable record (the first write goes to the other)
  status state_ = status::invalid_argument;
};

}  // namespace ldp::device

#endif
