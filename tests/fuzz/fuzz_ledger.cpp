// libFuzzer target for the privacy ledger's loader (docs/ledger.md "What a load can yield").
// Input: a ledger file, slot 0 then slot 1 (equal halves; an odd last byte is dropped). Checks:
//   1. ledger::open never crashes, and either fails closed (every later call returns its status)
//      or yields a state equal, field by field, to a record in one of the slots whose header and
//      CRC32C this target checks itself with wire::crc32c, or, when no slot holds such a record
//      and one slot is entirely erased, the empty ledger. So loading never raises a remaining
//      budget above what some valid record present in the bytes says.
//   2. A charge of every use case at the latest time, then a reload: no use case's spend in its
//      window went down.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ldp/base/bits.h"
#include "ldp/device/ledger.h"
#include "ldp/wire/checksum.h"
#include "ledger_flash.h"

namespace {

using ldp::status;
using ldp::device::ledger;
using ldp::device::ledger_entry;

void require(bool condition) {
  if (!condition) __builtin_trap();
}

bool same(const ledger_entry& a, const ledger_entry& b) {
  return a.use_case == b.use_case && a.window_seconds == b.window_seconds && a.window == b.window &&
         a.spent == b.spent && a.budget == b.budget;
}

// Whether `slot` holds a record with a correct magic, version, length and CRC32C that states
// exactly what `l` holds.
bool holds(const unsigned char* slot, std::size_t slot_size, const ledger& l) {
  const std::size_t count = slot[6] | std::size_t{slot[7]} << 8;
  const std::size_t size = ldp::device::ledger_record_size(count);
  if (size > slot_size || std::memcmp(slot, "LDPL", 4) != 0 || slot[4] != 1) return false;
  uint32_t crc = ldp::wire::crc32c({slot, 28});
  crc = ldp::wire::crc32c({slot + 32, size - 32}, crc);
  if (crc != ldp::load_le32(slot + 28)) return false;
  if (count != l.use_cases() || ldp::load_le64(slot + 8) != l.counter() || ldp::load_le64(slot + 16) != l.latest()) {
    return false;
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (!same(ldp::device::decode_ledger_entry(slot + ldp::device::ledger_record_size(i)), l.entry(i))) return false;
  }
  return true;
}

bool erased(const unsigned char* slot, std::size_t slot_size) {
  for (std::size_t i = 0; i < slot_size; ++i) {
    if (slot[i] != 0xFF) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::size_t slot_size = size / 2;
  if (slot_size < ldp::device::ledger_record_size(1) || slot_size > 4096) return 0;
  ldp::test::ledger_flash flash(static_cast<uint32_t>(slot_size));
  std::memcpy(flash.bytes().data(), data, 2 * slot_size);
  const std::vector<unsigned char> original = flash.bytes();
  std::vector<std::byte> workspace(slot_size);
  ledger l;
  const status s = ledger::open(flash.storage(), workspace, &l);
  if (s != status::ok) {
    require(l.state() == s && l.charge(1, 0.5, 0) == s && l.configure(1, 1.0, 1) == s);
    require(flash.bytes() == original);
    return 0;
  }
  require(flash.bytes() == original);  // loading only reads
  const unsigned char* slot0 = original.data();
  const unsigned char* slot1 = original.data() + slot_size;
  if (!holds(slot0, slot_size, l) && !holds(slot1, slot_size, l)) {
    require(l.use_cases() == 0 && l.counter() == 0 && l.latest() == 0);
    require(erased(slot0, slot_size) || erased(slot1, slot_size));
  }

  std::vector<ledger_entry> before;
  for (std::size_t i = 0; i < l.use_cases(); ++i) before.push_back(l.entry(i));
  for (std::size_t i = 0; i < before.size() && i < 4; ++i) {
    static_cast<void>(l.charge(before[i].use_case, 1e-6, l.latest()));
  }
  ledger again;
  require(ledger::open(flash.storage(), workspace, &again) == status::ok);
  require(again.use_cases() == before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    const ledger_entry now = again.entry(i);
    require(now.use_case == before[i].use_case);
    require(now.window > before[i].window || (now.window == before[i].window && now.spent >= before[i].spent));
  }
  return 0;
}
