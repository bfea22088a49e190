// The models of private training (ldp/wire/model.h, docs/mechanisms.md I.0): losses at hand-computed
// points, every gradient against central finite differences of its loss (float and double), the
// sparse form against the dense one, accumulation, prediction, the regularizer, and large margins.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ldp/wire/model.h"

using ldp::wire::model_dim;
using ldp::wire::model_kind;
using ldp::wire::model_shape;
using ldp::wire::sparse_input;

namespace {

const model_shape shapes[] = {{model_kind::linear, 5, 1}, {model_kind::logistic, 5, 1}, {model_kind::softmax, 5, 4}};

template <class T>
T label_for(const model_shape& s, std::mt19937_64& rng) {
  switch (s.kind) {
    case model_kind::linear: return static_cast<T>(std::normal_distribution<double>(0, 1)(rng));
    case model_kind::logistic: return static_cast<T>(rng() % 2);
    case model_kind::softmax: return static_cast<T>(rng() % s.classes);
  }
  return T(0);
}

template <class T>
std::vector<T> normals(std::size_t n, double sd, std::mt19937_64& rng) {
  std::normal_distribution<double> g(0, sd);
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(g(rng));
  return v;
}

// Every entry of the gradient against (L(theta + h e_i) - L(theta - h e_i)) / 2h.
template <class T>
void check_finite_differences(T h, double tolerance) {
  std::mt19937_64 rng(15);
  for (const auto& s : shapes) {
    const auto d = static_cast<std::size_t>(model_dim(s));
    for (int trial = 0; trial < 20; ++trial) {
      auto theta = normals<T>(d, 0.7, rng);
      const auto x = normals<T>(s.features, 1.0, rng);
      const T y = label_for<T>(s, rng);
      std::vector<T> grad(d);
      const T value = ldp::wire::model_gradient(s, theta.data(), x.data(), y, grad.data());
      CHECK(value == ldp::wire::model_loss(s, theta.data(), x.data(), y));
      for (std::size_t i = 0; i < d; ++i) {
        const T keep = theta[i];
        theta[i] = keep + h;
        const double up = ldp::wire::model_loss(s, theta.data(), x.data(), y);
        theta[i] = keep - h;
        const double down = ldp::wire::model_loss(s, theta.data(), x.data(), y);
        theta[i] = keep;
        const double numeric = (up - down) / (2 * static_cast<double>(h));
        INFO("kind " << static_cast<int>(s.kind) << " entry " << i);
        CHECK(static_cast<double>(grad[i]) == doctest::Approx(numeric).epsilon(tolerance).scale(1.0));
      }
    }
  }
}

}  // namespace

TEST_CASE("the losses at hand-computed points") {
  // p = 2, theta = (1, -2, 0.5): margin at x = (0.5, 0.25) is 0.5 - 0.5 + 0.5 = 0.5.
  const double theta[] = {1, -2, 0.5}, x[] = {0.5, 0.25};
  const model_shape lin{model_kind::linear, 2, 1}, logi{model_kind::logistic, 2, 1};
  CHECK(ldp::wire::model_loss(lin, theta, x, 2.0) == doctest::Approx(1.125).epsilon(1e-15));
  CHECK(ldp::wire::model_loss(logi, theta, x, 1.0) == doctest::Approx(std::log1p(std::exp(-0.5))).epsilon(1e-14));
  CHECK(ldp::wire::model_loss(logi, theta, x, 0.0) == doctest::Approx(std::log1p(std::exp(0.5))).epsilon(1e-14));
  double grad[3];
  (void)ldp::wire::model_gradient(lin, theta, x, 2.0, grad);
  CHECK(grad[0] == -0.75);
  CHECK(grad[1] == -0.375);
  CHECK(grad[2] == -1.5);
  // Softmax, C = 3, p = 1: rows (1, 0), (0, 1), (-1, 0) at x = 2: margins 2, 1, -2.
  const model_shape soft{model_kind::softmax, 1, 3};
  const double w3[] = {1, 0, 0, 1, -1, 0}, x1[] = {2};
  const double lse = std::log(std::exp(2.0) + std::exp(1.0) + std::exp(-2.0));
  CHECK(ldp::wire::model_loss(soft, w3, x1, 1.0) == doctest::Approx(lse - 1).epsilon(1e-14));
  double g3[6];
  (void)ldp::wire::model_gradient(soft, w3, x1, 1.0, g3);
  CHECK(g3[2] == doctest::Approx(2 * (std::exp(1.0 - lse) - 1)).epsilon(1e-14));  // row 1, x coefficient
  CHECK(g3[3] == doctest::Approx(std::exp(1.0 - lse) - 1).epsilon(1e-14));        // row 1, bias
  CHECK(g3[4] == doctest::Approx(2 * std::exp(-2.0 - lse)).epsilon(1e-14));
}

TEST_CASE("gradients match finite differences (double)") { check_finite_differences<double>(1e-5, 1e-7); }

TEST_CASE("gradients match finite differences (float)") { check_finite_differences<float>(1e-2f, 2e-3); }

