// The privacy ledger of the C API (ldp.h, docs/ledger.md): ldp::device::ledger in the caller's
// ldp_ledger, its storage calls forwarded to the C functions of a copy of ldp_ledger_storage.
#include <cstring>
#include <new>
#include <type_traits>

#include "context.h"
#include "ldp.h"
#include "ldp/device/ledger.h"

namespace {

using ldp::status;
using ldp::capi::code;
using ldp::capi::live;

struct ledger_context {
  static constexpr uint32_t tag = 0x6c64706cu;  // "lpdl"
  uint32_t magic = tag;
  ldp_ledger_storage storage{};
  ldp::device::ledger ledger;
};

static_assert(sizeof(ledger_context) <= sizeof(ldp_ledger) && alignof(ledger_context) <= alignof(ldp_ledger));
static_assert(std::is_standard_layout_v<ledger_context>, "the tag is read at offset 0");
static_assert(std::is_same_v<uint8_t, unsigned char>, "the storage functions pass bytes through");

const ldp_ledger_storage& c_storage(void* context) { return *static_cast<const ldp_ledger_storage*>(context); }

status read_c(void* context, uint32_t slot, uint32_t offset, unsigned char* out, uint32_t size) {
  const ldp_ledger_storage& s = c_storage(context);
  return static_cast<status>(s.read(s.context, slot, offset, out, size));
}

status write_c(void* context, uint32_t slot, uint32_t offset, const unsigned char* bytes, uint32_t size) {
  const ldp_ledger_storage& s = c_storage(context);
  return static_cast<status>(s.write(s.context, slot, offset, bytes, size));
}

status erase_c(void* context, uint32_t slot) {
  const ldp_ledger_storage& s = c_storage(context);
  return static_cast<status>(s.erase(s.context, slot));
}

}  // namespace

extern "C" {

ldp_status ldp_ledger_open(ldp_ledger* ledger, const ldp_ledger_storage* storage, void* workspace,
                           size_t workspace_size) noexcept {
  if (ledger == nullptr) return code(status::invalid_argument);
  std::memset(ledger->opaque.bytes, 0, sizeof ledger->opaque.bytes);
  if (storage == nullptr || storage->read == nullptr || storage->write == nullptr || storage->erase == nullptr ||
      (workspace == nullptr && workspace_size != 0)) {
    return code(status::invalid_argument);
  }
  auto* context = new (ledger->opaque.bytes) ledger_context;
  context->storage = *storage;
  ldp::device::ledger_storage forward;
  forward.read = read_c;
  forward.write = write_c;
  forward.erase = erase_c;
  forward.context = &context->storage;
  forward.slot_size = storage->slot_size;
  forward.erased_byte = storage->erased_byte;
  // A ledger that fails to load stays live and closed: later calls return its status.
  return code(
      ldp::device::ledger::open(forward, {static_cast<std::byte*>(workspace), workspace_size}, &context->ledger));
}

ldp_status ldp_ledger_configure(ldp_ledger* ledger, uint32_t use_case, double budget,
                                uint32_t window_seconds) noexcept {
  ledger_context* context = live<ledger_context>(ledger);
  if (context == nullptr) return code(status::invalid_argument);
  return code(context->ledger.configure(use_case, budget, window_seconds));
}

ldp_status ldp_ledger_charge(ldp_ledger* ledger, uint32_t use_case, double epsilon, uint64_t now) noexcept {
  ledger_context* context = live<ledger_context>(ledger);
  if (context == nullptr) return code(status::invalid_argument);
  return code(context->ledger.charge(use_case, epsilon, now));
}

ldp_status ldp_ledger_remaining(const ldp_ledger* ledger, uint32_t use_case, uint64_t now, double* epsilon) noexcept {
  const ledger_context* context = live<ledger_context>(ledger);
  if (context == nullptr || epsilon == nullptr) return code(status::invalid_argument);
  uint64_t units = 0;
  const status s = context->ledger.remaining(use_case, now, &units);
  *epsilon = ldp::device::ledger_epsilon(units);
  return code(s);
}

}  // extern "C"
