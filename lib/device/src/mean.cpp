#include "ldp/device/mean.h"

namespace ldp::device {

status mean_context::init(span<std::byte>, const wire::params& p, mean_context* out) noexcept {
  *out = mean_context{};
  const wire::payload_kind kind = wire::kind_of(p.mech);
  if (kind != wire::payload_kind::fixed_value && kind != wire::payload_kind::bit) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  out->block_.accept(p);
  return status::ok;
}

status mean_context::randomize(int64_t x, random::drbg& rng, span<unsigned char> out, framing f,
                               std::size_t* written) const noexcept {
  const auto fields = [&](wire::report* r) {
    *r = wire::report{};
    r->mech = block_.params.mech;
    if (!block_.ready) return status::invalid_argument;
    if (block_.params.mech == wire::mechanism::duchi) {
      r->bit = duchi_bit(block_.params, x, rng);
    } else {
      r->value = laplace_noisy(block_.params, x, rng);
    }
    return status::ok;
  };
  return emit(block_.params, block_.fingerprint, fields, f, out, written);
}

}  // namespace ldp::device
