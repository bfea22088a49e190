#include "ldp/device/frequency.h"

namespace ldp::device {

status frequency_context::init(span<std::byte> workspace, const wire::params& p, frequency_context* out) noexcept {
  *out = frequency_context{};
  if (family_of(p.mech) != family::frequency) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  if (p.get(wire::field::threshold_bits) != wire::oracle_threshold_bits) return status::unsupported;
  const std::size_t size = workspace_size(p);
  const status checked = check_workspace(workspace, size);
  if (checked != status::ok) return checked;
  out->block_.accept(p);
  out->bits_ = carve<uint64_t>(workspace, 0, bit_words(p));
  return status::ok;
}

status frequency_context::randomize(uint32_t item, random::drbg& rng, span<unsigned char> out, framing f,
                                    std::size_t* written) noexcept {
  drbg_coins coins(rng);
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(item, coins, r); }, f, out, written);
}

}  // namespace ldp::device
