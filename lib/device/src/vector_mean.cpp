#include "ldp/device/vector_mean.h"

#include "ldp/base/bits.h"

namespace ldp::device {
namespace {

// All ones for a negative v, else 0. The clip is branch-free on the signs of the data: random
// signs would mispredict every other branch (and no timing depends on them).
uint64_t sign_mask(int64_t v) { return 0 - (static_cast<uint64_t>(v) >> 63); }

uint64_t magnitude(int64_t v) {
  const uint64_t s = sign_mask(v);
  return (static_cast<uint64_t>(v) ^ s) - s;
}

// m (< 2^31) with the sign of v.
int32_t with_sign(uint64_t m, int64_t v) {
  const auto s = static_cast<uint32_t>(sign_mask(v));
  return static_cast<int32_t>((static_cast<uint32_t>(m) ^ s) - s);
}

// Whether d <= 2^log2_dim squares of magnitudes up to m sum below 2^64.
bool squares_fit(uint64_t m, unsigned log2_dim) {
  return m < (uint64_t{1} << 32) && (log2_dim == 0 || ((m * m) >> (64 - log2_dim)) == 0);
}

}  // namespace

void clip_to_ball(span<const int64_t> x, int64_t radius, unsigned log2_dim, span<int32_t> out) noexcept {
  // One pass for the largest magnitude and the sum of squares, which is exact when the squares fit
  // (wrapped, and recomputed after the shift, when they do not).
  uint64_t largest = 0, sum = 0;
  for (int64_t v : x) {
    const uint64_t m = magnitude(v);
    largest = m > largest ? m : largest;
    sum += m * m;
  }
  unsigned shift = 0;
  while (!squares_fit(largest >> shift, log2_dim)) ++shift;
  if (shift != 0) {
    sum = 0;  // below 2^64 by the choice of shift
    for (int64_t v : x) {
      const uint64_t m = magnitude(v) >> shift;
      sum += m * m;
    }
  }
  const auto r = static_cast<uint64_t>(radius);
  const std::size_t d = x.size();
  if (shift == 0 && sum <= r * r) {
    // Inside the ball: every |x_i| <= ||x|| <= R < 2^31.
    for (std::size_t i = 0; i < d; ++i) out[i] = static_cast<int32_t>(x[i]);
  } else {
    uint64_t norm = isqrt64(sum);
    if (norm * norm < sum) ++norm;  // ceil: the result's norm stays at most R
    // One division per vector: factor = floor(R 2^32 / norm) < 2^63 (R < 2^31). Each magnitude
    // m < 2^32 then becomes floor(m factor / 2^32), as two 32 x 32 -> 64-bit products: at most one
    // grid unit below m R / norm, never above it, and at most R.
    const uint64_t factor = (r << 32) / norm;
    const uint64_t factor_hi = factor >> 32, factor_lo = factor & 0xffffffffu;
    for (std::size_t i = 0; i < d; ++i) {
      const uint64_t m = magnitude(x[i]) >> shift;
      out[i] = with_sign(m * factor_hi + ((m * factor_lo) >> 32), x[i]);
    }
  }
  const std::size_t padded = std::size_t{1} << log2_dim;
  for (std::size_t i = d; i < padded; ++i) out[i] = 0;
}

status vector_mean_context::init(span<std::byte> workspace, const wire::params& p, vector_mean_context* out,
                                 const kernels::table& k) noexcept {
  *out = vector_mean_context{};
  if (family_of(p.mech) != family::vector_mean) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  const placement at = layout(p);
  const status checked = check_workspace(workspace, at.bytes.size());
  if (checked != status::ok) return checked;
  if (is_rotated(p)) {
    const status s = carve_rotation(workspace, at.rotation, p, &out->rotation_);
    if (s != status::ok) return s;
    out->log2_dim_ = wire::rotation_log2(p);
  } else {
    out->noisy_ = carve<int64_t>(workspace, at.noisy, static_cast<std::size_t>(p.get(wire::field::domain)));
  }
  out->block_.accept(p);
  out->kernels_ = &k;
  return status::ok;
}

status vector_mean_context::randomize(span<const int64_t> x, random::drbg& rng, span<unsigned char> out, framing f,
                                      std::size_t* written) noexcept {
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(x, rng, r); }, f, out, written);
}

}  // namespace ldp::device
