// The models of private training (docs/mechanisms.md I.0): loss and per-sample gradient of linear
// regression, logistic regression and softmax regression, in float and in double, for dense inputs
// and for sparse (index, value) inputs. Defined once in wire so that a device computing its
// contribution and a server evaluating a model (loss curves, accuracy, non-private baselines) use the
// same formulas; exp and log are det_exp/det_log (det_math.h), so the value does not depend on the
// platform's libm.
//
// Parameters: a flattened vector of dimension d = rows (p + 1), rows = 1 for linear and logistic, C
// for softmax; row r is (w_r1 .. w_rp, b_r), bias last. The margin of row r is s_r = <w_r, x> + b_r.
//   linear    1/2 (s - y)^2                               y real
//   logistic  ln(1 + e^s) - y s                           y in {0, 1}
//   softmax   ln sum_r e^{s_r} - s_y                      y in {0, .., C - 1}
// The gradient is row r's residual times (x, 1): s - y, sigmoid(s) - y, softmax_r(s) - [r = y]. With s
// non-zero features the gradient touches s + 1 entries per row (the sparse form).
// The L2 regularizer lambda/2 ||theta||^2 (every entry, the biases too: strong convexity needs them) is
// public and added by the server outside the private mean (Levy et al. Alg 4): model_add_l2.
#ifndef LDP_WIRE_MODEL_H
#define LDP_WIRE_MODEL_H

#include <cstddef>
#include <cstdint>

namespace ldp::wire {

// The wire values of the model kind (wire_format.md 10).
enum class model_kind : uint8_t { linear = 1, logistic = 2, softmax = 3 };

[[nodiscard]] constexpr bool is_model_kind(uint32_t v) noexcept { return v >= 1 && v <= 3; }

// p features; classes C for softmax (C >= 2), 1 for linear and logistic.
struct model_shape {
  model_kind kind = model_kind::linear;
  uint32_t features = 0;
  uint32_t classes = 1;
};

// Rows of the parameter matrix: C for softmax, else 1.
[[nodiscard]] constexpr uint32_t model_rows(const model_shape& s) noexcept {
  return s.kind == model_kind::softmax ? s.classes : 1;
}

// d = rows (p + 1).
[[nodiscard]] constexpr uint64_t model_dim(const model_shape& s) noexcept {
  return uint64_t{model_rows(s)} * (uint64_t{s.features} + 1);
}

// A sparse input: `count` pairs (index[k] < p, value[k]); indices distinct (a repeated index would be
// counted twice in the margin but written twice in the sparse gradient).
template <class T>
struct sparse_input {
  const uint32_t* index = nullptr;
  const T* value = nullptr;
  std::size_t count = 0;
};

// The loss of one sample (x has p entries; y as in the table above, a class index for softmax). The
// label is not checked here (a softmax class >= C reads outside theta): device::user_gradient checks
// the labels it is given before calling these.
template <class T>
[[nodiscard]] T model_loss(const model_shape& s, const T* theta, const T* x, T y) noexcept;
template <class T>
[[nodiscard]] T model_loss(const model_shape& s, const T* theta, sparse_input<T> x, T y) noexcept;

// acc += scale * (the gradient of the loss of one sample): d entries. No scratch memory (softmax
// evaluates its margins twice), so a device accumulates a user's average in place.
template <class T>
void model_gradient_add(const model_shape& s, const T* theta, const T* x, T y, T scale, T* acc) noexcept;
// The same for a sparse input: touches rows (count + 1) entries of acc.
template <class T>
void model_gradient_add(const model_shape& s, const T* theta, sparse_input<T> x, T y, T scale, T* acc) noexcept;

// The dense gradient (d entries written); returns the loss.
template <class T>
T model_gradient(const model_shape& s, const T* theta, const T* x, T y, T* grad) noexcept;

// Entries of the sparse gradient of an input with `nonzeros` features: rows (nonzeros + 1).
[[nodiscard]] constexpr uint64_t sparse_gradient_size(const model_shape& s, std::size_t nonzeros) noexcept {
  return uint64_t{model_rows(s)} * (uint64_t{nonzeros} + 1);
}

// The sparse gradient: sparse_gradient_size entries (flat index into theta, value), row by row, each
// row the input's features in the given order and then the bias. Returns the loss.
template <class T>
T model_gradient_sparse(const model_shape& s, const T* theta, sparse_input<T> x, T y, uint32_t* index,
                        T* value) noexcept;

// The prediction: the margin for linear, the class (0 or 1, margin >= 0 gives 1) for logistic, the
// class of the largest margin (the first on ties) for softmax.
template <class T>
[[nodiscard]] T model_predict(const model_shape& s, const T* theta, const T* x) noexcept;

// grad += lambda theta (the regularizer's gradient; d entries) and returns lambda/2 ||theta||^2.
template <class T>
T model_add_l2(const model_shape& s, T lambda, const T* theta, T* grad) noexcept;

}  // namespace ldp::wire

#endif
