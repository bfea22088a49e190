// Training rounds through the C API (ldp.h and ldp_central.h "Training rounds", docs/mechanisms.md
// I.0, I.1): the broadcast encoder gives wire's bytes and peek its header and digest; the dense and
// sparse contributions in float and double give device::user_gradient's vectors; the accountant's
// functions give the C++ numbers; each refuses bad input with the C++ status, and a C header value
// that would wrap into a valid wire byte is refused. The C99 device round of the Cortex-M4 image
// (tests/firmware/training_round.c) runs here on the host.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "ldp.h"
#include "ldp/device/gradient.h"
#include "ldp/server/central/accountant.h"
#include "ldp/server/central/dp_sgd.h"
#include "ldp/wire/model_broadcast.h"
#include "ldp_central.h"
#include "training_round.h"

using ldp::span;
using ldp::status;
using ldp::device::gradient_bound;
namespace wire = ldp::wire;
using bytes = std::vector<uint8_t>;

namespace {

bytes cxx_broadcast(const wire::model_header& h, const std::vector<double>& theta) {
  bytes out(wire::model_broadcast_size(h));
  std::size_t written = 0;
  REQUIRE(wire::encode_model_broadcast(h, theta, span<unsigned char>(out.data(), out.size()), &written) == status::ok);
  return out;
}

bytes c_broadcast(const ldp_model_header& h, const std::vector<double>& theta) {
  bytes out(ldp_model_broadcast_size(&h));
  size_t written = 0;
  REQUIRE(ldp_model_broadcast_encode(&h, theta.data(), theta.size(), out.data(), out.size(), &written) == LDP_OK);
  CHECK(written == out.size());
  return out;
}

ldp_model_header c_header(uint32_t kind, uint32_t p, uint32_t classes, uint32_t format, uint64_t round) {
  return ldp_model_header{kind, p, classes, format, round, 0, 0};
}

std::vector<double> normal_vector(std::size_t n, uint64_t seed, double scale) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> v(n);
  for (double& x : v) x = scale * g(rng);
  return v;
}

// A softmax model (p = 5, C = 3, d = 18) and 6 users' worth of samples, labels 0 .. 2.
struct round_fixture {
  ldp_model_header header = c_header(LDP_MODEL_SOFTMAX, 5, 3, LDP_WEIGHTS_F64, 11);
  std::vector<double> theta = normal_vector(18, 1, 0.7);
  bytes broadcast = c_broadcast(header, theta);
  std::vector<double> x = normal_vector(6 * 5, 2, 1.0);
  std::vector<double> y = {0, 2, 1, 1, 0, 2};
  ldp_gradient_bound bound{wire::model_broadcast_digest(span<const unsigned char>(broadcast.data(), broadcast.size())),
                           4, 12, 1 << 11};  // m = 4 of the 6 samples are read; G = 1/2
};

}  // namespace

TEST_CASE("ldp_model_broadcast_encode writes wire's bytes; peek gives the header, d and the digest") {
  const std::vector<double> logistic_theta = {0.5, -0.25, 1.0, 0.125};
  const std::vector<double> softmax_theta = normal_vector(3 * 9, 4, 2.0);
  struct row {
    ldp_model_header c;
    wire::model_header cxx;
    const std::vector<double>* theta;
  };
  const row rows[] = {
      {c_header(LDP_MODEL_LOGISTIC, 3, 1, LDP_WEIGHTS_F32, 7),
       {{wire::model_kind::logistic, 3, 1}, wire::weight_format::f32, 7},
       &logistic_theta},
      {c_header(LDP_MODEL_LINEAR, 3, 1, LDP_WEIGHTS_F64, 0),
       {{wire::model_kind::linear, 3, 1}, wire::weight_format::f64, 0},
       &logistic_theta},
      {c_header(LDP_MODEL_SOFTMAX, 8, 3, LDP_WEIGHTS_F32, UINT64_MAX),
       {{wire::model_kind::softmax, 8, 3}, wire::weight_format::f32, UINT64_MAX},
       &softmax_theta},
  };
  for (const row& r : rows) {
    CAPTURE(r.c.kind);
    CHECK(ldp_model_broadcast_size(&r.c) == wire::model_broadcast_size(r.cxx));
    const bytes got = c_broadcast(r.c, *r.theta);
    CHECK(got == cxx_broadcast(r.cxx, *r.theta));
    ldp_model_header peeked{};
    REQUIRE(ldp_model_broadcast_peek(got.data(), got.size(), &peeked) == LDP_OK);
    CHECK(peeked.kind == r.c.kind);
    CHECK(peeked.features == r.c.features);
    CHECK(peeked.classes == r.c.classes);
    CHECK(peeked.format == r.c.format);
    CHECK(peeked.round == r.c.round);
    CHECK(peeked.dim == r.theta->size());
    CHECK(peeked.digest == wire::model_broadcast_digest(span<const unsigned char>(got.data(), got.size())));
  }
  // The firmware image's example broadcast is the encoder's (training_round.h states its weights).
  const bytes example = c_broadcast(rows[0].c, logistic_theta);
  CHECK(bytes(training_round_example, training_round_example + TRAINING_ROUND_EXAMPLE_SIZE) == example);
}

