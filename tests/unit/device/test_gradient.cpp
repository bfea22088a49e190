// A user's contribution to a training round (ldp/device/gradient.h, docs/mechanisms.md I.0): the
// average of the first m per-sample gradients, quantized exactly when it is inside the ball; the
// squared norm never above L^2 after quantization (also where rounding alone would pass it); the
// direction kept when clipping; float and double agreeing; stale, corrupt and foreign broadcasts
// refused before anything is written.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ldp/device/gradient.h"

using ldp::span;
using ldp::status;
using ldp::device::gradient_bound;
using ldp::device::user_samples;
using ldp::wire::model_header;
using ldp::wire::model_kind;
using ldp::wire::weight_format;
using bytes = std::vector<unsigned char>;

namespace {

bytes broadcast_of(const model_header& h, const std::vector<double>& theta) {
  bytes out(ldp::wire::model_broadcast_size(h));
  std::size_t written = 0;
  REQUIRE(ldp::wire::encode_model_broadcast(h, theta, out, &written) == status::ok);
  return out;
}

uint64_t squared_norm(const std::vector<int64_t>& q) {
  uint64_t s = 0;
  for (int64_t v : q) s += static_cast<uint64_t>(v * v);
  return s;
}

struct fixture {
  model_header header{{model_kind::softmax, 3, 4}, weight_format::f64, 5};
  std::vector<double> theta;
  bytes broadcast;
  std::vector<double> x, y;
  std::size_t d = 16;

  explicit fixture(std::size_t samples) {
    std::mt19937_64 rng(3);
    std::normal_distribution<double> g(0, 1);
    for (std::size_t i = 0; i < d; ++i) theta.push_back(g(rng) / 2);
    broadcast = broadcast_of(header, theta);
    for (std::size_t k = 0; k < samples; ++k) {
      for (int j = 0; j < 3; ++j) x.push_back(g(rng));
      y.push_back(static_cast<double>(rng() % 4));
    }
  }

  // The average of the first n per-sample gradients, in double, from the model's own formulas.
  std::vector<double> average(std::size_t n) const {
    std::vector<double> acc(d, 0.0), grad(d);
    for (std::size_t k = 0; k < n; ++k) {
      (void)ldp::wire::model_gradient(header.shape, theta.data(), x.data() + 3 * k, y[k], grad.data());
      for (std::size_t i = 0; i < d; ++i) acc[i] += grad[i] / static_cast<double>(n);
    }
    return acc;
  }

  template <class T>
  status run(const gradient_bound& b, std::size_t count, std::vector<int64_t>* out) const {
    std::vector<T> xt(x.begin(), x.end()), yt(y.begin(), y.end()), work(2 * d);
    out->assign(d, 0);
    return ldp::device::user_gradient<T>(broadcast, b, user_samples<T>{xt.data(), yt.data(), count}, work,
                                         span<int64_t>(out->data(), out->size()));
  }
};

}  // namespace

TEST_CASE("inside the ball: the rounded average of the first m samples") {
  const fixture f(12);
  const gradient_bound b{ldp::wire::model_broadcast_digest(f.broadcast), 8, 16, int64_t{100} << 16};  // G = 100
  std::vector<int64_t> out;
  REQUIRE(f.run<double>(b, 12, &out) == status::ok);
  const auto avg = f.average(8);  // samples 9 to 12 are past m
  for (std::size_t i = 0; i < f.d; ++i) CHECK(out[i] == std::llround(avg[i] * 65536));
  std::vector<int64_t> first8;
  REQUIRE(f.run<double>(b, 8, &first8) == status::ok);
  CHECK(first8 == out);
  std::vector<int64_t> fewer;
  REQUIRE(f.run<double>(b, 5, &fewer) == status::ok);  // fewer than m: the average of what there is
  const auto avg5 = f.average(5);
  for (std::size_t i = 0; i < f.d; ++i) CHECK(fewer[i] == std::llround(avg5[i] * 65536));
  // float agrees to float's precision.
  std::vector<int64_t> single;
  REQUIRE(f.run<float>(b, 12, &single) == status::ok);
  for (std::size_t i = 0; i < f.d; ++i) CHECK(std::abs(single[i] - out[i]) <= 4);
}

TEST_CASE("clipped: radius L after quantization, direction kept") {
  const fixture f(8);
  const auto avg = f.average(8);
  double norm = 0;
  for (double v : avg) norm += v * v;
  norm = std::sqrt(norm);
  for (unsigned frac : {0u, 4u, 16u}) {
    for (int64_t l : {int64_t{1}, int64_t{3}, int64_t{7}, int64_t{1000}, int64_t{123457}}) {
      const double g = std::ldexp(static_cast<double>(l), -static_cast<int>(frac));
      if (g >= norm) continue;
      const gradient_bound b{ldp::wire::model_broadcast_digest(f.broadcast), 8, frac, l};
      std::vector<int64_t> out, single;
      REQUIRE(f.run<double>(b, 8, &out) == status::ok);
      REQUIRE(f.run<float>(b, 8, &single) == status::ok);
      INFO("f = " << frac << ", L = " << l);
      CHECK(squared_norm(out) <= static_cast<uint64_t>(l * l));
      CHECK(squared_norm(single) <= static_cast<uint64_t>(l * l));
      // Each entry within sqrt(d) + 1 grid units of G g / ||g|| in grid units (the rounding and the re-clip).
      for (std::size_t i = 0; i < f.d; ++i)
        CHECK(std::fabs(static_cast<double>(out[i]) - avg[i] / norm * static_cast<double>(l)) <= 5.0);
    }
  }
}

