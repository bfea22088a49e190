#include "ldp/device/string.h"

#include "ldp/device/coins.h"

namespace ldp::device {

status string_context::init(span<std::byte> workspace, const wire::params& p, string_context* out) noexcept {
  *out = string_context{};
  if (family_of(p.mech) != family::string) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  const status inner = frequency_context::init(workspace, wire::string_inner_block(p), &out->inner_);
  if (inner != status::ok) return inner;
  out->block_.accept(p);
  return status::ok;
}

status string_context::randomize(span<const unsigned char> s, random::drbg& rng, span<unsigned char> out, framing f,
                                 std::size_t* written) noexcept {
  drbg_coins coins(rng);
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(s, coins, r); }, f, out, written);
}

}  // namespace ldp::device