TEST_CASE("the broadcast functions refuse what wire refuses, and C values that would wrap") {
  const std::vector<double> theta = {0.5, -0.25, 1.0, 0.125};
  ldp_model_header h = c_header(LDP_MODEL_LOGISTIC, 3, 1, LDP_WEIGHTS_F64, 1);
  bytes out(ldp_model_broadcast_size(&h));
  size_t written = 99;
  // A kind or format whose low byte is valid (257 -> 1, 258 -> 2) is not that kind or format.
  for (const auto& [kind, format] : {std::pair<uint32_t, uint32_t>{257, LDP_WEIGHTS_F64},
                                     {0, LDP_WEIGHTS_F64},
                                     {4, LDP_WEIGHTS_F64},
                                     {LDP_MODEL_LOGISTIC, 258},
                                     {LDP_MODEL_LOGISTIC, 0}}) {
    const ldp_model_header bad = c_header(kind, 3, 1, format, 1);
    CHECK(ldp_model_broadcast_size(&bad) == 0);
    CHECK(ldp_model_broadcast_encode(&bad, theta.data(), 4, out.data(), out.size(), &written) == LDP_INVALID_ARGUMENT);
    CHECK(written == 0);
  }
  const ldp_model_header one_class_softmax = c_header(LDP_MODEL_SOFTMAX, 3, 1, LDP_WEIGHTS_F64, 1);
  CHECK(ldp_model_broadcast_size(&one_class_softmax) == 0);
  CHECK(ldp_model_broadcast_size(nullptr) == 0);
  CHECK(ldp_model_broadcast_encode(&h, theta.data(), 3, out.data(), out.size(), &written) == LDP_INVALID_ARGUMENT);
  const std::vector<double> nan_theta = {0.5, NAN, 1.0, 0.125};
  CHECK(ldp_model_broadcast_encode(&h, nan_theta.data(), 4, out.data(), out.size(), &written) == LDP_INVALID_ARGUMENT);
  const std::vector<double> huge = {0.5, 1e39, 1.0, 0.125};  // finite in binary64, not in binary32
  CHECK(ldp_model_broadcast_encode(&h, huge.data(), 4, out.data(), out.size(), &written) == LDP_OK);
  h.format = LDP_WEIGHTS_F32;
  CHECK(ldp_model_broadcast_encode(&h, huge.data(), 4, out.data(), out.size(), &written) == LDP_INVALID_ARGUMENT);
  h.format = LDP_WEIGHTS_F64;
  CHECK(ldp_model_broadcast_encode(&h, theta.data(), 4, out.data(), out.size() - 1, &written) == LDP_BUFFER_TOO_SMALL);
  CHECK(ldp_model_broadcast_encode(&h, theta.data(), 4, nullptr, 0, &written) == LDP_BUFFER_TOO_SMALL);
  CHECK(ldp_model_broadcast_encode(&h, theta.data(), 4, out.data(), out.size(), nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_model_broadcast_encode(&h, nullptr, 4, out.data(), out.size(), &written) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_model_broadcast_encode(nullptr, theta.data(), 4, out.data(), out.size(), &written) == LDP_INVALID_ARGUMENT);

  // peek: each of wire's refusals, in its order, with the header left as it was.
  const bytes good = c_broadcast(h, theta);
  ldp_model_header peeked{};
  peeked.round = 42;
  const auto peek = [&](const bytes& b) { return ldp_model_broadcast_peek(b.data(), b.size(), &peeked); };
  CHECK(ldp_model_broadcast_peek(good.data(), LDP_MODEL_BROADCAST_MIN_SIZE - 1, &peeked) == LDP_WRONG_LENGTH);
  bytes b = good;
  b[0] ^= 1;
  CHECK(peek(b) == LDP_MALFORMED_REPORT);
  b = good;
  b[4] = 2;
  CHECK(peek(b) == LDP_UNSUPPORTED_VERSION);
  b = good;
  b[7] = 1;
  CHECK(peek(b) == LDP_RESERVED_BITS_SET);
  b = good;
  b[5] = 9;
  CHECK(peek(b) == LDP_INVALID_PARAMETERS);
  b = good;
  b.push_back(0);
  CHECK(peek(b) == LDP_WRONG_LENGTH);
  b = good;
  b[30] ^= 0x10;  // a weight's byte
  CHECK(peek(b) == LDP_CHECKSUM_MISMATCH);
  CHECK(peeked.round == 42);
  CHECK(ldp_model_broadcast_peek(nullptr, 0, &peeked) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_model_broadcast_peek(good.data(), good.size(), nullptr) == LDP_INVALID_ARGUMENT);
}

TEST_CASE("ldp_user_gradient_f32 and _f64: device::user_gradient's vector, and its statuses") {
  const round_fixture f;
  const std::size_t d = f.theta.size();
  const gradient_bound cxx_bound{f.bound.model_digest, f.bound.max_samples, f.bound.frac_bits, f.bound.radius_fixed};
  const span<const unsigned char> b(f.broadcast.data(), f.broadcast.size());
  const std::vector<float> xf(f.x.begin(), f.x.end()), yf(f.y.begin(), f.y.end());
  for (std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{6}}) {
    CAPTURE(count);
    std::vector<int64_t> expected(d), got(d, 7);
    std::vector<double> work(2 * d);
    REQUIRE(ldp::device::user_gradient<double>(b, cxx_bound,
                                               ldp::device::user_samples<double>{f.x.data(), f.y.data(), count}, work,
                                               expected) == status::ok);
    REQUIRE(ldp_user_gradient_f64(f.broadcast.data(), f.broadcast.size(), &f.bound, f.x.data(), f.y.data(), count,
                                  work.data(), work.size(), got.data(), got.size()) == LDP_OK);
    CHECK(got == expected);
    std::vector<float> work_f(2 * d);
    REQUIRE(ldp::device::user_gradient<float>(b, cxx_bound,
                                              ldp::device::user_samples<float>{xf.data(), yf.data(), count}, work_f,
                                              expected) == status::ok);
    std::fill(got.begin(), got.end(), 7);
    REQUIRE(ldp_user_gradient_f32(f.broadcast.data(), f.broadcast.size(), &f.bound, xf.data(), yf.data(), count,
                                  work_f.data(), work_f.size(), got.data(), got.size()) == LDP_OK);
    CHECK(got == expected);
    // Not a zero vector: the comparison above could not pass by both writing nothing.
    CHECK(std::any_of(got.begin(), got.end(), [](int64_t v) { return v != 0; }));
  }

  std::vector<double> work(2 * d);
  std::vector<int64_t> out(d, 5);
  const auto call = [&](const ldp_gradient_bound& bound, const double* y, std::size_t count, std::size_t work_count,
                        std::size_t out_count) {
    return ldp_user_gradient_f64(f.broadcast.data(), f.broadcast.size(), &bound, f.x.data(), y, count, work.data(),
                                 work_count, out.data(), out_count);
  };
  ldp_gradient_bound stale = f.bound;
  stale.model_digest ^= 1;
  CHECK(call(stale, f.y.data(), 6, 2 * d, d) == LDP_PARAMETER_MISMATCH);
  ldp_gradient_bound no_m = f.bound;
  no_m.max_samples = 0;
  CHECK(call(no_m, f.y.data(), 6, 2 * d, d) == LDP_INVALID_ARGUMENT);
  ldp_gradient_bound fine_grid = f.bound;
  fine_grid.frac_bits = 63;
  CHECK(call(fine_grid, f.y.data(), 6, 2 * d, d) == LDP_INVALID_ARGUMENT);
  CHECK(call(f.bound, f.y.data(), 0, 2 * d, d) == LDP_INVALID_ARGUMENT);
  CHECK(call(f.bound, f.y.data(), 6, 2 * d - 1, d) == LDP_WORKSPACE_TOO_SMALL);
  CHECK(call(f.bound, f.y.data(), 6, 2 * d, d - 1) == LDP_BUFFER_TOO_SMALL);
  const std::vector<double> class_three = {0, 1, 3, 0, 0, 0};  // C = 3: class 3 does not exist
  CHECK(call(f.bound, class_three.data(), 6, 2 * d, d) == LDP_INVALID_ARGUMENT);
  const std::vector<double> class_three_late = {0, 1, 2, 0, 3, 0};  // sample 4 is past m = 4: not read
  CHECK(call(f.bound, class_three_late.data(), 6, 2 * d, d) == LDP_OK);
  std::fill(out.begin(), out.end(), 5);
  bytes corrupt = f.broadcast;
  corrupt[40] ^= 1;
  ldp_gradient_bound named = f.bound;  // the digest of the corrupt bytes, so the CRC is what refuses
  named.model_digest = wire::model_broadcast_digest(span<const unsigned char>(corrupt.data(), corrupt.size()));
  CHECK(ldp_user_gradient_f64(corrupt.data(), corrupt.size(), &named, f.x.data(), f.y.data(), 6, work.data(),
                              work.size(), out.data(), out.size()) == LDP_CHECKSUM_MISMATCH);
  CHECK(std::all_of(out.begin(), out.end(), [](int64_t v) { return v == 5; }));  // written only on LDP_OK
  CHECK(ldp_user_gradient_f64(nullptr, 0, &f.bound, f.x.data(), f.y.data(), 6, work.data(), work.size(), out.data(),
                              out.size()) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_user_gradient_f64(f.broadcast.data(), f.broadcast.size(), nullptr, f.x.data(), f.y.data(), 6, work.data(),
                              work.size(), out.data(), out.size()) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_user_gradient_f64(f.broadcast.data(), f.broadcast.size(), &f.bound, nullptr, f.y.data(), 6, work.data(),
                              work.size(), out.data(), out.size()) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_user_gradient_f64(f.broadcast.data(), f.broadcast.size(), &f.bound, f.x.data(), nullptr, 6, work.data(),
                              work.size(), out.data(), out.size()) == LDP_INVALID_ARGUMENT);
  std::vector<float> work_f(2 * d);
  CHECK(ldp_user_gradient_f32(f.broadcast.data(), f.broadcast.size(), &f.bound, xf.data(), yf.data(), 6, nullptr,
                              work_f.size(), out.data(), out.size()) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_user_gradient_f32(f.broadcast.data(), f.broadcast.size(), &f.bound, xf.data(), yf.data(), 6, work_f.data(),
                              work_f.size(), nullptr, out.size()) == LDP_INVALID_ARGUMENT);
  // A binary64 weight beyond float's range decodes in double but not in float.
  std::vector<double> huge = f.theta;
  huge[3] = 1e39;
  const bytes wide = c_broadcast(f.header, huge);
  ldp_gradient_bound wide_bound = f.bound;
  wide_bound.model_digest = wire::model_broadcast_digest(span<const unsigned char>(wide.data(), wide.size()));
  CHECK(ldp_user_gradient_f32(wide.data(), wide.size(), &wide_bound, xf.data(), yf.data(), 6, work_f.data(),
                              work_f.size(), out.data(), out.size()) == LDP_OUT_OF_RANGE);
}

