#include "ldp/device/unit_vector.h"

#include "ldp/base/bits.h"

namespace ldp::device {

uint64_t l2_ball_sign_threshold(uint64_t squared_norm, int64_t radius) noexcept {
  const auto r = static_cast<uint64_t>(radius);
  uint64_t remainder = 0;
  // S 2^62 / R^2 <= 2^62: the quotient fits, and floor(sqrt(floor(a))) = floor(sqrt(a)).
  const uint64_t ratio = div_rem(mul_64x64(squared_norm, uint64_t{1} << 62), r * r, &remainder);
  return (uint64_t{1} << 31) + isqrt64(ratio);
}

privunitg_cap privunitg_cap_of(const wire::params& p) noexcept {
  privunitg_cap cap;
  cap.keep = p.get(wire::field::threshold_keep);
  cap.keep_bits = static_cast<unsigned>(p.get(wire::field::threshold_bits));
  cap.threshold = static_cast<uint32_t>(p.get(wire::field::cap_threshold));
  return cap;
}

u128 privunitg_cap_offset(uint32_t threshold, uint64_t squared_norm) noexcept {
  const u128 n = mul_64x64(uint64_t{threshold} * threshold, squared_norm);
  // floor(sqrt(n)), two bits of n per step from the top (isqrt64 on 128 bits), then up to the ceiling.
  u128 rest = n, root{0, 0}, bit{uint64_t{1} << 62, 0};
  while (rest < bit) bit = bit >> 2;
  while (bit != u128{0, 0}) {
    const u128 trial = root + bit;
    if (rest < trial) {
      root = root >> 1;
    } else {
      rest = rest - trial;
      root = (root >> 1) + bit;
    }
    bit = bit >> 2;
  }
  return rest == u128{0, 0} ? root : root + u128{0, 1};
}

bool privunitg_in_cap(span<const int64_t> z, span<const int32_t> w, u128 offset) noexcept {
  i128 dot = to_i128(0);
  for (std::size_t i = 0; i < z.size(); ++i) {
    const int64_t a = z[i], b = w[i];
    const u128 m = mul_64x64(a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a),
                             static_cast<uint64_t>(b < 0 ? -b : b));
    const i128 product{m.hi, m.lo};
    dot += (a < 0) != (b < 0) ? i128{} - product : product;
  }
  return !is_negative(dot) && !(magnitude(dot) < offset);
}

int l2_ball_half(span<const int64_t> z, span<const int32_t> x) noexcept {
  i128 dot = to_i128(0);
  for (std::size_t i = 0; i < z.size(); ++i) dot += to_i128(z[i] * int64_t{x[i]});  // |product| < 2^63
  if (dot.hi != 0 || dot.lo != 0) return is_negative(dot) ? -1 : 1;
  for (int64_t v : z) {
    if (v != 0) return v < 0 ? -1 : 1;
  }
  return 1;  // z = 0 never reaches here (the device redraws it)
}

status unit_vector_context::init(span<std::byte> workspace, const wire::params& p, unit_vector_context* out) noexcept {
  *out = unit_vector_context{};
  if (family_of(p.mech) != family::unit_vector) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  const placement at = layout(p);
  const status checked = check_workspace(workspace, at.bytes.size());
  if (checked != status::ok) return checked;
  const auto d = static_cast<std::size_t>(p.get(wire::field::domain));
  out->clipped_ = carve<int32_t>(workspace, at.clipped, padded_dim(static_cast<uint32_t>(d)));
  out->direction_ = carve<int64_t>(workspace, at.direction, d);
  out->block_.accept(p);
  return status::ok;
}

status unit_vector_context::randomize(span<const int64_t> x, random::drbg& rng, span<unsigned char> out, framing f,
                                      std::size_t* written) noexcept {
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(x, rng, r); }, f, out, written);
}

}  // namespace ldp::device
