// A user's contribution to a private training round (docs/mechanisms.md I.0): from the round's model
// broadcast (wire/model_broadcast.h) and the user's samples, the average of the per-sample gradients
// of its first min(n, m) samples (contribution bounding, Levy et al.'s user-level setting), L2-clipped
// to G, quantized to the grid of the existing mechanisms (gamma = 2^-f) and clipped again in integers
// so that the reported vector's squared norm is at most L^2, L = G 2^f. The server's sensitivity
// argument (dp_sgd, levy_training) rests on that last bound, which holds exactly.
//
// No heap and no exceptions (the device rules, docs/architecture.md): the model's weights and the
// running average live in the caller's workspace, in float or double (T).
#ifndef LDP_DEVICE_GRADIENT_H
#define LDP_DEVICE_GRADIENT_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/model_broadcast.h"

namespace ldp::device {

// What the round fixes besides the model: the broadcast's digest (the round's block names it), m,
// the grid's f and the clipping radius L in grid units (G = L 2^-f).
struct gradient_bound {
  uint64_t model_digest = 0;
  uint32_t max_samples = 1;
  unsigned frac_bits = 0;
  int64_t radius_fixed = 1;
};

// A user's samples: count rows of p features, one after the other, and count labels (a real y for
// linear, 0 or 1 for logistic, a class index 0 .. C - 1 for softmax).
template <class T>
struct user_samples {
  const T* features = nullptr;
  const T* labels = nullptr;
  std::size_t count = 0;
};

// A user's samples in sparse form (embedding-style inputs, docs/mechanisms.md I.0): sample k has the
// features index[offsets[k] .. offsets[k + 1]) (each < p) with their values; offsets has count + 1
// entries, non-decreasing, offsets[0] = 0. A feature listed twice counts as the sum of its values.
template <class T>
struct sparse_samples {
  const std::size_t* offsets = nullptr;
  const uint32_t* index = nullptr;
  const T* value = nullptr;
  const T* labels = nullptr;
  std::size_t count = 0;
};

// T entries of workspace the call needs for a model of this header: the weights and the average.
[[nodiscard]] constexpr std::size_t gradient_workspace_size(const wire::model_header& h) noexcept {
  return 2 * static_cast<std::size_t>(wire::model_dim(h.shape));
}

// Writes the user's contribution into out[0, d). In order: invalid_argument for a bound outside 1 <=
// m, f <= 62, 1 <= L, or no samples; parameter_mismatch when the broadcast's digest is not
// bound.model_digest (a stale or foreign model); the broadcast's decoding status
// (wire::peek_model_broadcast); invalid_argument unless d (L + 1)^2 < 2^63 (every sum of squares
// fits 63 bits); workspace_too_small below
// gradient_workspace_size; buffer_too_small when out is shorter than d; the weights' decoding status
// (out_of_range: a weight not finite in T); invalid_argument for a label
// the model cannot take (a softmax class out of range, a logistic label other than 0 and 1, a label
// that is not finite); out_of_range when the average gradient is not finite (a feature that is not
// finite, or float overflow). out is written only on ok.
template <class T>
[[nodiscard]] status user_gradient(span<const unsigned char> broadcast, const gradient_bound& bound,
                                   user_samples<T> samples, span<T> workspace, span<int64_t> out) noexcept;

// The same from sparse samples: each sample costs O(rows (s + 1)) besides the O(d) of the bounding.
// Also invalid_argument when the offsets of the first min(count, m) samples are not as stated, and
// out_of_range for a feature index >= p.
template <class T>
[[nodiscard]] status user_gradient(span<const unsigned char> broadcast, const gradient_bound& bound,
                                   sparse_samples<T> samples, span<T> workspace, span<int64_t> out) noexcept;

// The bounding step alone, for a gradient g (d entries) already averaged: clipped to L 2^-f, scaled
// by 2^f, rounded to nearest (halves away from zero) and clipped again in integers (each entry
// multiplied by L / ceil(sqrt(sum q^2)), truncated toward zero). Same bound rules as above.
template <class T>
[[nodiscard]] status clip_and_quantize(span<const T> g, unsigned frac_bits, int64_t radius_fixed,
                                       span<int64_t> out) noexcept;

}  // namespace ldp::device

#endif
