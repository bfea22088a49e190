#include "train_sgd.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "datasets.h"
#include "errors.h"
#include "ldp/server/aggregator.h"
#include "mechanism_options.h"
#include "randomizers.h"
#include "seeding.h"
#include "train_objective.h"
#include "train_users.h"

namespace ldp::tools {
namespace {

// The gradients of users [first, first + count) at w, each clipped to the ball of the block
// (rounding may pass the analytic bound by an ulp).
std::vector<double> gradients(const examples& train, const train_settings& s, const std::vector<double>& w,
                              uint64_t first, uint64_t count, double radius) {
  const uint32_t p = train.p;
  std::vector<double> out(count * p);
  for (uint64_t i = 0; i < count; ++i) {
    double* g = out.data() + i * p;
    loss_gradient(s.loss, w.data(), train.row(first + i), p, train.y[first + i], g);
    double norm = 0;
    for (uint32_t j = 0; j < p; ++j) norm += g[j] * g[j];
    norm = std::sqrt(norm);
    if (norm > radius) {
      for (uint32_t j = 0; j < p; ++j) g[j] *= radius / norm;
    }
  }
  return out;
}

}  // namespace

parameter_block ldp_sgd_block(const train_settings& s, uint32_t dim, double radius) {
  mechanism_options o;
  o.name = s.sgd_mechanism.empty() ? default_sgd_mechanism : s.sgd_mechanism;
  const std::string listed = std::string(" ") + sgd_mechanisms + " ";
  if (listed.find(" " + o.name + " ") == std::string::npos) {
    fail("--sgd-mechanism must be one of {}, got '{}'", sgd_mechanisms, o.name);
  }
  o.epsilon = s.epsilon;
  o.dim = dim;
  o.radius = radius;
  return build_block(o);
}

uint64_t ldp_sgd_steps(const train_settings& s, uint64_t users) {
  const uint64_t steps =
      s.steps != 0 ? s.steps : std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(std::sqrt(double(users)))));
  if (steps > users) fail("--steps {} is more than the {} users (each speaks once)", steps, users);
  return steps;
}

std::vector<double> ldp_sgd_batch_mean(const parameter_block& block, span<const double> vectors, uint64_t first,
                                       uint64_t count, uint64_t seed, random::drbg& rng, device_cost& cost) {
  const std::unique_ptr<dataset> batch = value_array(vectors, shape_of(block));
  const std::unique_ptr<device_program> program = make_device_program(block, *batch, seed);
  std::unique_ptr<server::aggregator> agg;
  const status created = server::aggregator::create(block.params, &agg);
  if (created != status::ok) fail("internal: no aggregator for {}: {}", block.mechanism->name, describe(created));
  run_users(
      first, count,
      [&](uint64_t user, random::drbg& r, span<unsigned char> payload, std::size_t* written) {
        return program->run(user - first, r, payload, written);
      },
      rng, *agg, cost);
  const std::vector<server::estimate> estimate = agg->estimate_all();
  std::vector<double> out;
  for (const server::estimate& e : estimate) out.push_back(e.value);
  if (count > 0 && out.size() != vectors.size() / count)
    fail("internal: {} estimated {} coordinates, not {}", block.mechanism->name, out.size(), vectors.size() / count);
  return out;
}

train_result solve_ldp_sgd(const train_data& data, const train_settings& s) {
  const examples& train = data.train;
  const uint32_t p = train.p;
  const uint64_t n = train.size();
  const uint64_t steps = ldp_sgd_steps(s, n);
  const double radius = gradient_bound(s.loss, p);
  const parameter_block block = ldp_sgd_block(s, p, radius);

  train_result out;
  out.epsilon_impl = block.epsilon_impl;
  device_cost cost;
  random::drbg rng = seeded_drbg(s.seed, seed_purpose::device_block, 0);
  std::vector<double> w(p, 0.5), mean(p, 0.0);
  double squared_sum = 0, last_step = 0;
  for (uint64_t t = 0; t < steps; ++t) {
    const uint64_t first = n * t / steps, count = n * (t + 1) / steps - first;
    const std::vector<double> g = gradients(train, s, w, first, count, radius);
    const std::vector<double> estimate =
        ldp_sgd_batch_mean(block, span<const double>(g.data(), g.size()), first, count, s.seed, rng, cost);
    // AdaGrad-norm steps (Streeter, McMahan 2010; Ward, Wu, Bottou 2019): sqrt(p) / sqrt(2 sum_s
    // ||g_s||^2) over the server's estimates so far, the diameter of [0, 1]^p over their scale. The
    // estimates are already private, so the step costs no privacy, and it adapts to gradients far
    // below the bound R of the normalized losses, which a step from R alone would crawl along.
    for (double e : estimate) squared_sum += e * e;
    const double step = squared_sum > 0 ? std::sqrt(double(p) / (2 * squared_sum)) : 0.0;
    for (uint32_t j = 0; j < p; ++j) {
      w[j] = std::clamp(w[j] - step * estimate[j], 0.0, 1.0);
      if (t >= steps / 2) mean[j] += w[j] / double(steps - steps / 2);
    }
    last_step = step;
  }
  out.w = mean;
  out.reports = cost.reports;
  out.report_bytes = cost.report_bytes;
  out.device_seconds = cost.device_seconds;
  out.summary = fmt::format("{} steps of {} users, gradients through {} (R = {:.6g}), last step size {:.6g}", steps,
                            n / steps, block.mechanism->name, radius, last_step);
  out.details = {{"steps", steps},
                 {"mechanism", block.mechanism->name},
                 {"gradient_radius", radius},
                 {"last_step_size", last_step}};
  return out;
}

}  // namespace ldp::tools
