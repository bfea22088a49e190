// The server half of the C API (ldp_server.h) for Wang et al.'s learners and query releases
// (docs/mechanisms.md H.1-H.6): thin wrappers over ldp::server's surrogate and minimizer, public-coin
// grid estimates, glm_train, marginals and smooth-query answers. An ldp_aggregator* is the C++
// aggregator (server.cpp); every entry point checks its arguments and the aggregator's mechanism
// before calling the library, and turns an exception (std::bad_alloc) into LDP_OVERFLOW.
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "context.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/bernstein.h"
#include "ldp/server/glm.h"
#include "ldp/server/marginals.h"
#include "ldp/server/public_coin.h"
#include "ldp/server/smooth_queries.h"
#include "ldp/wire/params.h"
#include "ldp_server.h"

namespace capi = ldp::capi;
using capi::code;
using ldp::status;
using ldp::server::aggregator;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

// The largest surrogate order bernstein_coefficients accepts (server/bernstein.h).
constexpr uint32_t max_order = 32;
// The largest power of a built-in monomial query (the CLI's bound, docs/cli.md).
constexpr double max_monomial_power = 1000;

const aggregator* impl(const ldp_aggregator* a) noexcept { return reinterpret_cast<const aggregator*>(a); }

bool is_confidence(double c) noexcept { return c > 0 && c < 1; }

ldp_estimate to_c(const ldp::server::estimate& e) noexcept {
  return ldp_estimate{e.item, e.value, e.variance, e.ci_low, e.ci_high};
}

ldp_smooth_answer to_c(const ldp::server::smooth_answer& a) noexcept {
  return ldp_smooth_answer{a.value, a.variance, a.ci_low, a.ci_high};
}

// Runs `query` on a's C++ aggregator when it counts `accepts`'s mechanisms: invalid_argument for a
// null `a`, invalid_parameters for another mechanism, overflow when memory runs out.
template <class Accepts, class Query>
ldp_status learning_query(const ldp_aggregator* a, Accepts&& accepts, Query&& query) noexcept {
  if (a == nullptr) return code(status::invalid_argument);
  if (!accepts(impl(a)->parameters().mech)) return code(status::invalid_parameters);
  try {
    return code(query(*impl(a)));
  } catch (...) {  // std::bad_alloc of the estimates or the coefficients
    return code(status::overflow);
  }
}

bool is_bernstein_learner(mechanism m) noexcept {
  return m == mechanism::bernstein || ldp::server::is_public_coin_mechanism(m);
}

// The grid estimate the surrogate is fitted to (H.1: the mean aggregator's coordinates; H.2, H.3: the
// public-coin groups).
status grid_estimate_for(const aggregator& a, ldp::server::coin_estimator e, ldp::server::grid_estimate* out) {
  if (a.parameters().mech != mechanism::bernstein) return ldp::server::grid_estimate_of(a, e, out);
  const std::vector<ldp::server::estimate> coordinates = a.estimate_all();
  *out = ldp::server::to_grid_estimate(coordinates);
  return out->value.empty() ? status::overflow : status::ok;
}

// The block's dimension p (vector_dim) as a size.
std::size_t dimension_of(const aggregator& a) noexcept {
  return static_cast<std::size_t>(a.parameters().get(field::vector_dim));
}

ldp::server::glm_options glm_options_of(const ldp_glm_options* o) noexcept {
  ldp::server::glm_options out;
  if (o != nullptr) {
    out.loss = static_cast<ldp::wire::loss_kind>(o->loss);
    out.smoothing = o->smoothing;
    out.steps = o->steps;
    out.seed = o->seed;
  }
  return out;
}

// The answer of the query with these coefficients from a smooth-queries aggregator's features.
status smooth_answer_of(const aggregator& a, const std::vector<double>& coefficients, double confidence,
                        ldp_smooth_answer* out) {
  const std::vector<ldp::server::estimate> features = a.estimate_all(confidence);
  if (features.size() != coefficients.size()) return status::overflow;  // memory ran out
  *out = to_c(ldp::server::answer_smooth_query(coefficients, features, confidence));
  return status::ok;
}

