// The server's last step of Wang et al.'s mechanisms through the C API (ldp_server.h:
// ldp_server_bernstein_minimize, ldp_server_glm_train, ldp_server_marginal, ldp_server_conjunction,
// ldp_server_smooth_query_values, ldp_server_smooth_query; docs/c_api.md): device -> wire -> server
// -> estimate in C, each result equal to the C++ library's on the same aggregator (its saved state
// read back by ldp::server::aggregator), and the documented refusals.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ldp.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/bernstein.h"
#include "ldp/server/glm.h"
#include "ldp/server/marginals.h"
#include "ldp/server/public_coin.h"
#include "ldp/server/smooth_queries.h"
#include "ldp_server.h"

namespace {

using ldp::status;
namespace server = ldp::server;

const uint8_t rng_seed[LDP_SEED_SIZE] = {0x0e, 0x14, 0xca};
const uint8_t public_seed[LDP_SEED_SIZE] = {0x39, 0x40};

// The device's call for user i: writes a report into out.
using device_call = std::function<ldp_status(uint32_t user, ldp_rng* rng, void* workspace, size_t workspace_size,
                                             uint8_t* out, size_t capacity, size_t* written)>;

// A C aggregator of `users` reports of the block written by the C device API, and the C++
// aggregator of its saved state.
struct fleet {
  ldp_aggregator* c = nullptr;
  std::unique_ptr<server::aggregator> cxx;

  fleet(const ldp_params& p, uint32_t users, const device_call& device) {
    REQUIRE(ldp_aggregator_create(&p, &c) == LDP_OK);
    ldp_rng rng;
    REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
    std::vector<uint64_t> workspace(ldp_workspace_size(&p) / 8 + 1);
    std::vector<uint8_t> report(ldp_report_max_size(&p));
    for (uint32_t i = 0; i < users; ++i) {
      size_t written = 0;
      REQUIRE(device(i, &rng, workspace.data(), workspace.size() * 8, report.data(), report.size(), &written) ==
              LDP_OK);
      REQUIRE(ldp_aggregator_add_report(c, report.data(), written) == LDP_OK);
    }
    size_t size = 0;
    REQUIRE(ldp_aggregator_serialize(c, nullptr, 0, &size) == LDP_BUFFER_TOO_SMALL);
    std::vector<uint8_t> state(size);
    REQUIRE(ldp_aggregator_serialize(c, state.data(), state.size(), &size) == LDP_OK);
    REQUIRE(server::aggregator::deserialize(state, &cxx) == status::ok);
  }
  fleet(const fleet&) = delete;
  fleet& operator=(const fleet&) = delete;
  ~fleet() { ldp_aggregator_free(c); }
};

// A bernstein fleet: p features, grid k, squared loss, user i's example from a fixed pattern.
ldp_params bernstein_block(uint32_t p, uint32_t k) {
  ldp_params out;
  REQUIRE(ldp_params_bernstein(&out, p, k, LDP_LOSS_SQUARED, 16, 4.0) == LDP_OK);
  return out;
}

device_call bernstein_device(const ldp_params* p, uint32_t dim) {
  return [p, dim](uint32_t i, ldp_rng* rng, void* ws, size_t wss, uint8_t* out, size_t cap, size_t* written) {
    std::vector<double> x(dim);
    for (uint32_t j = 0; j < dim; ++j) x[j] = static_cast<double>((i * 7 + j * 3) % 11) / 10;
    return ldp_randomize_bernstein(p, rng, x.data(), dim, static_cast<double>(i % 5) / 4, ws, wss, out, cap, written);
  };
}

// The C++ path of the learners (tools/ldp/train_wang.cpp's fit_surrogate): coefficients, minimizer,
// standard deviation.
struct surrogate_fit {
  server::box_minimum best;
  double sd = 0;
};

surrogate_fit cxx_surrogate(server::bernstein_grid g, uint32_t h, const server::grid_estimate& e, uint64_t seed) {
  const std::vector<double> coefficients = server::bernstein_coefficients(g, h, e.value);
  REQUIRE(!coefficients.empty());
  surrogate_fit out;
  out.best = server::minimize_on_box(
      g.p, [&](const double* w) { return server::bernstein_value(g, coefficients, w); }, seed);
  out.sd = std::sqrt(server::bernstein_variance(g, h, e.variance, out.best.w.data()));
  return out;
}

void check_same_fit(const std::vector<double>& w, double minimum, double sd, const surrogate_fit& cxx) {
  REQUIRE(w.size() == cxx.best.w.size());
  for (std::size_t j = 0; j < w.size(); ++j) CHECK(w[j] == cxx.best.w[j]);
  CHECK(minimum == cxx.best.value);
  CHECK(sd == cxx.sd);
}

}  // namespace