TEST_CASE("the sparse contributions give device::user_gradient's vector, and refuse bad offsets and indices") {
  const round_fixture f;
  const std::size_t d = f.theta.size();
  const gradient_bound cxx_bound{f.bound.model_digest, f.bound.max_samples, f.bound.frac_bits, f.bound.radius_fixed};
  const span<const unsigned char> b(f.broadcast.data(), f.broadcast.size());
  // Five samples of 0 .. 3 features of p = 5; sample 2 is empty and sample 3 lists feature 1 twice.
  const std::vector<size_t> offsets = {0, 2, 5, 5, 7, 8};
  const std::vector<uint32_t> index = {0, 4, 1, 2, 3, 1, 1, 4};
  const std::vector<double> value = {0.5, -1.0, 2.0, 0.25, -0.75, 0.5, 1.5, 1.0};
  const std::vector<double> labels = {2, 0, 1, 2, 1};
  const std::vector<float> value_f(value.begin(), value.end()), labels_f(labels.begin(), labels.end());
  std::vector<int64_t> expected(d), got(d);
  std::vector<double> work(2 * d);
  std::vector<float> work_f(2 * d);
  REQUIRE(ldp::device::user_gradient<double>(
              b, cxx_bound,
              ldp::device::sparse_samples<double>{offsets.data(), index.data(), value.data(), labels.data(), 5}, work,
              expected) == status::ok);
  REQUIRE(ldp_user_gradient_sparse_f64(f.broadcast.data(), f.broadcast.size(), &f.bound, offsets.data(), index.data(),
                                       value.data(), labels.data(), 5, work.data(), work.size(), got.data(),
                                       got.size()) == LDP_OK);
  CHECK(got == expected);
  CHECK(std::any_of(got.begin(), got.end(), [](int64_t v) { return v != 0; }));
  REQUIRE(ldp::device::user_gradient<float>(
              b, cxx_bound,
              ldp::device::sparse_samples<float>{offsets.data(), index.data(), value_f.data(), labels_f.data(), 5},
              work_f, expected) == status::ok);
  REQUIRE(ldp_user_gradient_sparse_f32(f.broadcast.data(), f.broadcast.size(), &f.bound, offsets.data(), index.data(),
                                       value_f.data(), labels_f.data(), 5, work_f.data(), work_f.size(), got.data(),
                                       got.size()) == LDP_OK);
  CHECK(got == expected);

  const auto call = [&](const std::vector<size_t>& o, const std::vector<uint32_t>& i) {
    return ldp_user_gradient_sparse_f64(f.broadcast.data(), f.broadcast.size(), &f.bound, o.data(), i.data(),
                                        value.data(), labels.data(), 5, work.data(), work.size(), got.data(),
                                        got.size());
  };
  CHECK(call({1, 2, 5, 5, 7, 8}, index) == LDP_INVALID_ARGUMENT);      // offsets[0] != 0
  CHECK(call({0, 2, 5, 4, 7, 8}, index) == LDP_INVALID_ARGUMENT);      // decreasing within the first m
  CHECK(call(offsets, {0, 4, 1, 5, 3, 1, 1, 4}) == LDP_OUT_OF_RANGE);  // index 5 = p
  CHECK(call(offsets, {0, 4, 1, 2, 3, 1, 1, 5}) == LDP_OK);            // sample 4 is past m = 4: not read
  CHECK(ldp_user_gradient_sparse_f64(f.broadcast.data(), f.broadcast.size(), &f.bound, nullptr, index.data(),
                                     value.data(), labels.data(), 5, work.data(), work.size(), got.data(),
                                     got.size()) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_user_gradient_sparse_f32(f.broadcast.data(), f.broadcast.size(), &f.bound, offsets.data(), nullptr,
                                     value_f.data(), labels_f.data(), 5, work_f.data(), work_f.size(), got.data(),
                                     got.size()) == LDP_INVALID_ARGUMENT);
}

