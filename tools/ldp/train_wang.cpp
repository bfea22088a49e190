#include "train_wang.h"

#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "errors.h"
#include "ldp/device/bernstein.h"
#include "ldp/device/glm.h"
#include "ldp/device/public_coin.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/bernstein.h"
#include "ldp/server/glm.h"
#include "ldp/server/public_coin.h"
#include "ldp/wire/bernstein_params.h"
#include "ldp/wire/glm_params.h"
#include "ldp/wire/mean_params.h"
#include "ldp/wire/public_coin_params.h"
#include "mechanism_options.h"
#include "seeding.h"
#include "train_users.h"

namespace ldp::tools {
namespace {

// The stated error's failure probability (server::bernstein_grid_error_bound).
constexpr double error_beta = 0.05;

std::unique_ptr<server::aggregator> aggregator_for(const wire::params& p) {
  std::unique_ptr<server::aggregator> agg;
  const status s = server::aggregator::create(p, &agg);
  if (s != status::ok) fail("internal: no aggregator for {}: {}", wire::mechanism_name(p.mech), describe(s));
  return agg;
}

// The block of a derivation, or the refusal with the smallest epsilon that builds (issue 21).
wire::params built(const char* method, const std::function<wire::derived_params(double)>& derive, double epsilon,
                   double* epsilon_impl) {
  const wire::derived_params d = derive(epsilon);
  if (d.code != status::ok) {
    fail("--method {}: cannot build its block with epsilon {} and these options: {}{}", method, epsilon,
         describe(d.code), smallest_epsilon_hint(epsilon, [&](double e) { return derive(e).code == status::ok; }));
  }
  *epsilon_impl = d.epsilon_impl;
  return d.block;
}

// A device context of `block` on its own workspace (the simulated fleet's devices share it: one
// report at a time).
template <class Context>
struct fleet_device {
  std::vector<std::byte> workspace;
  Context context;