TEST_CASE("ldp_server_bernstein_minimize on a bernstein aggregator is the C++ surrogate's minimum") {
  // p = 1 (dense grid) and p = 4 (multistart: the seed matters), orders 1 and 3.
  for (const uint32_t dim : {1u, 4u}) {
    const uint32_t k = dim == 1 ? 8 : 2;
    const ldp_params p = bernstein_block(dim, k);
    fleet f(p, 300, bernstein_device(&p, dim));
    const std::vector<server::estimate> coordinates = f.cxx->estimate_all();
    const server::grid_estimate e = server::to_grid_estimate(coordinates);
    for (const uint32_t h : {1u, 3u}) {
      for (const uint64_t seed : {5u, 6u}) {
        CAPTURE(dim);
        CAPTURE(h);
        CAPTURE(seed);
        std::vector<double> w(dim);
        double minimum = 0, sd = 0;
        REQUIRE(ldp_server_bernstein_minimize(f.c, h, LDP_COIN_HORVITZ_THOMPSON, seed, w.data(), w.size(), &minimum,
                                              &sd) == LDP_OK);
        check_same_fit(w, minimum, sd, cxx_surrogate({dim, k}, h, e, seed));
        CHECK(sd > 0);
      }
    }
  }
}

TEST_CASE("ldp_server_bernstein_minimize on public-coin aggregators uses the estimator asked for") {
  for (const ldp_mechanism m : {LDP_MECH_BERNSTEIN_1BIT, LDP_MECH_BERNSTEIN_GENPROT}) {
    ldp_params p;
    REQUIRE(ldp_params_public_coin(&p, m, 1, 3, LDP_LOSS_SQUARED, 400, 8, 4, 2.0, public_seed) == LDP_OK);
    fleet f(p, 400, [&p](uint32_t i, ldp_rng* rng, void* ws, size_t wss, uint8_t* out, size_t cap, size_t* written) {
      const double x = static_cast<double>(i % 10) / 9;
      return ldp_randomize_public_coin(&p, rng, i, &x, 1, 0.3, ws, wss, out, cap, written);
    });
    for (const server::coin_estimator e : {server::coin_estimator::horvitz_thompson, server::coin_estimator::ratio}) {
      CAPTURE(static_cast<int>(m));
      CAPTURE(static_cast<int>(e));
      server::grid_estimate g;
      REQUIRE(server::grid_estimate_of(*f.cxx, e, &g) == status::ok);
      double w = -1, minimum = 0, sd = 0;
      const uint32_t c_estimator = e == server::coin_estimator::ratio ? LDP_COIN_RATIO : LDP_COIN_HORVITZ_THOMPSON;
      REQUIRE(ldp_server_bernstein_minimize(f.c, 2, c_estimator, 9, &w, 1, &minimum, &sd) == LDP_OK);
      check_same_fit({w}, minimum, sd, cxx_surrogate({1, 3}, 2, g, 9));
    }
  }
}

