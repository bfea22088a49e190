// The users of ldp train's learners (docs/mechanisms.md H.7): each user's device call, in user
// order from one DRBG, straight into a server aggregator, with the device time and report bytes the
// learning benchmarks report (docs/learning.md). One thread: the cost per report is the point.
#ifndef LDP_TOOLS_TRAIN_USERS_H
#define LDP_TOOLS_TRAIN_USERS_H

#include <cstddef>
#include <cstdint>
#include <functional>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"
#include "ldp/server/aggregator.h"

namespace ldp::tools {

struct device_cost {
  uint64_t reports = 0;
  uint64_t report_bytes = 0;  // wire report header + payload, summed
  double device_seconds = 0;  // time inside the device calls
};

// One user's device call: the payload of `user` into out (wire::max_payload_size bytes).
using user_device =
    std::function<status(uint64_t user, random::drbg& rng, span<unsigned char> out, std::size_t* written)>;

// Users [first, first + count) through `device` into `agg`, adding their cost. Throws cli_error
// when a device refuses its input or the aggregator a report (neither happens for valid data).
void run_users(uint64_t first, uint64_t count, const user_device& device, random::drbg& rng, server::aggregator& agg,
               device_cost& cost);

}  // namespace ldp::tools

#endif