TEST_CASE("rounding alone would leave the ball: the integer re-clip") {
  // (0.5, 0.5, 0.5) grid units round to (1, 1, 1), norm sqrt 3 > L = 1 although the real norm is
  // 0.866 < 1: without the re-clip the report would pass the sensitivity bound.
  const float g[] = {0.5f, 0.5f, 0.5f};
  int64_t out[3];
  REQUIRE(ldp::device::clip_and_quantize<float>(g, 0, 1, out) == status::ok);
  CHECK(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] <= 1);
  // Halves round away from zero, signs kept, when nothing passes the ball.
  const double h[] = {2.5, -2.5, 0.25};
  REQUIRE(ldp::device::clip_and_quantize<double>(h, 1, 100, out) == status::ok);
  CHECK(out[0] == 5);
  CHECK(out[1] == -5);
  CHECK(out[2] == 1);  // 0.5 grid units
  // Exhaustively on a small grid: every vector of halves and quarters in [-3, 3]^2, L = 1 .. 4.
  for (int64_t l = 1; l <= 4; ++l) {
    for (int a = -12; a <= 12; ++a) {
      for (int c = -12; c <= 12; ++c) {
        const double v[] = {a / 4.0, c / 4.0};
        int64_t q[2];
        REQUIRE(ldp::device::clip_and_quantize<double>(v, 0, l, q) == status::ok);
        CHECK(q[0] * q[0] + q[1] * q[1] <= l * l);
      }
    }
  }
  // Huge doubles are clipped, not overflowed.
  const double huge[] = {1e307, -1e307, 1e307};  // the norm in grid units overflows a double
  REQUIRE(ldp::device::clip_and_quantize<double>(huge, 8, 1000, out) == status::ok);
  CHECK(out[0] == 577);  // 1000 / sqrt 3, truncated by no re-clip: 577^2 3 < 10^6
  CHECK(out[1] == -577);
}

TEST_CASE("stale, corrupt and foreign models are refused") {
  const fixture f(4);
  const uint64_t digest = ldp::wire::model_broadcast_digest(f.broadcast);
  std::vector<int64_t> out;
  // The next round's broadcast of the same weights.
  fixture next(4);
  next.header.round = 6;
  next.broadcast = broadcast_of(next.header, next.theta);
  CHECK(next.run<double>(gradient_bound{digest, 4, 8, 256}, 4, &out) == status::parameter_mismatch);
  CHECK(squared_norm(out) == 0);  // nothing written
  // A corrupted broadcast with its digest recomputed (a device holding a digest never gets here,
  // but the decoder's status comes through).
  fixture bad(4);
  bad.broadcast[30] ^= 1;
  const uint64_t bad_digest = ldp::wire::model_broadcast_digest(bad.broadcast);
  CHECK(bad.run<double>(gradient_bound{digest, 4, 8, 256}, 4, &out) == status::parameter_mismatch);
  CHECK(bad.run<double>(gradient_bound{bad_digest, 4, 8, 256}, 4, &out) == status::checksum_mismatch);
  bad.broadcast.pop_back();
  CHECK(bad.run<double>(gradient_bound{ldp::wire::model_broadcast_digest(bad.broadcast), 4, 8, 256}, 4, &out) ==
        status::wrong_length);
}

TEST_CASE("argument checks") {
  fixture f(4);
  const uint64_t digest = ldp::wire::model_broadcast_digest(f.broadcast);
  std::vector<int64_t> out;
  CHECK(f.run<double>(gradient_bound{digest, 0, 8, 256}, 4, &out) == status::invalid_argument);  // m = 0
  CHECK(f.run<double>(gradient_bound{digest, 4, 63, 256}, 4, &out) == status::invalid_argument);
  CHECK(f.run<double>(gradient_bound{digest, 4, 8, 0}, 4, &out) == status::invalid_argument);
  CHECK(f.run<double>(gradient_bound{digest, 4, 8, 256}, 0, &out) == status::invalid_argument);
  // d (L + 1)^2 < 2^63 with d = 16: L + 1 < 2^29.5.
  CHECK(f.run<double>(gradient_bound{digest, 4, 8, int64_t{759250123}}, 4, &out) == status::ok);
  CHECK(f.run<double>(gradient_bound{digest, 4, 8, int64_t{759250124}}, 4, &out) == status::invalid_argument);
  std::vector<double> work(2 * f.d - 1);
  std::vector<int64_t> q(f.d);
  const gradient_bound b{digest, 4, 8, 256};
  const user_samples<double> s{f.x.data(), f.y.data(), 4};
  CHECK(ldp::device::user_gradient<double>(f.broadcast, b, s, work, span<int64_t>(q.data(), q.size())) ==
        status::workspace_too_small);
  work.resize(2 * f.d);
  CHECK(ldp::device::user_gradient<double>(f.broadcast, b, s, work, span<int64_t>(q.data(), f.d - 1)) ==
        status::buffer_too_small);
  // Labels the model cannot take: class 4 of 4, a fraction, NaN. Features that are not finite.
  for (double label : {4.0, 1.5, -1.0, std::nan("")}) {
    f.y[2] = label;
    CHECK(f.run<double>(b, 4, &out) == status::invalid_argument);
  }
  f.y[2] = 1;
  f.y[3] = 9;  // past m = 3: never read
  CHECK(f.run<double>(gradient_bound{digest, 3, 8, 256}, 4, &out) == status::ok);
  f.x[1] = INFINITY;
  CHECK(f.run<double>(gradient_bound{digest, 3, 8, 256}, 4, &out) == status::out_of_range);
}

