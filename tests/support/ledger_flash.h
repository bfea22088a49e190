// A simulated NOR flash of two ledger slots (docs/ledger.md "Storage") for the ledger tests: erase
// sets bytes to 0xFF, a write can only clear bits (old & new), and power can be cut before any
// byte operation of any erase or write. At the cut, the byte being worked on is left torn (some
// bits done, some not) or untouched, and every later call fails until power_on().
#ifndef LDP_TESTS_SUPPORT_LEDGER_FLASH_H
#define LDP_TESTS_SUPPORT_LEDGER_FLASH_H

#include <cstdint>
#include <limits>
#include <vector>

#include "ldp/device/ledger.h"

namespace ldp::test {

class ledger_flash {
 public:
  explicit ledger_flash(uint32_t slot_size) : slot_size_(slot_size), bytes_(2 * std::size_t{slot_size}, 0xFF) {}

  // Cut the power after `operations` more byte operations (erase or write of one byte).
  void cut_after(uint64_t operations, bool torn) {
    budget_ = operations;
    torn_ = torn;
  }
  void power_on() {
    off_ = false;
    budget_ = std::numeric_limits<uint64_t>::max();
  }
  bool off() const { return off_; }
  uint64_t operations() const { return operations_; }
  std::vector<unsigned char>& bytes() { return bytes_; }
  uint32_t slot_size() const { return slot_size_; }

  device::ledger_storage storage() {
    device::ledger_storage s;
    s.read = [](void* c, uint32_t slot, uint32_t offset, unsigned char* out, uint32_t size) {
      return static_cast<ledger_flash*>(c)->read(slot, offset, out, size);
    };
    s.write = [](void* c, uint32_t slot, uint32_t offset, const unsigned char* in, uint32_t size) {
      return static_cast<ledger_flash*>(c)->write(slot, offset, in, size);
    };
    s.erase = [](void* c, uint32_t slot) { return static_cast<ledger_flash*>(c)->erase(slot); };
    s.context = this;
    s.slot_size = slot_size_;
    return s;
  }

 private:
  static constexpr status power_lost = status::unsupported;

  bool in_slot(uint32_t slot, uint32_t offset, uint32_t size) const {
    return slot < 2 && offset <= slot_size_ && size <= slot_size_ - offset;
  }
  // One byte operation: false when the power is cut before it (the byte is then torn or kept).
  bool step(unsigned char& byte, unsigned char done, unsigned char torn_value) {
    if (budget_ == 0) {
      if (torn_) byte = torn_value;
      off_ = true;
      return false;
    }
    --budget_;
    ++operations_;
    byte = done;
    return true;
  }
  status read(uint32_t slot, uint32_t offset, unsigned char* out, uint32_t size) {
    if (off_ || !in_slot(slot, offset, size)) return off_ ? power_lost : status::invalid_argument;
    for (uint32_t i = 0; i < size; ++i) out[i] = bytes_[std::size_t{slot} * slot_size_ + offset + i];
    return status::ok;
  }
  status write(uint32_t slot, uint32_t offset, const unsigned char* in, uint32_t size) {
    if (off_ || !in_slot(slot, offset, size)) return off_ ? power_lost : status::invalid_argument;
    for (uint32_t i = 0; i < size; ++i) {
      unsigned char& b = bytes_[std::size_t{slot} * slot_size_ + offset + i];
      const unsigned char programmed = b & in[i];
      if (!step(b, programmed, static_cast<unsigned char>(b & (in[i] | 0x96)))) return power_lost;
    }
    return status::ok;
  }
  status erase(uint32_t slot) {
    if (off_ || slot > 1) return off_ ? power_lost : status::invalid_argument;
    for (uint32_t i = 0; i < slot_size_; ++i) {
      unsigned char& b = bytes_[std::size_t{slot} * slot_size_ + i];
      if (!step(b, 0xFF, static_cast<unsigned char>(b | 0x69))) return power_lost;
    }
    return status::ok;
  }

  uint32_t slot_size_;
  std::vector<unsigned char> bytes_;
  uint64_t budget_ = std::numeric_limits<uint64_t>::max();
  uint64_t operations_ = 0;
  bool torn_ = false;
  bool off_ = false;
};

}  // namespace ldp::test

#endif
