// Device-side plumbing the user-level (Kent protocol, MECHANISMS.md C.1) tests share: the
// caller-owned workspace randomize_user_level and user_level_value take, sized from the block, and
// one whole wire report of a user's observations.
#ifndef LDP_TESTS_SUPPORT_USER_LEVEL_H
#define LDP_TESTS_SUPPORT_USER_LEVEL_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/user_level.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::test {

// The vote bits, rotation values and sign words a block needs, owned for one call's view().
struct user_level_buffers {
  std::vector<uint64_t> bits;
  std::vector<int32_t> rotation;
  std::vector<uint32_t> signs;
  explicit user_level_buffers(const wire::params& p)
      : bits(device::user_level_vote_words(p)),
        rotation(device::user_level_rotation_values(p)),
        signs(device::user_level_sign_words(p)) {}
  device::user_level_workspace view() { return {bits, rotation, signs}; }
};

// One report of `observations` under block p (its own fingerprint), sized to what was written.
[[nodiscard]] inline status user_level_report(const wire::params& p, span<const int64_t> observations,
                                              random::drbg& rng, std::vector<unsigned char>* out) {
  user_level_buffers ws(p);
  out->assign(wire::max_report_size(p), 0);
  std::size_t size = 0;
  const status s = device::randomize_user_level(p, wire::fingerprint(p), observations, rng, ws.view(), *out, &size);
  out->resize(s == status::ok ? size : 0);
  return s;
}

}  // namespace ldp::test

#endif
