#include "ldp/wire/model.h"

#include "ldp/wire/det_math.h"

namespace ldp::wire {

namespace {

// The two input forms behind one interface: the margin of a row, and the walk over its features.
template <class T>
struct dense_view {
  const T* x;
  uint32_t p;
  [[nodiscard]] T margin(const T* row) const noexcept {
    T m = row[p];
    for (uint32_t j = 0; j < p; ++j) m += row[j] * x[j];
    return m;
  }
  template <class F>
  void for_each(F&& f) const noexcept {
    for (uint32_t j = 0; j < p; ++j) f(j, x[j]);
  }
};

template <class T>
struct sparse_view {
  sparse_input<T> x;
  uint32_t p;
  [[nodiscard]] T margin(const T* row) const noexcept {
    T m = row[p];
    for (std::size_t k = 0; k < x.count; ++k) m += row[x.index[k]] * x.value[k];
    return m;
  }
  template <class F>
  void for_each(F&& f) const noexcept {
    for (std::size_t k = 0; k < x.count; ++k) f(x.index[k], x.value[k]);
  }
};

// ln(1 + e^z) without overflow: z + ln(1 + e^-z) for z > 0.
double softplus(double z) noexcept { return z > 0 ? z + det_log(1.0 + det_exp(-z)) : det_log(1.0 + det_exp(z)); }

double sigmoid(double z) noexcept {
  if (z >= 0) return 1.0 / (1.0 + det_exp(-z));
  const double e = det_exp(z);
  return e / (1.0 + e);
}

// ln sum_r e^{s_r}, shifted by the largest margin so that no term overflows.
template <class T, class V>
double log_sum_exp(const model_shape& s, const T* theta, const V& v) noexcept {
  const std::size_t stride = std::size_t{s.features} + 1;
  double top = static_cast<double>(v.margin(theta));
  for (uint32_t r = 1; r < s.classes; ++r) {
    const auto m = static_cast<double>(v.margin(theta + r * stride));
    if (m > top) top = m;
  }
  double sum = 0;
  for (uint32_t r = 0; r < s.classes; ++r) sum += det_exp(static_cast<double>(v.margin(theta + r * stride)) - top);
  return top + det_log(sum);
}

template <class T, class V>
T loss(const model_shape& s, const T* theta, const V& v, T y) noexcept {
  switch (s.kind) {
    case model_kind::linear: {
      const T r = v.margin(theta) - y;
      return r * r / 2;
    }
    case model_kind::logistic: {
      const auto m = static_cast<double>(v.margin(theta));
      return static_cast<T>(softplus(m) - static_cast<double>(y) * m);
    }
    case model_kind::softmax: {
      const auto label = static_cast<uint32_t>(y);
      const auto own = static_cast<double>(v.margin(theta + std::size_t{label} * (std::size_t{s.features} + 1)));
      return static_cast<T>(log_sum_exp(s, theta, v) - own);
    }
  }
  return T(0);
}

// Calls row_residual(r, residual) for every row, and returns the loss.
template <class T, class V, class F>
T residuals(const model_shape& s, const T* theta, const V& v, T y, F&& row_residual) noexcept {
  switch (s.kind) {
    case model_kind::linear: {
      const T r = v.margin(theta) - y;
      row_residual(0u, r);
      return r * r / 2;
    }
    case model_kind::logistic: {
      const auto m = static_cast<double>(v.margin(theta));
      row_residual(0u, static_cast<T>(sigmoid(m) - static_cast<double>(y)));
      return static_cast<T>(softplus(m) - static_cast<double>(y) * m);
    }
    case model_kind::softmax: {
      const std::size_t stride = std::size_t{s.features} + 1;
      const auto label = static_cast<uint32_t>(y);
      const double lse = log_sum_exp(s, theta, v);
      double own = 0;
      for (uint32_t r = 0; r < s.classes; ++r) {
        const auto m = static_cast<double>(v.margin(theta + r * stride));
        if (r == label) own = m;
        row_residual(r, static_cast<T>(det_exp(m - lse) - (r == label ? 1.0 : 0.0)));
      }
      return static_cast<T>(lse - own);
    }
  }
  return T(0);
}

template <class T, class V>
void gradient_add(const model_shape& s, const T* theta, const V& v, T y, T scale, T* acc) noexcept {
  const std::size_t stride = std::size_t{s.features} + 1;
  (void)residuals(s, theta, v, y, [&](uint32_t r, T residual) {
    T* row = acc + r * stride;
    const T c = scale * residual;
    v.for_each([&](uint32_t j, T xj) { row[j] += c * xj; });
    row[s.features] += c;
  });
}

}  // namespace

template <class T>
T model_loss(const model_shape& s, const T* theta, const T* x, T y) noexcept {
  return loss(s, theta, dense_view<T>{x, s.features}, y);
}

template <class T>
T model_loss(const model_shape& s, const T* theta, sparse_input<T> x, T y) noexcept {
  return loss(s, theta, sparse_view<T>{x, s.features}, y);
}

template <class T>
void model_gradient_add(const model_shape& s, const T* theta, const T* x, T y, T scale, T* acc) noexcept {
  gradient_add(s, theta, dense_view<T>{x, s.features}, y, scale, acc);
}

template <class T>
void model_gradient_add(const model_shape& s, const T* theta, sparse_input<T> x, T y, T scale, T* acc) noexcept {
  gradient_add(s, theta, sparse_view<T>{x, s.features}, y, scale, acc);
}

template <class T>
T model_gradient(const model_shape& s, const T* theta, const T* x, T y, T* grad) noexcept {
  const std::size_t stride = std::size_t{s.features} + 1;
  const dense_view<T> v{x, s.features};
  return residuals(s, theta, v, y, [&](uint32_t r, T residual) {
    T* row = grad + r * stride;
    v.for_each([&](uint32_t j, T xj) { row[j] = residual * xj; });
    row[s.features] = residual;
  });
}

template <class T>
T model_gradient_sparse(const model_shape& s, const T* theta, sparse_input<T> x, T y, uint32_t* index,
                        T* value) noexcept {
  const uint32_t stride = s.features + 1;
  const sparse_view<T> v{x, s.features};
  std::size_t at = 0;
  return residuals(s, theta, v, y, [&](uint32_t r, T residual) {
    v.for_each([&](uint32_t j, T xj) {
      index[at] = r * stride + j;
      value[at++] = residual * xj;
    });
    index[at] = r * stride + s.features;
    value[at++] = residual;
  });
}

template <class T>
T model_predict(const model_shape& s, const T* theta, const T* x) noexcept {
  const dense_view<T> v{x, s.features};
  switch (s.kind) {
    case model_kind::linear: return v.margin(theta);
    case model_kind::logistic: return v.margin(theta) >= 0 ? T(1) : T(0);
    case model_kind::softmax: {
      const std::size_t stride = std::size_t{s.features} + 1;
      uint32_t best = 0;
      T top = v.margin(theta);
      for (uint32_t r = 1; r < s.classes; ++r) {
        const T m = v.margin(theta + r * stride);
        if (m > top) {
          top = m;
          best = r;
        }
      }
      return static_cast<T>(best);
    }
  }
  return T(0);
}

template <class T>
T model_add_l2(const model_shape& s, T lambda, const T* theta, T* grad) noexcept {
  const uint64_t d = model_dim(s);
  T squares = 0;
  for (uint64_t i = 0; i < d; ++i) {
    grad[i] += lambda * theta[i];
    squares += theta[i] * theta[i];
  }
  return lambda / 2 * squares;
}

#define LDP_MODEL_INSTANTIATE(T)                                                                                 \
  template T model_loss<T>(const model_shape&, const T*, const T*, T) noexcept;                                  \
  template T model_loss<T>(const model_shape&, const T*, sparse_input<T>, T) noexcept;                           \
  template void model_gradient_add<T>(const model_shape&, const T*, const T*, T, T, T*) noexcept;                \
  template void model_gradient_add<T>(const model_shape&, const T*, sparse_input<T>, T, T, T*) noexcept;         \
  template T model_gradient<T>(const model_shape&, const T*, const T*, T, T*) noexcept;                          \
  template T model_gradient_sparse<T>(const model_shape&, const T*, sparse_input<T>, T, uint32_t*, T*) noexcept; \
  template T model_predict<T>(const model_shape&, const T*, const T*) noexcept;                                  \
  template T model_add_l2<T>(const model_shape&, T, const T*, T*) noexcept;

LDP_MODEL_INSTANTIATE(float)
LDP_MODEL_INSTANTIATE(double)

#undef LDP_MODEL_INSTANTIATE

}  // namespace ldp::wire
