// Memoized devices of `ldp simulate --days N --memoize` (docs/cli.md "Several days", docs/mechanisms.md
// E.1, E.2): device i keeps the 32-byte secret derive_seed(--seed, device_secret, i) (seeding.h) for
// every day, and each report is the device context's randomize_memoized of its input under that
// secret and --use-case: the permanent part of (device, value) is the same on every day, the
// per-report part draws from the day's DRBG.
#ifndef LDP_TOOLS_MEMO_DEVICES_H
#define LDP_TOOLS_MEMO_DEVICES_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "datasets.h"
#include "ldp/device/frequency.h"
#include "ldp/device/mean.h"
#include "ldp/device/memo.h"
#include "ldp/wire/report.h"
#include "randomizers.h"

namespace ldp::tools {

// Memoized sue, oue, olh, blh, dbitflip (frequency_context) and duchi (mean_context) devices.
class memoized_program final : public device_program {
 public:
  // `data` (which must outlive the program) may be null for a program that only gives permanent
  // responses.
  memoized_program(const wire::params& p, const dataset* data, uint64_t seed, uint32_t use_case);

  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override;

  // Frequency oracles: device `device`'s permanent response to `item` (what averaging all its
  // reports of the item converges to); the fields point into the program until its next call.
  wire::report permanent(uint64_t device, uint32_t item);

 private:
  device::memo_key key_of(uint64_t device);

  const dataset* data_;
  uint64_t seed_;
  uint32_t use_case_;
  bool items_;
  std::vector<std::byte> workspace_;
  device::frequency_context items_context_;
  device::mean_context values_context_;
  unsigned char secret_[device::device_secret_size] = {};
};

}  // namespace ldp::tools

#endif
