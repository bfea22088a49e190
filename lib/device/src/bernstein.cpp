#include "ldp/device/bernstein.h"

namespace ldp::device {

status randomize_bernstein(vector_mean_context& context, span<const double> x, double y, span<int64_t> values,
                           random::drbg& rng, span<unsigned char> out, framing f, std::size_t* written) noexcept {
  *written = 0;
  const status s = builtin_loss_values(context.parameters(), x, y, rng, values);
  if (s != status::ok) return s;
  return detail::emit_losses(context, values, rng, out, f, written);
}

status detail::emit_losses(vector_mean_context& context, span<const int64_t> values, random::drbg& rng,
                           span<unsigned char> out, framing f, std::size_t* written) noexcept {
  const auto copy = [&](span<int64_t> coordinates) {
    if (coordinates.size() != values.size()) return false;
    for (std::size_t i = 0; i < values.size(); ++i) coordinates[i] = values[i];
    return true;
  };
  return emit(
      context.parameters(), context.fingerprint(), [&](wire::report* r) { return context.mapped_fields(copy, rng, r); },
      f, out, written);
}

status randomize_bernstein(vector_mean_context& context, loss_fn loss, const void* user, span<int64_t> values,
                           random::drbg& rng, span<unsigned char> out, framing f, std::size_t* written) noexcept {
  *written = 0;
  if (loss == nullptr) return status::invalid_argument;
  const auto dim = static_cast<uint32_t>(context.parameters().get(wire::field::vector_dim));
  return randomize_caller_loss(
      context, [&](const double* w) { return loss(w, dim, user); }, values, rng, out, f, written);
}

}  // namespace ldp::device