TEST_CASE("ldp_server_bernstein_minimize refusals") {
  const ldp_params p = bernstein_block(2, 2);
  fleet f(p, 20, bernstein_device(&p, 2));
  double w[2] = {-1, -1}, minimum = -1, sd = -1;
  CHECK(ldp_server_bernstein_minimize(nullptr, 1, 0, 0, w, 2, &minimum, &sd) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_bernstein_minimize(f.c, 1, 0, 0, nullptr, 2, &minimum, &sd) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_bernstein_minimize(f.c, 1, 0, 0, w, 2, nullptr, &sd) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_bernstein_minimize(f.c, 1, 0, 0, w, 2, &minimum, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_bernstein_minimize(f.c, 0, 0, 0, w, 2, &minimum, &sd) == LDP_INVALID_ARGUMENT);   // order 0
  CHECK(ldp_server_bernstein_minimize(f.c, 33, 0, 0, w, 2, &minimum, &sd) == LDP_INVALID_ARGUMENT);  // order 33
  CHECK(ldp_server_bernstein_minimize(f.c, 1, 2, 0, w, 2, &minimum, &sd) == LDP_INVALID_ARGUMENT);   // estimator
  CHECK(ldp_server_bernstein_minimize(f.c, 1, 0, 0, w, 1, &minimum, &sd) == LDP_BUFFER_TOO_SMALL);   // p = 2
  CHECK(w[0] == -1);
  CHECK(minimum == -1);
  ldp_params other;
  REQUIRE(ldp_params_kway_marginals(&other, 3, 2, 8, 1.0) == LDP_OK);
  ldp_aggregator* a = nullptr;
  REQUIRE(ldp_aggregator_create(&other, &a) == LDP_OK);
  CHECK(ldp_server_bernstein_minimize(a, 1, 0, 0, w, 2, &minimum, &sd) == LDP_INVALID_PARAMETERS);
  ldp_aggregator_free(a);
  CHECK(ldp_server_bernstein_minimize(f.c, 32, 0, 0, w, 2, &minimum, &sd) == LDP_OK);
}

namespace {

// A glm-copies fleet: p = 2 features, label the sign of x_0 - x_1.
struct glm_fleet {
  ldp_params p;
  std::unique_ptr<fleet> f;

  explicit glm_fleet(uint32_t users) {
    REQUIRE(ldp_params_glm_copies(&p, 2.0, 1e-6, 2, 2, 0) == LDP_OK);
    f = std::make_unique<fleet>(
        p, users, [this](uint32_t i, ldp_rng* rng, void* ws, size_t wss, uint8_t* out, size_t cap, size_t* written) {
          int64_t x[2];
          REQUIRE(ldp_params_to_fixed(&p, static_cast<double>(i % 7) / 6, &x[0]) == LDP_OK);
          REQUIRE(ldp_params_to_fixed(&p, static_cast<double>(i % 5) / 4, &x[1]) == LDP_OK);
          int64_t label = 0;
          REQUIRE(ldp_params_to_fixed(&p, x[0] >= x[1] ? 1.0 : -1.0, &label) == LDP_OK);
          return ldp_randomize_glm(&p, rng, x, 2, label, ws, wss, out, cap, written);
        });
  }
};

}  // namespace

TEST_CASE("ldp_server_glm_train is glm_train with the options passed on") {
  glm_fleet g(200);
  ldp_glm_options o;
  ldp_glm_options_default(&o);
  const server::glm_options d;
  CHECK(o.loss == static_cast<uint32_t>(d.loss));
  CHECK(o.smoothing == d.smoothing);
  CHECK(o.steps == d.steps);
  CHECK(o.seed == d.seed);
  for (const uint32_t loss : {static_cast<uint32_t>(LDP_LOSS_LOGISTIC), static_cast<uint32_t>(LDP_LOSS_HINGE)}) {
    for (const double smoothing : {0.0, 0.3}) {
      CAPTURE(loss);
      CAPTURE(smoothing);
      o.loss = loss;
      o.smoothing = smoothing;
      o.steps = 150;
      o.seed = 77;
      double w[2] = {-1, -1};
      ldp_glm_fit fit;
      REQUIRE(ldp_server_glm_train(g.f->c, &o, w, 2, &fit) == LDP_OK);
      server::glm_options cxx_o;
      cxx_o.loss = static_cast<ldp::wire::loss_kind>(loss);
      cxx_o.smoothing = smoothing;
      cxx_o.steps = 150;
      cxx_o.seed = 77;
      server::glm_result r;
      REQUIRE(server::glm_train(*g.f->cxx, cxx_o, &r) == status::ok);
      CHECK(w[0] == r.w[0]);
      CHECK(w[1] == r.w[1]);
      CHECK(fit.smoothing == r.smoothing);
      CHECK(fit.steps == r.steps);
      CHECK(fit.spread == r.spread);
      CHECK(fit.epsilon == r.epsilon);
      CHECK(fit.delta == r.delta);
    }
  }
  // NULL options are the defaults; NULL fit is allowed.
  double w[2] = {-1, -1};
  REQUIRE(ldp_server_glm_train(g.f->c, nullptr, w, 2, nullptr) == LDP_OK);
  server::glm_result r;
  REQUIRE(server::glm_train(*g.f->cxx, server::glm_options{}, &r) == status::ok);
  CHECK(w[0] == r.w[0]);
  CHECK(w[1] == r.w[1]);
}

TEST_CASE("ldp_server_glm_train refusals") {
  glm_fleet g(10);
  ldp_glm_options o;
  ldp_glm_options_default(&o);
  double w[2] = {-1, -1};
  CHECK(ldp_server_glm_train(nullptr, &o, w, 2, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_glm_train(g.f->c, &o, nullptr, 2, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_glm_train(g.f->c, &o, w, 1, nullptr) == LDP_BUFFER_TOO_SMALL);
  o.loss = LDP_LOSS_SQUARED;
  CHECK(ldp_server_glm_train(g.f->c, &o, w, 2, nullptr) == LDP_INVALID_ARGUMENT);
  o.loss = LDP_LOSS_HINGE;
  o.smoothing = -0.5;
  CHECK(ldp_server_glm_train(g.f->c, &o, w, 2, nullptr) == LDP_INVALID_ARGUMENT);
  o.smoothing = INFINITY;
  CHECK(ldp_server_glm_train(g.f->c, &o, w, 2, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(w[0] == -1);
  ldp_aggregator* empty = nullptr;
  REQUIRE(ldp_aggregator_create(&g.p, &empty) == LDP_OK);
  CHECK(ldp_server_glm_train(empty, nullptr, w, 2, nullptr) == LDP_INVALID_ARGUMENT);  // no reports
  ldp_aggregator_free(empty);
  const ldp_params b = bernstein_block(2, 2);
  ldp_aggregator* other = nullptr;
  REQUIRE(ldp_aggregator_create(&b, &other) == LDP_OK);
  CHECK(ldp_server_glm_train(other, nullptr, w, 2, nullptr) == LDP_INVALID_PARAMETERS);
  ldp_aggregator_free(other);
}

namespace {

ldp_params marginals_block() {
  ldp_params p;
  REQUIRE(ldp_params_kway_marginals(&p, 5, 3, 8, 2.0) == LDP_OK);
  return p;
}

device_call record_device(const ldp_params* p) {
  return [p](uint32_t i, ldp_rng* rng, void* ws, size_t wss, uint8_t* out, size_t cap, size_t* written) {
    return ldp_randomize_record(p, rng, (i * 13u + i / 3u) % 32u, ws, wss, out, cap, written);
  };
}

void check_same(const ldp_estimate& c, const server::estimate& cxx) {
  CHECK(c.item == cxx.item);
  CHECK(c.value == cxx.value);
  CHECK(c.variance == cxx.variance);
  CHECK(c.ci_low == cxx.ci_low);
  CHECK(c.ci_high == cxx.ci_high);
}

}  // namespace

TEST_CASE("ldp_server_marginal and ldp_server_conjunction are the C++ estimates") {
  const ldp_params p = marginals_block();
  fleet f(p, 300, record_device(&p));
  const std::vector<server::estimate> coordinates = f.cxx->estimate_all(0.9);
  const std::vector<uint32_t> attributes = {4, 1, 2};
  size_t cells = 0;
  REQUIRE(ldp_server_marginal(f.c, attributes.data(), attributes.size(), 0.9, nullptr, 0, &cells) ==
          LDP_BUFFER_TOO_SMALL);
  CHECK(cells == 8);
  std::vector<ldp_estimate> out(8);
  REQUIRE(ldp_server_marginal(f.c, attributes.data(), attributes.size(), 0.9, out.data(), out.size(), &cells) ==
          LDP_OK);
  server::marginal_table table;
  REQUIRE(server::marginal_estimate(f.cxx->parameters(), coordinates, attributes, 0.9, &table) == status::ok);
  REQUIRE(table.cells.size() == 8);
  for (std::size_t c = 0; c < 8; ++c) check_same(out[c], table.cells[c]);

  for (const uint64_t set : {uint64_t{1}, uint64_t{0x6}, uint64_t{0x19}}) {
    CAPTURE(set);
    ldp_estimate c;
    REQUIRE(ldp_server_conjunction(f.c, set, 0.9, &c) == LDP_OK);
    server::estimate cxx;
    REQUIRE(server::conjunction_estimate(f.cxx->parameters(), coordinates, set, 0.9, &cxx) == status::ok);
    check_same(c, cxx);
  }
}

TEST_CASE("ldp_server_marginal and ldp_server_conjunction refusals") {
  const ldp_params p = marginals_block();
  fleet f(p, 10, record_device(&p));
  const uint32_t ok[2] = {0, 3}, repeated[2] = {3, 3}, beyond[1] = {5}, too_many[4] = {0, 1, 2, 3};
  ldp_estimate out[16];
  size_t cells = 99;
  CHECK(ldp_server_marginal(nullptr, ok, 2, 0.95, out, 16, &cells) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_marginal(f.c, nullptr, 2, 0.95, out, 16, &cells) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_marginal(f.c, ok, 2, 0.95, out, 16, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_marginal(f.c, ok, 2, 0.95, nullptr, 16, &cells) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_marginal(f.c, ok, 2, 1.0, out, 16, &cells) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_marginal(f.c, repeated, 2, 0.95, out, 16, &cells) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_marginal(f.c, beyond, 1, 0.95, out, 16, &cells) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_marginal(f.c, too_many, 4, 0.95, out, 16, &cells) == LDP_INVALID_ARGUMENT);  // k = 3
  CHECK(ldp_server_marginal(f.c, ok, 2, 0.95, out, 3, &cells) == LDP_BUFFER_TOO_SMALL);
  CHECK(cells == 4);
  CHECK(ldp_server_conjunction(f.c, 0, 0.95, out) == LDP_INVALID_ARGUMENT);     // empty set
  CHECK(ldp_server_conjunction(f.c, 0xf, 0.95, out) == LDP_INVALID_ARGUMENT);   // 4 > k attributes
  CHECK(ldp_server_conjunction(f.c, 0x20, 0.95, out) == LDP_INVALID_ARGUMENT);  // attribute 5 >= p
  CHECK(ldp_server_conjunction(f.c, 1, 0.0, out) == LDP_INVALID_ARGUMENT);      // confidence
  CHECK(ldp_server_conjunction(f.c, 1, 0.95, nullptr) == LDP_INVALID_ARGUMENT);
  const ldp_params b = bernstein_block(1, 2);
  ldp_aggregator* other = nullptr;
  REQUIRE(ldp_aggregator_create(&b, &other) == LDP_OK);
  CHECK(ldp_server_marginal(other, ok, 2, 0.95, out, 16, &cells) == LDP_INVALID_PARAMETERS);
  CHECK(ldp_server_conjunction(other, 1, 0.95, out) == LDP_INVALID_PARAMETERS);
  ldp_aggregator_free(other);
}

namespace {

constexpr uint32_t smooth_p = 2, smooth_t = 4;

ldp_params smooth_block() {
  ldp_params p;
  REQUIRE(ldp_params_smooth_queries(&p, smooth_p, smooth_t, 12, 2.0) == LDP_OK);
  return p;
}

device_call smooth_device(const ldp_params* p) {
  return [p](uint32_t i, ldp_rng* rng, void* ws, size_t wss, uint8_t* out, size_t cap, size_t* written) {
    int64_t x[smooth_p];
    REQUIRE(ldp_params_to_fixed(p, static_cast<double>(i % 9) / 4 - 1, &x[0]) == LDP_OK);
    REQUIRE(ldp_params_to_fixed(p, static_cast<double>(i % 5) / 2 - 1, &x[1]) == LDP_OK);
    return ldp_randomize_smooth_queries(p, rng, x, smooth_p, ws, wss, out, cap, written);
  };
}

void check_same(const ldp_smooth_answer& c, const server::smooth_answer& cxx) {
  CHECK(c.value == cxx.value);
  CHECK(c.variance == cxx.variance);
  CHECK(c.ci_low == cxx.ci_low);
  CHECK(c.ci_high == cxx.ci_high);
}

}  // namespace

TEST_CASE("ldp_server_smooth_query_values and ldp_server_smooth_query are the C++ answers") {
  const ldp_params p = smooth_block();
  fleet f(p, 300, smooth_device(&p));
  const std::vector<server::estimate> features = f.cxx->estimate_all(0.8);
  // f(x) = x_0 x_1^2 + x_1 on the nodes, axis 0 fastest.
  std::vector<double> values(smooth_t * smooth_t);
  for (uint32_t k1 = 0; k1 < smooth_t; ++k1) {
    for (uint32_t k0 = 0; k0 < smooth_t; ++k0) {
      const double x0 = ldp_chebyshev_node(smooth_t, k0), x1 = ldp_chebyshev_node(smooth_t, k1);
      CHECK(x0 == server::chebyshev_node(smooth_t, k0));
      values[k1 * smooth_t + k0] = x0 * x1 * x1 + x1;
    }
  }
  ldp_smooth_answer c;
  REQUIRE(ldp_server_smooth_query_values(f.c, values.data(), values.size(), 0.8, &c) == LDP_OK);
  check_same(c, server::answer_smooth_query(server::chebyshev_coefficients(smooth_p, smooth_t, values), features, 0.8));
  CHECK(std::isnan(ldp_chebyshev_node(smooth_t, smooth_t)));

  const double point[smooth_p] = {0.25, -0.5}, powers[smooth_p] = {1, 2};
  const struct {
    uint32_t kind;
    server::smooth_query_kind cxx;
    const double* point;
  } kinds[] = {{LDP_SMOOTH_GAUSSIAN, server::smooth_query_kind::gaussian, point},
               {LDP_SMOOTH_STEP, server::smooth_query_kind::smooth_step, point},
               {LDP_SMOOTH_MONOMIAL, server::smooth_query_kind::monomial, powers}};
  for (const auto& k : kinds) {
    CAPTURE(k.kind);
    REQUIRE(ldp_server_smooth_query(f.c, k.kind, k.point, smooth_p, 0.7, 0.8, &c) == LDP_OK);
    server::smooth_query q;
    q.kind = k.cxx;
    q.point.assign(k.point, k.point + smooth_p);
    q.width = 0.7;
    const std::vector<double> coefficients =
        server::chebyshev_coefficients(smooth_p, smooth_t, [&](const double* x) { return server::evaluate(q, x); });
    check_same(c, server::answer_smooth_query(coefficients, features, 0.8));
  }
}

TEST_CASE("ldp_server_smooth_query_values and ldp_server_smooth_query refusals") {
  const ldp_params p = smooth_block();
  fleet f(p, 10, smooth_device(&p));
  std::vector<double> values(smooth_t * smooth_t, 0.5);
  ldp_smooth_answer out{-1, -1, -1, -1};
  CHECK(ldp_server_smooth_query_values(nullptr, values.data(), 16, 0.95, &out) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query_values(f.c, nullptr, 16, 0.95, &out) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query_values(f.c, values.data(), 16, 0.95, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query_values(f.c, values.data(), 15, 0.95, &out) == LDP_INVALID_ARGUMENT);  // t^p = 16
  values.push_back(0.5);
  CHECK(ldp_server_smooth_query_values(f.c, values.data(), 17, 0.95, &out) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query_values(f.c, values.data(), 16, 1.5, &out) == LDP_INVALID_ARGUMENT);
  values[3] = NAN;
  CHECK(ldp_server_smooth_query_values(f.c, values.data(), 16, 0.95, &out) == LDP_INVALID_ARGUMENT);
  const double point[2] = {0, 0}, fractional[2] = {1, 0.5}, negative[2] = {-1, 0}, nan_point[2] = {NAN, 0};
  CHECK(ldp_server_smooth_query(f.c, 3, point, 2, 1, 0.95, &out) == LDP_INVALID_ARGUMENT);  // no such kind
  CHECK(ldp_server_smooth_query(f.c, LDP_SMOOTH_GAUSSIAN, point, 1, 1, 0.95, &out) == LDP_INVALID_ARGUMENT);  // p
  const double three[3] = {0, 0, 0};
  CHECK(ldp_server_smooth_query(f.c, LDP_SMOOTH_GAUSSIAN, three, 3, 1, 0.95, &out) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query(f.c, LDP_SMOOTH_GAUSSIAN, point, 2, 0, 0.95, &out) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query(f.c, LDP_SMOOTH_STEP, point, 2, INFINITY, 0.95, &out) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query(f.c, LDP_SMOOTH_GAUSSIAN, nan_point, 2, 1, 0.95, &out) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query(f.c, LDP_SMOOTH_MONOMIAL, fractional, 2, 0, 0.95, &out) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query(f.c, LDP_SMOOTH_MONOMIAL, negative, 2, 0, 0.95, &out) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query(f.c, LDP_SMOOTH_GAUSSIAN, nullptr, 2, 1, 0.95, &out) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_smooth_query(f.c, LDP_SMOOTH_GAUSSIAN, point, 2, 1, 0.0, &out) == LDP_INVALID_ARGUMENT);
  CHECK(out.value == -1);
  values[3] = 0.5;
  const ldp_params m = marginals_block();
  ldp_aggregator* other = nullptr;
  REQUIRE(ldp_aggregator_create(&m, &other) == LDP_OK);
  CHECK(ldp_server_smooth_query_values(other, values.data(), 16, 0.95, &out) == LDP_INVALID_PARAMETERS);
  CHECK(ldp_server_smooth_query(other, LDP_SMOOTH_GAUSSIAN, point, 2, 1, 0.95, &out) == LDP_INVALID_PARAMETERS);
  ldp_aggregator_free(other);
}

TEST_CASE("without reports the surrogate is refused and the query releases answer NaN") {
  const ldp_params b = bernstein_block(1, 2), m = marginals_block(), s = smooth_block();
  ldp_aggregator *bernstein = nullptr, *marginals = nullptr, *smooth = nullptr;
  REQUIRE(ldp_aggregator_create(&b, &bernstein) == LDP_OK);
  REQUIRE(ldp_aggregator_create(&m, &marginals) == LDP_OK);
  REQUIRE(ldp_aggregator_create(&s, &smooth) == LDP_OK);
  double w = -1, minimum = -1, sd = -1;
  CHECK(ldp_server_bernstein_minimize(bernstein, 1, 0, 0, &w, 1, &minimum, &sd) == LDP_INVALID_ARGUMENT);
  CHECK(w == -1);
  CHECK(minimum == -1);
  ldp_params coin;
  REQUIRE(ldp_params_public_coin(&coin, LDP_MECH_BERNSTEIN_1BIT, 1, 3, LDP_LOSS_SQUARED, 400, 8, 0, 2.0, public_seed) ==
          LDP_OK);
  ldp_aggregator* coins = nullptr;
  REQUIRE(ldp_aggregator_create(&coin, &coins) == LDP_OK);
  CHECK(ldp_server_bernstein_minimize(coins, 1, LDP_COIN_RATIO, 0, &w, 1, &minimum, &sd) == LDP_INVALID_ARGUMENT);
  ldp_aggregator_free(coins);
  const uint32_t attributes[1] = {2};
  ldp_estimate cells[2];
  size_t count = 0;
  CHECK(ldp_server_marginal(marginals, attributes, 1, 0.95, cells, 2, &count) == LDP_OK);
  CHECK(std::isnan(cells[0].value));
  ldp_estimate e;
  CHECK(ldp_server_conjunction(marginals, 3, 0.95, &e) == LDP_OK);
  CHECK(std::isnan(e.value));
  const double point[smooth_p] = {0, 0};
  ldp_smooth_answer a;
  CHECK(ldp_server_smooth_query(smooth, LDP_SMOOTH_GAUSSIAN, point, smooth_p, 1, 0.95, &a) == LDP_OK);
  CHECK(std::isnan(a.value));
  ldp_aggregator_free(bernstein);
  ldp_aggregator_free(marginals);
  ldp_aggregator_free(smooth);
}