TEST_CASE("the accountant through the C API: the C++ numbers, and sigma2_for is the smallest that fits") {
  CHECK(ldp_dp_sgd_clip_units(1.0, 16) == 65536);
  CHECK(ldp_dp_sgd_clip_units(0.3, 10) == ldp::server::dp_sgd_clip_units(0.3, 10));
  CHECK(ldp_dp_sgd_clip_units(-1.0, 10) == 0);
  for (const auto& row : {std::tuple<double, double, uint64_t, double, uint32_t>{1.0, 1e-6, 100, 1.0, 16},
                          {0.5, 1e-5, 1, 0.5, 12},
                          {8.0, 1e-6, 1000, 2.0, 8}}) {
    // Named copies, not a structured binding: clang 14 cannot capture bindings in CAPTURE's lambda.
    const double epsilon = std::get<0>(row), delta = std::get<1>(row), clip = std::get<3>(row);
    const uint64_t steps = std::get<2>(row);
    const uint32_t f = std::get<4>(row);
    CAPTURE(epsilon);
    const uint64_t sigma2 = ldp_dp_sgd_sigma2_for(epsilon, delta, steps, clip, f);
    CHECK(sigma2 == ldp::server::dp_sgd_sigma2_for(epsilon, delta, steps, clip, f));
    REQUIRE(sigma2 > 1);
    const double sensitivity = 2.0 * static_cast<double>(ldp_dp_sgd_clip_units(clip, f));
    const double rho = ldp_discrete_gaussian_rho(sensitivity, static_cast<double>(sigma2), steps);
    CHECK(rho == ldp::server::discrete_gaussian_rho(sensitivity, static_cast<double>(sigma2), steps));
    CHECK(rho == doctest::Approx(static_cast<double>(steps) * sensitivity * sensitivity /
                                 (2.0 * static_cast<double>(sigma2))));
    CHECK(ldp_zcdp_to_epsilon(rho, delta) == ldp::server::zcdp_to_epsilon(rho, delta));
    CHECK(ldp_zcdp_to_epsilon(rho, delta) <= epsilon);
    const double rho_less = ldp_discrete_gaussian_rho(sensitivity, static_cast<double>(sigma2 - 1), steps);
    CHECK(ldp_zcdp_to_epsilon(rho_less, delta) > epsilon);
  }
  // Bun-Steinke's simple bound rho + 2 sqrt(rho ln(1/delta)) is above the tight conversion.
  CHECK(ldp_zcdp_to_epsilon(0.5, 1e-6) < 0.5 + 2 * std::sqrt(0.5 * std::log(1e6)));
  CHECK(ldp_dp_sgd_sigma2_for(0.0, 1e-6, 10, 1.0, 16) == 0);
  CHECK(ldp_dp_sgd_sigma2_for(1.0, 1.0, 10, 1.0, 16) == 0);
  CHECK(ldp_dp_sgd_sigma2_for(1.0, 1e-6, 0, 1.0, 16) == 0);
  CHECK(std::isnan(ldp_discrete_gaussian_rho(1.0, 0.0, 1)));
}

