#include "ldp/device/winsorized.h"

#include "ldp/kernels/kernel_table.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/vector_params.h"

namespace ldp::device {

using wire::field;

status winsorized_context::init(span<std::byte> workspace, const wire::params& p, span<const unsigned char> windows,
                                winsorized_context* out) noexcept {
  *out = winsorized_context{};
  if (!is_winsorized(p)) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  if (p.mech == wire::mechanism::winsorized_sums) {
    const status checked = wire::check_window_list(p, windows);
    if (checked != status::ok) return checked;
    out->windows_ = windows;
  }
  const placement at = layout(p);
  const status checked = check_workspace(workspace, at.bytes.size());
  if (checked != status::ok) return checked;
  out->values_ = carve<int64_t>(workspace, at.values, static_cast<std::size_t>(p.get(field::hadamard_dim)));
  const status s = carve_rotation(workspace, at.rotation, p, &out->rotation_);
  if (s != status::ok) return s;
  out->block_.accept(p);
  return status::ok;
}

status winsorized_context::rotated_mean(span<const int64_t> samples, span<const int32_t>* out) noexcept {
  *out = {};
  const wire::params& p = block_.params;
  const auto d = static_cast<std::size_t>(p.get(field::vector_dim));
  if (!block_.ready || samples.size() == 0 || samples.size() % d != 0) return status::invalid_argument;
  const std::size_t count = samples.size() / d;
  const std::size_t used =
      count < p.get(field::observations) ? count : static_cast<std::size_t>(p.get(field::observations));
  const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
  const span<int32_t> rotated = rotation_.values;
  for (std::size_t i = 0; i < rotated.size(); ++i) {
    if (i >= d) {
      rotated[i] = 0;
      continue;
    }
    int64_t sum = 0;  // |sum| <= m M < 2^32 * 2^31
    for (std::size_t s = 0; s < used; ++s) {
      const int64_t x = samples[s * d + i];
      sum += x < lo ? lo : x > hi ? hi : x;
    }
    // |mean| <= M < 2^31 (wire_format.md 3.3): fits int32, and d M < 2^31 bounds every FWHT stage.
    rotated[i] = static_cast<int32_t>(wire::rounded_mean(sum, used));
  }
  kernels::native().rotate_i32(rotated.data(), rotation_.signs.data(), wire::rotation_log2(p));
  *out = rotated;
  return status::ok;
}

status winsorized_context::fields(span<const int64_t> samples, wire::report* r) noexcept {
  *r = wire::report{};
  span<const int32_t> rotated;
  const status s = rotated_mean(samples, &rotated);
  if (s != status::ok) return s;
  const wire::params& p = block_.params;
  const bool round2 = p.mech == wire::mechanism::winsorized_sums;
  for (std::size_t j = 0; j < rotated.size(); ++j) {
    values_[j] = round2 ? wire::winsorized_clamp(p, wire::window_list_bin(p, windows_, j), rotated[j])
                        : int64_t{wire::winsorized_bin(p, rotated[j])};
  }
  r->mech = p.mech;
  r->values = values_;
  return status::ok;
}

status winsorized_context::randomize(span<const int64_t> samples, random::drbg&, span<unsigned char> out, framing f,
                                     std::size_t* written) noexcept {
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(samples, r); }, f, out, written);
}

}  // namespace ldp::device
