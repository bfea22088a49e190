// Device-side plumbing the user-level (Kent protocol, docs/mechanisms.md C.1) tests share: one whole wire
// report of a user's observations.
#ifndef LDP_TESTS_SUPPORT_USER_LEVEL_H
#define LDP_TESTS_SUPPORT_USER_LEVEL_H

#include <cstdint>
#include <vector>

#include "device_context.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/user_level.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/params.h"

namespace ldp::test {

// One report of `observations` under block p (its own fingerprint), sized to what was written.
[[nodiscard]] inline status user_level_report(const wire::params& p, span<const int64_t> observations,
                                              random::drbg& rng, std::vector<unsigned char>* out) {
  return report_of<device::user_level_context>(p, observations, rng, out);
}

}  // namespace ldp::test

#endif
