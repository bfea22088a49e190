// One simulated device = one call of the real device code (lib/device) on the input the dataset
// gives it, writing the report payload that becomes a batch record. Each thread makes its own
// program (its own workspace); the device code itself allocates nothing.
#ifndef LDP_TOOLS_RANDOMIZERS_H
#define LDP_TOOLS_RANDOMIZERS_H

#include <cstddef>
#include <cstdint>
#include <memory>

#include "datasets.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"
#include "mechanism_options.h"
#include "truth.h"

namespace ldp::tools {

class device_program {
 public:
  virtual ~device_program() = default;
  // The payload of device i (i < data.devices()) into out, at most wire::max_payload_size bytes.
  virtual status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) = 0;
};

// The program for the block's mechanism; block and data must outlive it. A block whose reports need
// a device secret (dbitflip, docs/mechanisms.md E.3) gives device i the secret of memo_devices.h
// under `seed` (use case 0).
std::unique_ptr<device_program> make_device_program(const parameter_block& block, const dataset& data, uint64_t seed);

// The exact answer for the inputs the devices randomize: item counts, or the mean of the values
// after the device's clamping and rounding to the grid (what the estimators are unbiased for): for
// sparse-projection the vectors the devices send (s largest, clipped to the ball), for winsorized-mean
// the users' means (the target; winsorization may clip some).
truth_table truth_of(const parameter_block& block, const dataset& data);

}  // namespace ldp::tools

#endif