TEST_CASE("the C99 device round of the Cortex-M4 image: ldp_user_gradient_f32's vector, and its codes") {
  const ldp_model_header h = c_header(LDP_MODEL_LOGISTIC, 3, 1, LDP_WEIGHTS_F32, 7);
  const bytes b(training_round_example, training_round_example + TRAINING_ROUND_EXAMPLE_SIZE);
  ldp_model_header peeked{};
  REQUIRE(ldp_model_broadcast_peek(b.data(), b.size(), &peeked) == LDP_OK);
  CHECK(peeked.round == h.round);
  const ldp_gradient_bound bound{peeked.digest, 2, 16, 1 << 16};
  const float x[] = {0.25f, 1.0f, 0.5f, 0.75f, 0.0f, 1.0f};
  const float y[] = {1.0f, 0.0f};
  std::vector<int64_t> expected(4), got(4);
  std::vector<float> work(8);
  REQUIRE(ldp_user_gradient_f32(b.data(), b.size(), &bound, x, y, 2, work.data(), work.size(), expected.data(), 4) ==
          LDP_OK);
  ldp_status s = LDP_UNSUPPORTED;
  CHECK(training_round(b.data(), b.size(), &bound, x, y, 2, got.data(), got.size(), &s) == TRAINING_ROUND_OK);
  CHECK(s == LDP_OK);
  CHECK(got == expected);
  CHECK(training_round(b.data(), b.size() - 1, &bound, x, y, 2, got.data(), got.size(), &s) ==
        TRAINING_ROUND_BROADCAST);
  CHECK(s == LDP_WRONG_LENGTH);
  CHECK(training_round(b.data(), b.size(), &bound, x, y, 2, got.data(), 3, &s) == TRAINING_ROUND_TOO_LARGE);
  ldp_gradient_bound stale = bound;
  stale.model_digest += 1;
  CHECK(training_round(b.data(), b.size(), &stale, x, y, 2, got.data(), got.size(), &s) == TRAINING_ROUND_GRADIENT);
  CHECK(s == LDP_PARAMETER_MISMATCH);
}
