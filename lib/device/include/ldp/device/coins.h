// The sampling interface the device randomizers are written against (docs/mechanisms.md D.2 (a)). The
// shipped code draws from the DRBG through drbg_coins; the privacy audit passes an enumerator that
// explores every outcome with its exact weight, so it measures the pmf of this very code.
#ifndef LDP_DEVICE_COINS_H
#define LDP_DEVICE_COINS_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/bernoulli_mask.h"
#include "ldp/random/drbg.h"
#include "ldp/random/samplers.h"
#include "ldp/wire/oracle_params.h"

namespace ldp::device {

// Private coins from the device DRBG. Thresholds are out of 2^32 (wire::oracle_threshold_bits).
class drbg_coins {
 public:
  explicit drbg_coins(random::drbg& rng) noexcept : rng_(rng) {}

  bool bernoulli(uint64_t threshold) noexcept {
    return random::bernoulli(rng_, threshold, wire::oracle_threshold_bits);
  }
  uint32_t uniform_below(uint32_t n) noexcept { return random::uniform_below(rng_, n); }
  // A private-but-revealed value (an OLH seed): 64 uniform bits.
  uint64_t raw_u64() noexcept { return rng_.next_u64(); }
  bool raw_bit() noexcept { return (rng_.next_u32() & 1) != 0; }
  // nbits independent Bernoulli(threshold / 2^32) bits, packed as in random::fill_bernoulli_mask.
  status mask(span<uint64_t> words, std::size_t nbits, uint64_t threshold) noexcept {
    return random::fill_bernoulli_mask(rng_, words, nbits, threshold, wire::oracle_threshold_bits);
  }

 private:
  random::drbg& rng_;
};

}  // namespace ldp::device

#endif