// t^p of a smooth-queries block (its domain field, the number of features).
std::size_t feature_count(const aggregator& a) noexcept {
  return static_cast<std::size_t>(a.parameters().get(field::domain));
}

bool is_smooth(mechanism m) noexcept { return m == mechanism::smooth_queries; }
bool is_marginals(mechanism m) noexcept { return m == mechanism::kway_marginals; }

}  // namespace

extern "C" {

ldp_status ldp_server_bernstein_minimize(const ldp_aggregator* a, uint32_t order, uint32_t estimator, uint64_t seed,
                                         double* w, size_t capacity, double* minimum, double* std_dev) noexcept {
  if (w == nullptr || minimum == nullptr || std_dev == nullptr) return code(status::invalid_argument);
  if (order == 0 || order > max_order) return code(status::invalid_argument);
  if (estimator != LDP_COIN_HORVITZ_THOMPSON && estimator != LDP_COIN_RATIO) return code(status::invalid_argument);
  return learning_query(a, is_bernstein_learner, [&](const aggregator& agg) {
    const ldp::server::bernstein_grid grid{static_cast<uint32_t>(agg.parameters().get(field::vector_dim)),
                                           static_cast<uint32_t>(agg.parameters().get(field::grid_size))};
    if (grid.p > capacity) return status::buffer_too_small;
    ldp::server::grid_estimate estimate;
    const auto e = estimator == LDP_COIN_RATIO ? ldp::server::coin_estimator::ratio
                                               : ldp::server::coin_estimator::horvitz_thompson;
    const status got = grid_estimate_for(agg, e, &estimate);
    if (got != status::ok) return got;
    // A grid point without an estimate leaves the surrogate undefined (the minimizer would read it as +inf).
    for (const double v : estimate.value) {
      if (!std::isfinite(v)) return status::invalid_argument;
    }
    const std::vector<double> coefficients = ldp::server::bernstein_coefficients(grid, order, estimate.value);
    if (coefficients.empty()) return status::overflow;  // the block's grid and the order are valid
    const ldp::server::box_minimum best = ldp::server::minimize_on_box(
        grid.p, [&](const double* x) { return ldp::server::bernstein_value(grid, coefficients, x); }, seed);
    if (best.w.size() != grid.p) return status::overflow;
    for (uint32_t j = 0; j < grid.p; ++j) w[j] = best.w[j];
    *minimum = best.value;
    *std_dev = std::sqrt(ldp::server::bernstein_variance(grid, order, estimate.variance, best.w.data()));
    return status::ok;
  });
}

void ldp_glm_options_default(ldp_glm_options* o) noexcept {
  if (o == nullptr) return;
  const ldp::server::glm_options d;
  *o = ldp_glm_options{static_cast<uint32_t>(d.loss), d.smoothing, d.steps, d.seed};
}

ldp_status ldp_server_glm_train(const ldp_aggregator* a, const ldp_glm_options* options, double* w, size_t capacity,
                                ldp_glm_fit* fit) noexcept {
  if (w == nullptr) return code(status::invalid_argument);
  return learning_query(a, ldp::server::is_glm_mechanism, [&](const aggregator& agg) {
    if (dimension_of(agg) > capacity) return status::buffer_too_small;
    ldp::server::glm_result result;
    const status s = ldp::server::glm_train(agg, glm_options_of(options), &result);
    if (s != status::ok) return s;
    for (std::size_t j = 0; j < result.w.size(); ++j) w[j] = result.w[j];
    if (fit != nullptr) *fit = ldp_glm_fit{result.smoothing, result.steps, result.spread, result.epsilon, result.delta};
    return status::ok;
  });
}

ldp_status ldp_server_marginal(const ldp_aggregator* a, const uint32_t* attributes, size_t count, double confidence,
                               ldp_estimate* out, size_t capacity, size_t* cells) noexcept {
  if (attributes == nullptr || cells == nullptr || (out == nullptr && capacity != 0)) {
    return code(status::invalid_argument);
  }
  *cells = 0;
  if (!is_confidence(confidence)) return code(status::invalid_argument);
  return learning_query(a, is_marginals, [&](const aggregator& agg) {
    const std::vector<ldp::server::estimate> coordinates = agg.estimate_all(confidence);
    ldp::server::marginal_table table;
    const status s =
        ldp::server::marginal_estimate(agg.parameters(), coordinates, {attributes, count}, confidence, &table);
    if (s != status::ok) return s;
    *cells = table.cells.size();
    if (table.cells.size() > capacity) return status::buffer_too_small;
    for (std::size_t c = 0; c < table.cells.size(); ++c) out[c] = to_c(table.cells[c]);
    return status::ok;
  });
}

ldp_status ldp_server_conjunction(const ldp_aggregator* a, uint64_t set, double confidence,
                                  ldp_estimate* out) noexcept {
  if (out == nullptr || !is_confidence(confidence)) return code(status::invalid_argument);
  return learning_query(a, is_marginals, [&](const aggregator& agg) {
    const std::vector<ldp::server::estimate> coordinates = agg.estimate_all(confidence);
    ldp::server::estimate e;
    const status s = ldp::server::conjunction_estimate(agg.parameters(), coordinates, set, confidence, &e);
    if (s == status::ok) *out = to_c(e);
    return s;
  });
}

double ldp_chebyshev_node(uint32_t t, uint32_t k) noexcept {
  return k < t ? ldp::server::chebyshev_node(t, k) : std::nan("");
}

ldp_status ldp_server_smooth_query_values(const ldp_aggregator* a, const double* node_values, size_t count,
                                          double confidence, ldp_smooth_answer* out) noexcept {
  if (node_values == nullptr || out == nullptr || !is_confidence(confidence)) return code(status::invalid_argument);
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(node_values[i])) return code(status::invalid_argument);
  }
  return learning_query(a, is_smooth, [&](const aggregator& agg) {
    if (count != feature_count(agg)) return status::invalid_argument;
    const auto p = static_cast<uint32_t>(agg.parameters().get(field::vector_dim));
    const auto t = static_cast<uint32_t>(agg.parameters().get(field::degree));
    const std::vector<double> coefficients =
        ldp::server::chebyshev_coefficients(p, t, std::vector<double>(node_values, node_values + count));
    return smooth_answer_of(agg, coefficients, confidence, out);
  });
}

