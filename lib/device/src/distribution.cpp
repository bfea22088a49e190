#include "ldp/device/distribution.h"

namespace ldp::device {

status distribution_context::init(span<std::byte> workspace, const wire::params& p,
                                  distribution_context* out) noexcept {
  *out = distribution_context{};
  if (family_of(p.mech) != family::distribution) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  if (p.mech == wire::mechanism::square_wave) {
    // No workspace; its coins compare 32-bit words, as the oracles' do (frequency_context::init).
    if (p.get(wire::field::threshold_bits) != wire::oracle_threshold_bits) return status::unsupported;
  } else {
    const status inner = frequency_context::init(workspace, wire::distribution_inner_block(p), &out->inner_);
    if (inner != status::ok) return inner;
  }
  out->block_.accept(p);
  return status::ok;
}

status distribution_context::randomize(int64_t x, random::drbg& rng, span<unsigned char> out, framing f,
                                       std::size_t* written) noexcept {
  drbg_coins coins(rng);
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(x, coins, r); }, f, out, written);
}

}  // namespace ldp::device