TEST_CASE("logistic labels and a weight past the float range") {
  const model_header h{{model_kind::logistic, 2, 1}, weight_format::f64, 1};
  const bytes b = broadcast_of(h, {1e39, 0, 0});
  const uint64_t digest = ldp::wire::model_broadcast_digest(b);
  const double x[] = {1, 0}, y[] = {1};
  const double y2[] = {2};
  std::vector<int64_t> out(3);
  double work[6];
  float fwork[6];
  const float fx[] = {1, 0}, fy[] = {1};
  CHECK(ldp::device::user_gradient<double>(b, gradient_bound{digest, 1, 8, 256}, user_samples<double>{x, y, 1}, work,
                                           span<int64_t>(out.data(), 3)) == status::ok);
  CHECK(ldp::device::user_gradient<double>(b, gradient_bound{digest, 1, 8, 256}, user_samples<double>{x, y2, 1}, work,
                                           span<int64_t>(out.data(), 3)) == status::invalid_argument);
  CHECK(ldp::device::user_gradient<float>(b, gradient_bound{digest, 1, 8, 256}, user_samples<float>{fx, fy, 1}, fwork,
                                          span<int64_t>(out.data(), 3)) == status::out_of_range);
}

TEST_CASE("sparse samples give the dense samples' contribution") {
  // 3 samples of p = 3 features under the fixture's softmax model, written both ways; sample 1 has
  // no feature at all, sample 2 lists feature 0 twice (0.5 + 0.75).
  fixture f(3);
  f.x = {1.5, 0, -2, 0, 0, 0, 1.25, 0, 3};
  const std::size_t offsets[] = {0, 2, 2, 5};
  const uint32_t index[] = {2, 0, 0, 2, 0};
  const double value[] = {-2, 1.5, 0.5, 3, 0.75};
  const uint64_t digest = ldp::wire::model_broadcast_digest(f.broadcast);
  for (const gradient_bound& b :
       {gradient_bound{digest, 8, 16, int64_t{100} << 16}, gradient_bound{digest, 2, 12, 9}}) {
    std::vector<int64_t> dense;
    REQUIRE(f.run<double>(b, 3, &dense) == status::ok);
    std::vector<int64_t> sparse(f.d);
    std::vector<double> work(2 * f.d);
    const ldp::device::sparse_samples<double> s{offsets, index, value, f.y.data(), 3};
    REQUIRE(ldp::device::user_gradient<double>(f.broadcast, b, s, work, span<int64_t>(sparse.data(), f.d)) ==
            status::ok);
    CHECK(sparse == dense);
  }
  std::vector<int64_t> out(f.d);
  std::vector<double> work(2 * f.d);
  const gradient_bound b{digest, 8, 16, 1 << 16};
  const uint32_t past[] = {2, 0, 3, 2, 0};  // index 3 = p, in sample 2
  CHECK(ldp::device::user_gradient<double>(f.broadcast, b,
                                           ldp::device::sparse_samples<double>{offsets, past, value, f.y.data(), 3},
                                           work, span<int64_t>(out.data(), f.d)) == status::out_of_range);
  const std::size_t backwards[] = {0, 2, 1, 5};
  CHECK(ldp::device::user_gradient<double>(f.broadcast, b,
                                           ldp::device::sparse_samples<double>{backwards, index, value, f.y.data(), 3},
                                           work, span<int64_t>(out.data(), f.d)) == status::invalid_argument);
  const std::size_t shifted[] = {1, 2, 2, 5};
  CHECK(ldp::device::user_gradient<double>(f.broadcast, b,
                                           ldp::device::sparse_samples<double>{shifted, index, value, f.y.data(), 3},
                                           work, span<int64_t>(out.data(), f.d)) == status::invalid_argument);
  CHECK(std::all_of(out.begin(), out.end(), [](int64_t v) { return v == 0; }));  // written only on ok
  CHECK(ldp::device::user_gradient<double>(f.broadcast, gradient_bound{digest, 1, 16, 1 << 16},
                                           ldp::device::sparse_samples<double>{offsets, past, value, f.y.data(), 3},
                                           work, span<int64_t>(out.data(), f.d)) == status::ok);  // past m
}
