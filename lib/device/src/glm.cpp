#include "ldp/device/glm.h"

namespace ldp::device {

status glm_context::init(span<std::byte> workspace, const wire::params& p, glm_context* out) noexcept {
  *out = glm_context{};
  if (p.mech != wire::mechanism::glm_copies) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  if (wire::glm_copy_count(p.get(wire::field::degree)) > glm_max_copies) return status::limit_exceeded;
  const std::size_t size = workspace_size(p);
  const status checked = check_workspace(workspace, size);
  if (checked != status::ok) return checked;
  out->entries_ = carve<int64_t>(workspace, 0, static_cast<std::size_t>(p.get(wire::field::domain)));
  out->block_.accept(p);
  return status::ok;
}

status glm_context::randomize(span<const int64_t> x, int64_t s, random::drbg& rng, span<unsigned char> out, framing f,
                              std::size_t* written) noexcept {
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(x, s, rng, r); }, f, out, written);
}

}  // namespace ldp::device
