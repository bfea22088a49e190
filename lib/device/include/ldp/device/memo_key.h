// What a memoized randomizer needs besides its block (docs/mechanisms.md E.1 and "Memoized
// randomness"): the device secret and use case that key its permanent responses (memo.h), and the
// coins of a permanent response, which the audits replace with their own like any other coins.
#ifndef LDP_DEVICE_MEMO_KEY_H
#define LDP_DEVICE_MEMO_KEY_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/coins.h"
#include "ldp/device/memo.h"
#include "ldp/random/drbg.h"

namespace ldp::device {

// The device secret (device_secret_size bytes, kept by the firmware, never sent) and the use case
// (the ledger's 32-bit id) whose permanent responses a report uses. The block's fingerprint
// completes the memo_scope, so a new block draws new permanent responses.
struct memo_key {
  const unsigned char* secret = nullptr;
  uint32_t use_case = 0;
};

// The coins of a permanent response: every draw from the value's memoized stream (a random::drbg
// seeded by memo_seed(..., memo_purpose::value, item)), except the revealed 64-bit value
// (raw_u64: the OLH/BLH hash seed), which is the device-permanent one (memo_purpose::device).
class permanent_coins {
 public:
  permanent_coins(random::drbg& value_stream, uint64_t device_revealed) noexcept
      : coins_(value_stream), revealed_(device_revealed) {}

  bool bernoulli(uint64_t threshold) noexcept { return coins_.bernoulli(threshold); }
  uint32_t uniform_below(uint32_t n) noexcept { return coins_.uniform_below(n); }
  uint64_t raw_u64() const noexcept { return revealed_; }
  bool raw_bit() noexcept { return coins_.raw_bit(); }
  status mask(span<uint64_t> words, std::size_t nbits, uint64_t threshold) noexcept {
    return coins_.mask(words, nbits, threshold);
  }

 private:
  drbg_coins coins_;
  uint64_t revealed_;
};

}  // namespace ldp::device

#endif
