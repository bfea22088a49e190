#include "ldp/device/gradient.h"

#include <cmath>

#include "ldp/base/bits.h"
#include "ldp/wire/central_params.h"

namespace ldp::device {

namespace {

// The bound rules of gradient.h: f <= 62, L >= 1 and d (L + 1)^2 < 2^63. Quantizing a vector of norm
// at most L rounds each entry by at most 1/2, so |q_i| <= L + 1 and sum q_i^2 <= d (L + 1)^2; with d
// >= 1 it also gives L + 1 < 2^31.5, so q_i L in the re-clip cannot overflow.
bool bound_holds(uint64_t d, unsigned frac_bits, int64_t radius_fixed) {
  if (frac_bits > 62 || radius_fixed < 1 || d < 1) return false;
  const auto l1 = static_cast<uint64_t>(radius_fixed) + 1;
  uint64_t squared = 0, total = 0;
  return checked_mul(l1, l1, &squared) && checked_mul(squared, d, &total) && total < (uint64_t{1} << 63);
}

// A label the model can take: finite; 0 or 1 for logistic; a class index below C for softmax.
template <class T>
bool label_ok(const wire::model_shape& s, T y) {
  if (!std::isfinite(y)) return false;
  switch (s.kind) {
    case wire::model_kind::linear: return true;
    case wire::model_kind::logistic: return y == T(0) || y == T(1);
    case wire::model_kind::softmax: return y >= T(0) && y < static_cast<T>(s.classes) && std::floor(y) == y;
  }
  return false;
}

// clip_and_quantize without its argument checks.
template <class T>
status bound_vector(span<const T> g, unsigned frac_bits, int64_t radius_fixed, span<int64_t> out) {
  // The norm scaled by the largest magnitude, so that no square overflows even for huge doubles.
  double top = 0;
  for (T v : g) {
    if (!std::isfinite(v)) return status::out_of_range;
    const double a = std::fabs(static_cast<double>(v));
    if (a > top) top = a;
  }
  double squares = 0;
  if (top > 0) {
    for (T v : g) {
      const double r = static_cast<double>(v) / top;
      squares += r * r;
    }
  }
  const double root = std::sqrt(squares);  // ||g|| = top root, which may overflow where top and root do not
  const double scale = std::ldexp(1.0, static_cast<int>(frac_bits));
  const auto l = static_cast<double>(radius_fixed);
  const bool clip = top * root * scale > l;  // ||g|| > G, G = L 2^-f
  uint64_t sum = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const auto v = static_cast<double>(g[i]);
    // Clipped: g_i / ||g|| is at most 1 in magnitude, so its product with L cannot overflow.
    const double fixed = clip ? v / top / root * l : v * scale;
    out[i] = static_cast<int64_t>(std::round(fixed));
    const uint64_t a = out[i] < 0 ? 0 - static_cast<uint64_t>(out[i]) : static_cast<uint64_t>(out[i]);
    sum += a * a;
  }
  // Rounding can lengthen the vector by up to sqrt(d)/2 grid units: shrink it back inside the ball.
  // Truncating q_i L / N toward zero, N = ceil(sqrt(sum)) >= ||q||, gives ||q'|| <= L exactly.
  const auto l_int = static_cast<uint64_t>(radius_fixed);
  if (sum > l_int * l_int) {
    const auto n = static_cast<int64_t>(wire::ceil_sqrt64(sum));
    for (std::size_t i = 0; i < g.size(); ++i) out[i] = out[i] * radius_fixed / n;
  }
  return status::ok;
}

// A user's contribution, the part both sample forms share: the checks in gradient.h's order, the
// decoded weights, then valid(n, shape) on the first n = min(count, m) samples before anything is
// accumulated, their average (add(shape, k, theta, weight, acc) adds sample k's gradient times
// weight) and the bounding.
template <class T, class Valid, class Add>
status contribution(span<const unsigned char> broadcast, const gradient_bound& bound, std::size_t count,
                    const T* labels, span<T> workspace, span<int64_t> out, Valid&& valid, Add&& add) {
  if (bound.max_samples < 1 || count < 1 || bound.frac_bits > 62 || bound.radius_fixed < 1) {
    return status::invalid_argument;
  }
  if (wire::model_broadcast_digest(broadcast) != bound.model_digest) return status::parameter_mismatch;
  wire::model_header h;
  if (const status s = wire::peek_model_broadcast(broadcast, &h); s != status::ok) return s;
  const auto d = static_cast<std::size_t>(wire::model_dim(h.shape));
  if (!bound_holds(d, bound.frac_bits, bound.radius_fixed)) return status::invalid_argument;
  if (workspace.size() < gradient_workspace_size(h)) return status::workspace_too_small;
  if (out.size() < d) return status::buffer_too_small;
  span<T> theta(workspace.data(), d), average(workspace.data() + d, d);
  if (const status s = wire::decode_model_broadcast(broadcast, &h, theta); s != status::ok) return s;

  const std::size_t n = count < bound.max_samples ? count : bound.max_samples;
  for (std::size_t k = 0; k < n; ++k) {
    if (!label_ok(h.shape, labels[k])) return status::invalid_argument;
  }
  if (const status s = valid(n, h.shape); s != status::ok) return s;
  for (T& a : average) a = T(0);
  const T weight = T(1) / static_cast<T>(n);
  for (std::size_t k = 0; k < n; ++k) add(h.shape, k, theta.data(), weight, average.data());
  return bound_vector(span<const T>(average.data(), d), bound.frac_bits, bound.radius_fixed, out);
}

}  // namespace

