// Device side of Wang, Gaboardi, Smith and Xu's local Bernstein mechanism (docs/mechanisms.md H.1): a
// device evaluates its loss at every point w of the public grid {0, 1/k, ..., 1}^p (wire::grid_point
// order), quantizes the N = (k + 1)^p values in [0, 1] to the block's grid of Q = 2^f units, and
// sends them as a laplace-vector report (vector_mean_context: discrete Laplace for the L1
// sensitivity N Q on every coordinate).
//
// The loss is the block's built-in one (wire::loss_value of the device's example x, y) or, for
// blocks whose loss is `caller`, a function the application supplies, clamped to [0, 1]. A NaN loss
// is invalid_argument before anything is drawn. Quantization (H.1): the loss is first held in Q62
// fixed point, L = floor(ell 2^62) (exact: a scaling by a power of two and a truncation), then
// rounded to Q = 2^f by unbiased randomized rounding, v = floor(L / 2^s) + [u < L mod 2^s] with
// s = 62 - f and u the top s bits of one 64-bit DRBG word, drawn for every coordinate whatever the
// value: E[v] = L / 2^s, within 2^(f-62) grid units below ell Q (2^-62 in loss units). The rounding
// words come before the noise, and their number never depends on the data. No heap, no exceptions.
#ifndef LDP_DEVICE_BERNSTEIN_H
#define LDP_DEVICE_BERNSTEIN_H

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/device/loss_fn.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/bernstein_params.h"
#include "ldp/wire/loss.h"
#include "ldp/wire/params.h"

namespace ldp::device {

// Largest p of a valid block: (k + 1)^p <= 65536 with k >= 1.
inline constexpr uint32_t bernstein_max_dim = 16;

// The number N of loss values (int64 entries of the values span) of a bernstein block; 0 for any
// other block.
[[nodiscard]] constexpr std::size_t bernstein_value_count(const wire::params& p) noexcept {
  return p.mech == wire::mechanism::bernstein ? static_cast<std::size_t>(p.get(wire::field::domain)) : 0;
}

namespace detail {

inline constexpr unsigned loss_q_bits = 62;

// Pass one, no draws: loss(w) at every grid point, clamped to [0, 1], in Q62 into out.
// invalid_argument for a NaN loss.
template <class Loss>
status q62_losses(const wire::params& p, Loss& loss, span<int64_t> out) noexcept {
  const auto dim = static_cast<uint32_t>(p.get(wire::field::vector_dim));
  const auto k = static_cast<uint32_t>(p.get(wire::field::grid_size));
  double w[bernstein_max_dim];
  for (std::size_t l = 0; l < out.size(); ++l) {
    wire::grid_point(dim, k, l, w);
    const double ell = loss(static_cast<const double*>(w));
    if (ell != ell) return status::invalid_argument;
    const double clamped = ell < 0 ? 0.0 : (ell > 1 ? 1.0 : ell);
    out[l] = static_cast<int64_t>(std::ldexp(clamped, static_cast<int>(loss_q_bits)));  // truncation = floor
  }
  return status::ok;
}

// Pass two: every Q62 value rounded to Q = 2^f in place, one 64-bit word each (H.1).
template <class Rng>
void round_losses(const wire::params& p, span<int64_t> values, Rng& rng) noexcept {
  const unsigned s = loss_q_bits - static_cast<unsigned>(p.get(wire::field::frac_bits));  // 30..62
  const uint64_t mask = (uint64_t{1} << s) - 1;
  for (int64_t& v : values) {
    const auto q62 = static_cast<uint64_t>(v);
    const uint64_t u = rng.next_u64() >> (64 - s);
    v = static_cast<int64_t>((q62 >> s) + (u < (q62 & mask) ? 1 : 0));
  }
}

// The checks both entry points share: a valid bernstein block whose loss is `caller` exactly when
// the caller supplies the loss, and N values.
inline status check_values_call(const wire::params& p, bool caller_loss, span<int64_t> out) noexcept {
  if (p.mech != wire::mechanism::bernstein) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  if ((wire::loss_of(p) == wire::loss_kind::caller) != caller_loss) return status::invalid_argument;
  return out.size() == bernstein_value_count(p) ? status::ok : status::invalid_argument;
}

}  // namespace detail

// The N quantized losses (integers in [0, 2^f]) into out[0, N) for a loss the caller evaluates:
// loss(const double* w) -> double, w the grid point (p values). For blocks whose loss is `caller`.
// invalid_argument for another block, out.size() != N or a NaN loss (nothing is drawn then).
template <class Loss, class Rng>
status caller_loss_values(const wire::params& p, Loss&& loss, Rng& rng, span<int64_t> out) noexcept {
  const status checked = detail::check_values_call(p, true, out);
  if (checked != status::ok) return checked;
  const status evaluated = detail::q62_losses(p, loss, out);
  if (evaluated != status::ok) return evaluated;
  detail::round_losses(p, out, rng);
  return status::ok;
}

// The same for the block's built-in loss (squared, logistic, hinge) of the example: features
// x[0, p) in [0, 1] and label y (wire::loss_value clamps both). invalid_argument for a block whose
// loss is `caller`, x.size() != p or a NaN among x and y.
template <class Rng>
status builtin_loss_values(const wire::params& p, span<const double> x, double y, Rng& rng,
                           span<int64_t> out) noexcept {
  const status checked = detail::check_values_call(p, false, out);
  if (checked != status::ok) return checked;
  if (x.size() != p.get(wire::field::vector_dim)) return status::invalid_argument;
  const wire::loss_kind kind = wire::loss_of(p);
  const auto dim = static_cast<uint32_t>(x.size());
  auto loss = [&](const double* w) { return wire::loss_value(kind, w, x.data(), dim, y); };
  const status evaluated = detail::q62_losses(p, loss, out);
  if (evaluated != status::ok) return evaluated;
  detail::round_losses(p, out, rng);
  return status::ok;
}

namespace detail {
// The rounded losses as the context's report: a bernstein block takes no caller vector through
// randomize, so the values enter as the block's computed coordinates (vector_mean_context::
// mapped_fields), which adds the noise.
[[nodiscard]] status emit_losses(vector_mean_context& context, span<const int64_t> values, random::drbg& rng,
                                 span<unsigned char> out, framing f, std::size_t* written) noexcept;
}  // namespace detail

// One report through a vector context initialized with the bernstein block: the values go to
// `values` (N entries, the caller's memory), then the context adds the noise. The statuses of
// the calls above and of randomize. The example (x, y) under the built-in loss:
[[nodiscard]] status randomize_bernstein(vector_mean_context& context, span<const double> x, double y,
                                         span<int64_t> values, random::drbg& rng, span<unsigned char> out, framing f,
                                         std::size_t* written) noexcept;

// A caller loss: any callable loss(const double* w) -> double (the C API wraps its function pointer).
template <class Loss>
status randomize_caller_loss(vector_mean_context& context, Loss&& loss, span<int64_t> values, random::drbg& rng,
                             span<unsigned char> out, framing f, std::size_t* written) noexcept {
  *written = 0;
  const status s = caller_loss_values(context.parameters(), loss, rng, values);
  if (s != status::ok) return s;
  return detail::emit_losses(context, values, rng, out, f, written);
}

// A caller loss_fn (p is the block's).
[[nodiscard]] status randomize_bernstein(vector_mean_context& context, loss_fn loss, const void* user,
                                         span<int64_t> values, random::drbg& rng, span<unsigned char> out, framing f,
                                         std::size_t* written) noexcept;

}  // namespace ldp::device

#endif
