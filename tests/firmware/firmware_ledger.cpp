// The device privacy ledger (docs/ledger.md) in the Cortex-M image, so that the symbol scan covers
// it: two 256-byte pages of RAM stand in for the flash a board would erase and program.
#include "firmware_ledger.h"

#include <cstddef>
#include <cstring>

#include "ldp/device/ledger.h"
#include "ldp/device/ledger_report.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/report.h"

namespace {

constexpr uint32_t page_size = 256;
unsigned char pages[2][page_size];  // a board maps these calls to its flash controller

ldp::status page_read(void*, uint32_t slot, uint32_t offset, unsigned char* out, uint32_t size) {
  std::memcpy(out, pages[slot] + offset, size);
  return ldp::status::ok;
}

ldp::status page_write(void*, uint32_t slot, uint32_t offset, const unsigned char* bytes, uint32_t size) {
  for (uint32_t i = 0; i < size; ++i) pages[slot][offset + i] &= bytes[i];  // programming clears bits
  return ldp::status::ok;
}

ldp::status page_erase(void*, uint32_t slot) {
  std::memset(pages[slot], 0xFF, page_size);
  return ldp::status::ok;
}

}  // namespace

int firmware_ledger(ldp::random::drbg& rng, uint64_t now) {
  ldp::device::ledger_storage storage;
  storage.read = page_read;
  storage.write = page_write;
  storage.erase = page_erase;
  storage.slot_size = page_size;
  static std::byte record[page_size];
  static ldp::device::ledger ledger;
  if (ldp::device::ledger::open(storage, record, &ledger) != ldp::status::ok) return 1;
  constexpr uint32_t battery_bucket = 0x0B47;  // a use case id
  if (ledger.configure(battery_bucket, 2.0, 86400) != ldp::status::ok) return 2;
  // GRR over 10 buckets and the dummy item 10.
  const ldp::wire::derived_params grr = ldp::wire::make_grr(1.0, 11);
  ldp::device::frequency_context oracle;
  if (ldp::device::frequency_context::init({}, grr.block, &oracle) != ldp::status::ok) return 3;
  unsigned char report[ldp::wire::report_header_size + ldp::wire::varint_max_size];
  std::size_t written = 0;
  constexpr auto framing = ldp::device::framing::report;
  if (ldp::device::ledger_report(ledger, battery_bucket, now, oracle, 4, rng, report, framing, &written) !=
          ldp::status::ok ||
      ldp::device::ledger_report(ledger, battery_bucket, now, oracle, ldp::device::no_item, rng, report, framing,
                                 &written) != ldp::status::ok) {
    return 4;
  }
  uint64_t left = 0;
  return ledger.remaining(battery_bucket, now, &left) == ldp::status::ok && left < (uint64_t{2} << 40) ? 0 : 5;
}