template <class T>
status clip_and_quantize(span<const T> g, unsigned frac_bits, int64_t radius_fixed, span<int64_t> out) noexcept {
  if (!bound_holds(g.size(), frac_bits, radius_fixed)) return status::invalid_argument;
  if (out.size() < g.size()) return status::buffer_too_small;
  return bound_vector(g, frac_bits, radius_fixed, out);
}

template <class T>
status user_gradient(span<const unsigned char> broadcast, const gradient_bound& bound, user_samples<T> samples,
                     span<T> workspace, span<int64_t> out) noexcept {
  return contribution(
      broadcast, bound, samples.count, samples.labels, workspace, out,
      [](std::size_t, const wire::model_shape&) { return status::ok; },
      [&](const wire::model_shape& s, std::size_t k, const T* theta, T weight, T* acc) {
        wire::model_gradient_add(s, theta, samples.features + k * s.features, samples.labels[k], weight, acc);
      });
}

template <class T>
status user_gradient(span<const unsigned char> broadcast, const gradient_bound& bound, sparse_samples<T> samples,
                     span<T> workspace, span<int64_t> out) noexcept {
  // Every index is read by the accumulation, so all are checked first (an index >= p would reach
  // past the row).
  const auto valid = [&](std::size_t n, const wire::model_shape& s) {
    if (samples.offsets[0] != 0) return status::invalid_argument;
    for (std::size_t k = 0; k < n; ++k) {
      if (samples.offsets[k + 1] < samples.offsets[k]) return status::invalid_argument;
      for (std::size_t i = samples.offsets[k]; i < samples.offsets[k + 1]; ++i) {
        if (samples.index[i] >= s.features) return status::out_of_range;
      }
    }
    return status::ok;
  };
  return contribution(
      broadcast, bound, samples.count, samples.labels, workspace, out, valid,
      [&](const wire::model_shape& s, std::size_t k, const T* theta, T weight, T* acc) {
        const std::size_t at = samples.offsets[k];
        const wire::sparse_input<T> x{samples.index + at, samples.value + at, samples.offsets[k + 1] - at};
        wire::model_gradient_add(s, theta, x, samples.labels[k], weight, acc);
      });
}

template status clip_and_quantize<float>(span<const float>, unsigned, int64_t, span<int64_t>) noexcept;
template status clip_and_quantize<double>(span<const double>, unsigned, int64_t, span<int64_t>) noexcept;
template status user_gradient<float>(span<const unsigned char>, const gradient_bound&, user_samples<float>, span<float>,
                                     span<int64_t>) noexcept;
template status user_gradient<double>(span<const unsigned char>, const gradient_bound&, user_samples<double>,
                                      span<double>, span<int64_t>) noexcept;
template status user_gradient<float>(span<const unsigned char>, const gradient_bound&, sparse_samples<float>,
                                     span<float>, span<int64_t>) noexcept;
template status user_gradient<double>(span<const unsigned char>, const gradient_bound&, sparse_samples<double>,
                                      span<double>, span<int64_t>) noexcept;

}  // namespace ldp::device
