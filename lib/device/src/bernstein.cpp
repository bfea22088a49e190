#include "ldp/device/bernstein.h"

namespace ldp::device {

status randomize_bernstein(vector_mean_context& context, span<const double> x, double y, span<int64_t> values,
                           random::drbg& rng, span<unsigned char> out, framing f, std::size_t* written) noexcept {
  *written = 0;
  const status s = builtin_loss_values(context.parameters(), x, y, rng, values);
  if (s != status::ok) return s;
  return context.randomize(values, rng, out, f, written);
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