TEST_CASE("the sparse form equals the dense one") {
  std::mt19937_64 rng(7);
  for (const auto& s0 : shapes) {
    model_shape s = s0;
    s.features = 12;
    const auto d = static_cast<std::size_t>(model_dim(s));
    const auto theta = normals<double>(d, 0.5, rng);
    const uint32_t index[] = {9, 2, 5};  // not sorted: the order given is the order written
    const double value[] = {0.5, -1.25, 2.0};
    std::vector<double> x(s.features, 0.0);
    for (int k = 0; k < 3; ++k) x[index[k]] = value[k];
    const double y = label_for<double>(s, rng);
    std::vector<double> dense(d);
    const double loss = ldp::wire::model_gradient(s, theta.data(), x.data(), y, dense.data());
    const sparse_input<double> in{index, value, 3};
    CHECK(ldp::wire::model_loss(s, theta.data(), in, y) == doctest::Approx(loss).epsilon(1e-15));
    const auto n = static_cast<std::size_t>(ldp::wire::sparse_gradient_size(s, 3));
    CHECK(n == ldp::wire::model_rows(s) * 4u);
    std::vector<uint32_t> at(n);
    std::vector<double> val(n);
    CHECK(ldp::wire::model_gradient_sparse(s, theta.data(), in, y, at.data(), val.data()) ==
          doctest::Approx(loss).epsilon(1e-15));
    std::vector<double> scattered(d, 0.0);
    for (std::size_t k = 0; k < n; ++k) {
      CHECK(scattered[at[k]] == 0.0);  // every entry written once
      scattered[at[k]] = val[k];
    }
    for (std::size_t i = 0; i < d; ++i) CHECK(scattered[i] == doctest::Approx(dense[i]).epsilon(1e-15));
    CHECK(at[0] == 9);
    CHECK(at[3] == 12);  // the bias of row 0
  }
}

TEST_CASE("accumulation adds the scaled gradient") {
  std::mt19937_64 rng(8);
  for (const auto& s : shapes) {
    const auto d = static_cast<std::size_t>(model_dim(s));
    const auto theta = normals<float>(d, 0.5, rng);
    const auto x = normals<float>(s.features, 1.0, rng);
    const float y = label_for<float>(s, rng);
    std::vector<float> grad(d), acc(d, 1.0f);
    (void)ldp::wire::model_gradient(s, theta.data(), x.data(), y, grad.data());
    ldp::wire::model_gradient_add(s, theta.data(), x.data(), y, 0.25f, acc.data());
    for (std::size_t i = 0; i < d; ++i) CHECK(acc[i] == doctest::Approx(1.0f + 0.25f * grad[i]).epsilon(1e-6));
    // The sparse input of the same x: the same accumulation.
    std::vector<uint32_t> index(s.features);
    for (uint32_t j = 0; j < s.features; ++j) index[j] = s.features - 1 - j;
    std::vector<float> value(s.features);
    for (uint32_t j = 0; j < s.features; ++j) value[j] = x[index[j]];
    std::vector<float> sparse_acc(d, 1.0f);
    ldp::wire::model_gradient_add(s, theta.data(), sparse_input<float>{index.data(), value.data(), s.features}, y,
                                  0.25f, sparse_acc.data());
    for (std::size_t i = 0; i < d; ++i) CHECK(sparse_acc[i] == doctest::Approx(acc[i]).epsilon(1e-6));
  }
}

TEST_CASE("prediction and the regularizer") {
  const double theta[] = {1, -2, 0.5}, x[] = {0.5, 0.25}, far[] = {0, 1};
  CHECK(ldp::wire::model_predict(model_shape{model_kind::linear, 2, 1}, theta, x) == 0.5);
  CHECK(ldp::wire::model_predict(model_shape{model_kind::logistic, 2, 1}, theta, x) == 1.0);
  CHECK(ldp::wire::model_predict(model_shape{model_kind::logistic, 2, 1}, theta, far) == 0.0);
  const model_shape soft{model_kind::softmax, 1, 3};
  const double w3[] = {1, 0, 0, 1, -1, 0}, two[] = {2}, minus[] = {-2}, half[] = {1};
  CHECK(ldp::wire::model_predict(soft, w3, two) == 0.0);
  CHECK(ldp::wire::model_predict(soft, w3, minus) == 2.0);
  CHECK(ldp::wire::model_predict(soft, w3, half) == 0.0);  // rows 0 and 1 tie at 1: the first wins
  double grad[] = {1, 1, 1};
  CHECK(ldp::wire::model_add_l2(model_shape{model_kind::linear, 2, 1}, 0.5, theta, grad) == 0.25 * 5.25);
  CHECK(grad[0] == 1.5);
  CHECK(grad[1] == 0.0);
  CHECK(grad[2] == 1.25);
}

TEST_CASE("large margins stay finite") {
  const double theta[] = {400, 0}, x[] = {2};  // margin 800: e^800 overflows a double
  const model_shape logi{model_kind::logistic, 1, 1};
  CHECK(ldp::wire::model_loss(logi, theta, x, 0.0) == doctest::Approx(800).epsilon(1e-15));
  CHECK(ldp::wire::model_loss(logi, theta, x, 1.0) == doctest::Approx(0).scale(1e-300));
  double grad[2];
  (void)ldp::wire::model_gradient(logi, theta, x, 0.0, grad);
  CHECK(grad[0] == 2.0);
  const double minus[] = {-2};
  (void)ldp::wire::model_gradient(logi, theta, minus, 1.0, grad);
  CHECK(grad[0] == 2.0);  // sigmoid(-800) - 1 = -1, times -2
  const model_shape soft{model_kind::softmax, 1, 2};
  const double w2[] = {500, 0, -500, 0};
  CHECK(ldp::wire::model_loss(soft, w2, x, 1.0) == doctest::Approx(2000).epsilon(1e-15));
  CHECK(std::isfinite(ldp::wire::model_loss(soft, w2, x, 0.0)));
}
