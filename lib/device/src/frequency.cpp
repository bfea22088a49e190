#include "ldp/device/frequency.h"

namespace ldp::device {

status randomize_payload(const wire::params& p, uint32_t value, random::drbg& rng,
                         span<uint64_t> workspace, span<unsigned char> out,
                         std::size_t* written) noexcept {
  *written = 0;
  drbg_coins coins(rng);
  wire::report r;
  const status s = randomize_fields(p, value, coins, workspace, &r);
  if (s != status::ok) return s;
  return wire::encode_payload(p, r, out, written);
}

status randomize(const wire::params& p, uint64_t fingerprint, uint32_t value, random::drbg& rng,
                 span<uint64_t> workspace, span<unsigned char> out, std::size_t* written) noexcept {
  *written = 0;
  drbg_coins coins(rng);
  wire::report r;
  const status s = randomize_fields(p, value, coins, workspace, &r);
  if (s != status::ok) return s;
  return wire::encode_report(p, fingerprint, r, out, written);
}

}  // namespace ldp::device
