// Memoized devices of `ldp simulate --days N --memoize` (docs/cli.md "Several days", docs/mechanisms.md
// E.1): device i keeps the 32-byte secret derive_seed(--seed, device_secret, i) (seeding.h) for every
// day, and each report is device::frequency_context::randomize_memoized of its item under that
// secret and --use-case: the permanent response of (device, item) is the same on every day, the
// instantaneous stage draws from the day's DRBG.
#ifndef LDP_TOOLS_MEMO_DEVICES_H
#define LDP_TOOLS_MEMO_DEVICES_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "datasets.h"
#include "ldp/device/frequency.h"
#include "ldp/device/memo.h"
#include "ldp/wire/report.h"
#include "randomizers.h"

namespace ldp::tools {

class memoized_program final : public device_program {
 public:
  // `data` (which must outlive the program) may be null for a program that only gives permanent
  // responses.
  memoized_program(const wire::params& p, const dataset* data, uint64_t seed, uint32_t use_case);

  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override;

  // Device `device`'s permanent response to `item` (what averaging all its reports of the item
  // converges to); the fields point into the program until its next call.
  wire::report permanent(uint64_t device, uint32_t item);

 private:
  device::memo_key key_of(uint64_t device);

  const dataset* data_;
  uint64_t seed_;
  uint32_t use_case_;
  std::vector<std::byte> workspace_;
  device::frequency_context context_;
  unsigned char secret_[device::device_secret_size] = {};
};

}  // namespace ldp::tools

#endif
