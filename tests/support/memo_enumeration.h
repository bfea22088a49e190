// The permanent draws of a memoized device (ldp/device/mean.h memo_permanent's interface) as choice
// points of an enumerator (docs/mechanisms.md D.2 (a), E.2, E.3): each is drawn once, at its first
// use, and then repeated, as the device's secret repeats it; so enumerating several reports of one
// device gives their exact joint pmf.
#ifndef LDP_TESTS_SUPPORT_MEMO_ENUMERATION_H
#define LDP_TESTS_SUPPORT_MEMO_ENUMERATION_H

#include <cstdint>
#include <map>

#include "enumerator.h"

namespace ldp::test {

class enumerating_permanent {
 public:
  explicit enumerating_permanent(enumerating_coins& coins) : coins_(coins) {}

  uint64_t device_uniform(uint64_t n) {
    if (!has_device_) {
      device_ = coins_.uniform_below(static_cast<uint32_t>(n));
      has_device_ = true;
    }
    return device_;
  }
  bool value_bit(uint32_t input, uint64_t threshold, uint64_t denominator) {
    const auto it = bits_.find(input);
    if (it != bits_.end()) return it->second;
    return bits_[input] = coins_.bernoulli_fraction(threshold, denominator);
  }

 private:
  enumerating_coins& coins_;
  bool has_device_ = false;
  uint64_t device_ = 0;
  std::map<uint32_t, bool> bits_;
};

}  // namespace ldp::test

#endif