  explicit fleet_device(const wire::params& block) : workspace(Context::workspace_size(block)) {
    const status ready = Context::init(workspace, block, &context);
    if (ready != status::ok) {
      fail("internal: the {} device context refused its block: {}", wire::mechanism_name(block.mech), describe(ready));
    }
  }
};

// The Bernstein learners' server half (H.1): the surrogate of order h fitted to the grid estimate,
// minimized over [0, 1]^p, with the report costs into `out`.
void fit_surrogate(const char* mechanism, server::bernstein_grid grid, uint32_t h,
                   const server::grid_estimate& estimate, uint64_t seed, const device_cost& cost, train_result& out) {
  const std::vector<double> coefficients = server::bernstein_coefficients(grid, h, estimate.value);
  if (coefficients.empty()) fail("internal: no Bernstein surrogate for p {} k {} h {}", grid.p, grid.k, h);
  const server::box_minimum best = server::minimize_on_box(
      grid.p, [&](const double* w) { return server::bernstein_value(grid, coefficients, w); }, seed);
  if (best.w.size() != grid.p) fail("out of memory minimizing the Bernstein surrogate");
  out.w = best.w;
  out.reports = cost.reports;
  out.report_bytes = cost.report_bytes;
  out.device_seconds = cost.device_seconds;
  const double sd = std::sqrt(server::bernstein_variance(grid, h, estimate.variance, best.w.data()));
  out.summary = fmt::format("{}: grid k = {} ({} points), order h = {}; surrogate minimum {:.6g} (std {:.3g})",
                            mechanism, grid.k, server::grid_points(grid), h, best.value, sd);
  out.details = {{"grid", grid.k},
                 {"order", h},
                 {"grid_points", server::grid_points(grid)},
                 {"surrogate_minimum", best.value},
                 {"surrogate_std", sd},
                 {"noise_gain", server::bernstein_noise_gain(grid, h)}};
}

// The public-coin learners (H.2, H.3): user i's device context with the deployment's index i, the
// aggregator's per-group Horvitz-Thompson estimate, then the surrogate path of wang-bernstein.
train_result solve_public_coin(const train_data& data, const train_settings& s, bool genprot) {
  const examples& train = data.train;
  const uint32_t p = train.p;
  const uint32_t k = s.grid != 0 ? s.grid : default_grid, h = s.order != 0 ? s.order : default_order;
  if (train.size() > UINT32_MAX) fail("--users: the public-coin learners index users in 32 bits");
  wire::public_coin_shape shape;
  shape.dim = p;
  shape.grid = k;
  shape.loss = s.loss;
  shape.users = static_cast<uint32_t>(train.size());
  shape.strings = genprot ? (s.strings != 0 ? s.strings : default_strings) : 0;
  derive_seed(s.seed, seed_purpose::hash_seed, 0, shape.seed);
  train_result out;
  const char* name = genprot ? "wang-genprot" : "wang-1bit";
  const wire::params block = built(
      name,
      [&](double e) { return genprot ? wire::make_bernstein_genprot(e, shape) : wire::make_bernstein_1bit(e, shape); },
      s.epsilon, &out.epsilon_impl);
  fleet_device<device::public_coin_context> fleet(block);
  device::public_coin_context& context = fleet.context;
  const std::unique_ptr<server::aggregator> agg = aggregator_for(block);
  device_cost cost;
  random::drbg rng = seeded_drbg(s.seed, seed_purpose::device_block, 0);
  run_users(
      0, train.size(),
      [&](uint64_t user, random::drbg& r, span<unsigned char> payload, std::size_t* written) {
        device::learner_example e;
        e.user = static_cast<uint32_t>(user);
        e.x = train.row(user);
        e.dim = p;
        e.label = train.y[user];
        return context.randomize(e, r, payload, device::framing::payload, written);
      },
      rng, *agg, cost);
  server::grid_estimate estimate;
  const status got = server::grid_estimate_of(*agg, server::coin_estimator::horvitz_thompson, &estimate);
  if (got != status::ok) fail("internal: no grid estimate from the {} aggregator: {}", name, describe(got));
  fit_surrogate(wire::mechanism_name(block.mech), server::bernstein_grid{p, k}, h, estimate, s.seed, cost, out);
  return out;
}

}  // namespace

train_result solve_wang_bernstein(const train_data& data, const train_settings& s) {
  const examples& train = data.train;
  const uint32_t p = train.p;
  const uint32_t k = s.grid != 0 ? s.grid : default_grid, h = s.order != 0 ? s.order : default_order;
  train_result out;
  const wire::params block = built(
      "wang-bernstein", [&](double e) { return wire::make_bernstein(p, k, s.loss, loss_frac_bits, e); }, s.epsilon,
      &out.epsilon_impl);
  fleet_device<device::vector_mean_context> fleet(block);
  device::vector_mean_context& context = fleet.context;
  std::vector<int64_t> values(device::bernstein_value_count(block));

  const std::unique_ptr<server::aggregator> agg = aggregator_for(block);
  device_cost cost;
  random::drbg rng = seeded_drbg(s.seed, seed_purpose::device_block, 0);
  run_users(
      0, train.size(),
      [&](uint64_t user, random::drbg& r, span<unsigned char> payload, std::size_t* written) {
        return device::randomize_bernstein(context, span<const double>(train.row(user), p), train.y[user],
                                           span<int64_t>(values.data(), values.size()), r, payload,
                                           device::framing::payload, written);
      },
      rng, *agg, cost);

  const server::bernstein_grid grid{p, k};
  const std::vector<server::estimate> coordinates = agg->estimate_all();
  fit_surrogate("bernstein", grid, h,
                server::to_grid_estimate(span<const server::estimate>(coordinates.data(), coordinates.size())), s.seed,
                cost, out);
  const double bound = server::bernstein_grid_error_bound(grid, train.size(), out.epsilon_impl, error_beta);
  out.summary +=
      fmt::format("; with probability {} every grid estimate is within {:.4g} of the true mean loss (Lemma 18)",
                  1 - error_beta, bound);
  out.details["grid_error_bound"] = std::isfinite(bound) ? nlohmann::ordered_json(bound) : nullptr;
  out.details["grid_error_beta"] = error_beta;
  return out;
}

train_result solve_wang_1bit(const train_data& data, const train_settings& s) {
  return solve_public_coin(data, s, false);
}

train_result solve_wang_genprot(const train_data& data, const train_settings& s) {
  return solve_public_coin(data, s, true);
}

train_result solve_wang_glm(const train_data& data, const train_settings& s) {
  const examples& train = data.train;
  if (s.loss != wire::loss_kind::logistic && s.loss != wire::loss_kind::hinge) {
    fail("--method wang-glm learns GLMs of s <theta, x>: --loss logistic or hinge (docs/mechanisms.md H.4)");
  }
  wire::glm_shape shape;
  shape.dimension = train.p;
  shape.degree = s.degree != 0 ? s.degree : default_glm_degree;
  train_result out;
  const wire::params block = built(
      "wang-glm", [&](double e) { return wire::make_glm_copies(e, s.delta, shape); }, s.epsilon, &out.epsilon_impl);
  fleet_device<device::glm_context> fleet(block);
  device::glm_context& context = fleet.context;
  const std::unique_ptr<server::aggregator> agg = aggregator_for(block);
  const int64_t one = int64_t{1} << shape.frac_bits;
  std::vector<int64_t> x(train.p);
  device_cost cost;
  random::drbg rng = seeded_drbg(s.seed, seed_purpose::device_block, 0);
  run_users(
      0, train.size(),
      [&](uint64_t user, random::drbg& r, span<unsigned char> payload, std::size_t* written) {
        // Features in [0, 1] and the label's sign s = 2 y - 1 on the block's grid (H.4).
        for (uint32_t j = 0; j < train.p; ++j) {
          const status fixed = wire::to_fixed(train.row(user)[j], shape.frac_bits, &x[j]);
          if (fixed != status::ok) return fixed;
        }
        const int64_t label = train.y[user] > 0.5 ? one : -one;
        return context.randomize(x, label, r, payload, device::framing::payload, written);
      },
      rng, *agg, cost);
  server::glm_options o;
  o.loss = s.loss;
  o.steps = s.steps;
  o.seed = s.seed;
  server::glm_result fit;
  const status trained = server::glm_train(*agg, o, &fit);
  if (trained != status::ok) fail("internal: glm_train refused the fleet's aggregator: {}", describe(trained));
  out.w = fit.w;
  out.delta = fit.delta;
  out.reports = cost.reports;
  out.report_bytes = cost.report_bytes;
  out.device_seconds = cost.device_seconds;
  out.summary =
      fmt::format("glm-copies: degree d = {} ({} copies a report), smoothing {:.3g}, {} SIGM steps (spread {:.3g})",
                  shape.degree, wire::glm_copy_count(shape.degree), fit.smoothing, fit.steps, fit.spread);
  out.details = {{"degree", shape.degree},
                 {"copies", wire::glm_copy_count(shape.degree)},
                 {"smoothing", fit.smoothing},
                 {"sigm_steps", fit.steps},
                 {"spread", fit.spread}};
  return out;
}

}  // namespace ldp::tools