ldp_status ldp_server_smooth_query(const ldp_aggregator* a, uint32_t kind, const double* point, size_t p, double width,
                                   double confidence, ldp_smooth_answer* out) noexcept {
  if (point == nullptr || out == nullptr || !is_confidence(confidence)) return code(status::invalid_argument);
  ldp::server::smooth_query q;
  switch (kind) {
    case LDP_SMOOTH_GAUSSIAN: q.kind = ldp::server::smooth_query_kind::gaussian; break;
    case LDP_SMOOTH_STEP: q.kind = ldp::server::smooth_query_kind::smooth_step; break;
    case LDP_SMOOTH_MONOMIAL: q.kind = ldp::server::smooth_query_kind::monomial; break;
    default: return code(status::invalid_argument);  // a C integer outside the enumeration
  }
  for (std::size_t j = 0; j < p; ++j) {
    const double c = point[j];
    const bool power = c >= 0 && c <= max_monomial_power && std::floor(c) == c;
    if (!std::isfinite(c) || (kind == LDP_SMOOTH_MONOMIAL && !power)) return code(status::invalid_argument);
  }
  if (kind != LDP_SMOOTH_MONOMIAL && !(width > 0 && std::isfinite(width))) return code(status::invalid_argument);
  return learning_query(a, is_smooth, [&](const aggregator& agg) {
    if (p != dimension_of(agg)) return status::invalid_argument;
    q.point.assign(point, point + p);
    q.width = width;
    const auto t = static_cast<uint32_t>(agg.parameters().get(field::degree));
    const std::vector<double> coefficients = ldp::server::chebyshev_coefficients(
        static_cast<uint32_t>(p), t, [&](const double* x) { return ldp::server::evaluate(q, x); });
    return smooth_answer_of(agg, coefficients, confidence, out);
  });
}

}  // extern "C"
