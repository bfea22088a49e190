#include "ldp/device/projected_unit.h"

#include "ldp/base/bits.h"
#include "ldp/base/int128.h"
#include "ldp/kernels/kernel_table.h"

namespace ldp::device {

uint64_t projected_direction(span<const int64_t> y, span<int32_t> w) noexcept {
  u128 squared{0, 0};
  for (int64_t v : y) {
    const uint64_t m = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    squared = squared + mul_64x64(m, m);
  }
  // The smallest e with floor(||y||^2 / 2^2e) < 2^62; rounding each |y_i| down only lowers the sum.
  const int excess = bit_length(squared) - 62;
  const int e = excess > 0 ? (excess + 1) / 2 : 0;
  uint64_t sum = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const uint64_t m = (y[i] < 0 ? 0 - static_cast<uint64_t>(y[i]) : static_cast<uint64_t>(y[i])) >> e;
    sum += m * m;
    w[i] = static_cast<int32_t>(y[i] < 0 ? -static_cast<int64_t>(m) : static_cast<int64_t>(m));
  }
  return sum;
}

status projected_unit_context::init(span<std::byte> workspace, const wire::params& p,
                                    projected_unit_context* out) noexcept {
  *out = projected_unit_context{};
  if (!wire::is_projected_unit(p.mech)) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  const placement at = layout(p);
  const status checked = check_workspace(workspace, at.bytes.size());
  if (checked != status::ok) return checked;
  const auto d = static_cast<uint32_t>(p.get(wire::field::domain));
  const auto k = static_cast<std::size_t>(p.get(wire::field::projection_dim));
  out->dim_ = d;
  out->clipped_ = carve<int32_t>(workspace, at.clipped, padded_dim(d));
  out->signs_ = carve<uint32_t>(workspace, at.signs, sign_words(p));
  out->projected_ = carve<int64_t>(workspace, at.projected, k);
  out->direction_ = carve<int32_t>(workspace, at.direction, k);
  out->block_.accept(p);
  return status::ok;
}

status projected_unit_context::project(const unsigned char key[random::chacha20_key_size]) noexcept {
  const kernels::table& table = kernels::native();
  if (block_.params.mech == wire::mechanism::fastprojunit) {
    return random::fast_project(table, key, clipped_, signs_, projected_);
  }
  return random::rademacher_project(table, key, span<const int32_t>(clipped_.data(), dim_), signs_, projected_);
}

status projected_unit_context::randomize(span<const int64_t> x, random::drbg& rng, span<unsigned char> out, framing f,
                                         std::size_t* written) noexcept {
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(x, rng, r); }, f, out, written);
}

}  // namespace ldp::device
