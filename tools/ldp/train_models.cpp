#include "train_models.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "errors.h"
#include "ldp/device/gradient.h"
#include "ldp/server/central/dp_sgd.h"
#include "ldp/server/central/levy_training.h"
#include "ldp/server/central/output_perturbation.h"
#include "ldp/wire/model_broadcast.h"
#include "seeding.h"
#include "train_sgd.h"

namespace ldp::tools {
namespace {

using clock_type = std::chrono::steady_clock;

double squared_norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return s;
}

uint64_t model_d(const model_data& data) { return wire::model_dim(data.shape); }

// User u's samples.
struct user_view {
  const double* x;
  const double* y;
  std::size_t count;
};
user_view user_of(const model_data& data, uint64_t u) {
  const std::size_t a = data.first[u], b = data.first[u + 1];
  return {data.train.row(a), data.train.y.data() + a, b - a};
}

// The users' mean of their samples' mean gradient (no regularizer), into g (d values). `residual_clip`
// > 0 clips a linear model's residual to +-residual_clip (ghazi-output's Huber loss, I.4).
void users_gradient(const model_data& data, const std::vector<double>& theta, double residual_clip,
                    std::vector<double>& g) {
  const wire::model_shape& shape = data.shape;
  std::fill(g.begin(), g.end(), 0.0);
  const double n = static_cast<double>(data.users());
  std::vector<double> one(g.size());
  for (uint64_t u = 0; u < data.users(); ++u) {
    const user_view v = user_of(data, u);
    const double scale = 1 / (n * static_cast<double>(v.count));
    for (std::size_t k = 0; k < v.count; ++k) {
      const double* x = v.x + k * shape.features;
      if (residual_clip > 0 && shape.kind == wire::model_kind::linear) {
        // The linear residual s - y is the gradient's first factor (I.0): clip it, then scale (x, 1).
        const double r = wire::model_gradient<double>(shape, theta.data(), x, v.y[k], one.data());
        const double clipped = std::clamp(r, -residual_clip, residual_clip);
        const double factor = r != 0 ? clipped / r : 0.0;
        for (std::size_t j = 0; j < g.size(); ++j) g[j] += scale * factor * one[j];
      } else {
        wire::model_gradient_add<double>(shape, theta.data(), x, v.y[k], scale, g.data());
      }
    }
  }
}

// The training-loss curve at every max(1, T/20)-th step and the last, reported to `progress`.
class curve_recorder {
 public:
  curve_recorder(const model_run& run, uint64_t steps, model_result& out)
      : run_(run), steps_(steps), every_(std::max<uint64_t>(1, steps / 20)), out_(out) {}
  void operator()(uint64_t step, const std::vector<double>& theta) {
    if (step % every_ != 0 && step != steps_) return;
    const double loss = model_objective(run_.data, theta, run_.settings.l2);
    out_.curve.emplace_back(step, loss);
    if (run_.progress) run_.progress(step, steps_, loss);
  }

 private:
  const model_run& run_;
  uint64_t steps_, every_;
  model_result& out_;
};

// The model of every round as the devices get it (wire_format.md 10), and their contributions
// (device::user_gradient from those bytes: a real round, I.4).
class device_round {
 public:
  device_round(const model_data& data, unsigned frac_bits, int64_t radius_fixed)
      : data_(data), workspace_(2 * model_d(data)) {
    bound_.max_samples = data.max_samples;
    bound_.frac_bits = frac_bits;
    bound_.radius_fixed = radius_fixed;
  }
  void broadcast(span<const double> theta, uint64_t round) {
    const wire::model_header h{data_.shape, wire::weight_format::f64, round};
    bytes_.resize(wire::model_broadcast_size(h));
    std::size_t written = 0;
    const status s =
        wire::encode_model_broadcast(h, theta, span<unsigned char>(bytes_.data(), bytes_.size()), &written);
    if (s != status::ok)
      fail("cannot encode the round {} model broadcast: {} (a weight not finite?)", round, describe(s));
    bound_.model_digest = wire::model_broadcast_digest(span<const unsigned char>(bytes_.data(), written));
  }
  status contribute(uint64_t user, span<int64_t> out) {
    const user_view v = user_of(data_, user);
    const clock_type::time_point start = clock_type::now();
    const status s = device::user_gradient<double>(span<const unsigned char>(bytes_.data(), bytes_.size()), bound_,
                                                   device::user_samples<double>{v.x, v.y, v.count},
                                                   span<double>(workspace_.data(), workspace_.size()), out);
    seconds_ += std::chrono::duration<double>(clock_type::now() - start).count();
    ++calls_;
    return s;
  }
  std::size_t broadcast_bytes() const { return bytes_.size(); }
  double seconds() const { return seconds_; }
  uint64_t calls() const { return calls_; }

 private:
  const model_data& data_;
  device::gradient_bound bound_;
  std::vector<unsigned char> bytes_;
  std::vector<double> workspace_;
  double seconds_ = 0;
  uint64_t calls_ = 0;
};

// The samples as the Levy drivers take them: each user's samples one after the other, p features
// then the label.
struct packed_users {
  std::vector<double> values;
  std::vector<span<const double>> users;
};
packed_users pack(const model_data& data) {
  packed_users out;
  const uint32_t p = data.shape.features;
  for (std::size_t i = 0; i < data.train.size(); ++i) {
    out.values.insert(out.values.end(), data.train.row(i), data.train.row(i) + p);
    out.values.push_back(data.train.y[i]);
  }
  for (uint64_t u = 0; u < data.users(); ++u) {
    out.users.emplace_back(out.values.data() + data.first[u] * (p + 1), (data.first[u + 1] - data.first[u]) * (p + 1));
  }
  return out;
}

// The per-sample gradient callback of the Levy drivers, which also samples the curve: the drivers
// call it on every sample at each step's iterate, so a new iterate marks a finished step.
struct levy_gradient {
  const model_data& data;
  curve_recorder& curve;
  std::vector<double> seen;
  uint64_t steps = 0;
  void operator()(span<const double> theta, span<const double> sample, span<double> g) {
    if (!std::equal(theta.begin(), theta.end(), seen.begin(), seen.end())) {
      seen.assign(theta.begin(), theta.end());
      if (steps > 0) curve(steps, seen);
      ++steps;
    }
    wire::model_gradient<double>(data.shape, theta.data(), sample.data(), sample[data.shape.features], g.data());
  }
};

nlohmann::ordered_json levy_budget_json(double epsilon, double delta, uint64_t steps, uint64_t d) {
  uint64_t rotated = 1;
  while (rotated < d) rotated *= 2;
  server::levy_budget b;
  if (server::levy_step_budget(epsilon, delta, steps, rotated, &b) != status::ok)
    fail("--epsilon {} --delta {} --steps {}: no Levy et al. budget split", epsilon, delta, steps);
  return {{"rotated_dim", rotated},
          {"eps_step_paper", b.eps_step},
          {"delta_step_paper", b.delta_step},
          {"eps_coordinate_paper", b.eps_coordinate_paper},
          {"eps_coordinate_tight", b.eps_coordinate_tight},
          {"rule", "tight"}};
}

void fill_seed(uint64_t seed, uint64_t index, unsigned char out[random::drbg::seed_size]) {
  static_assert(random::drbg::seed_size == wire::seed_size, "one seed size");
  derive_seed(seed, seed_purpose::server_noise, index, out);
}

server::winsorized_sgd_options levy_options(const model_run& run, uint64_t steps) {
  const train_settings& s = run.settings;
  server::winsorized_sgd_options o;
  o.session.epsilon = s.epsilon;
  o.session.delta = s.delta;
  o.session.queries = steps;
  o.session.dim = static_cast<uint32_t>(model_d(run.data));
  o.session.lo = -s.clip;
  o.session.hi = s.clip;
  o.session.frac_bits = model_frac_bits;
  o.session.observations = run.data.max_samples;
  o.learning_rate = s.lr;
  o.lambda = s.l2;
  return o;
}

}  // namespace

double model_objective(const model_data& data, const std::vector<double>& theta, double l2) {
  double sum = 0;
  for (uint64_t u = 0; u < data.users(); ++u) {
    const user_view v = user_of(data, u);
    double user = 0;
    for (std::size_t k = 0; k < v.count; ++k) {
      user += wire::model_loss<double>(data.shape, theta.data(), v.x + k * data.shape.features, v.y[k]);
    }
    sum += user / static_cast<double>(v.count);
  }
  return sum / static_cast<double>(data.users()) + l2 / 2 * squared_norm(theta);
}

double model_mean_loss(const wire::model_shape& shape, const model_samples& samples, const std::vector<double>& theta) {
  double sum = 0;
  for (std::size_t i = 0; i < samples.size(); ++i)
    sum += wire::model_loss<double>(shape, theta.data(), samples.row(i), samples.y[i]);
  return sum / static_cast<double>(samples.size());
}

double model_accuracy(const wire::model_shape& shape, const model_samples& samples, const std::vector<double>& theta) {
  std::size_t right = 0;
  for (std::size_t i = 0; i < samples.size(); ++i)
    right += wire::model_predict<double>(shape, theta.data(), samples.row(i)) == samples.y[i] ? 1 : 0;
  return static_cast<double>(right) / static_cast<double>(samples.size());
}

std::vector<double> nonprivate_model(const model_data& data, double l2) {
  // Nesterov's accelerated gradient with Armijo backtracking on the step and a restart whenever
  // F rises (O'Donoghue, Candes 2015): plain GD's iterations grow with beta / lambda, which is
  // ~10^4 at the default lambda.
  const std::size_t d = model_d(data);
  std::vector<double> x(d, 0.0), y = x, g(d), next(d);
  double step = 1, momentum = 1, fx = model_objective(data, x, l2);
  const auto gradient = [&](const std::vector<double>& at) {
    users_gradient(data, at, 0, g);
    for (std::size_t j = 0; j < d; ++j) g[j] += l2 * at[j];
  };
  for (int it = 0; it < 20000; ++it) {
    gradient(y);
    const double gg = squared_norm(g);
    if (gg <= 1e-16) break;  // ||grad F|| <= 1e-8
    const double fy = model_objective(data, y, l2);
    double fn = 0;
    for (;;) {
      for (std::size_t j = 0; j < d; ++j) next[j] = y[j] - step * g[j];
      fn = model_objective(data, next, l2);
      if (fn <= fy - step / 2 * gg || step < 1e-12) break;
      step /= 2;
    }
    if (fn > fx) {  // restart: the momentum overshot
      y = x;
      momentum = 1;
      continue;
    }
    const double m = (1 + std::sqrt(1 + 4 * momentum * momentum)) / 2;
    for (std::size_t j = 0; j < d; ++j) y[j] = next[j] + (momentum - 1) / m * (next[j] - x[j]);
    momentum = m;
    const bool still = std::abs(fx - fn) <= 1e-15 * std::max(1.0, std::abs(fx));
    x = next;
    fx = fn;
    step *= 2;
    if (still) break;
  }
  return x;
}

loss_constants model_loss_constants(const wire::model_shape& shape, double clip) {
  // z = (x, 1) with x in [0, 1]^p: ||z||^2 <= p + 1. A sample's gradient is e_r z in row r (I.0).
  const double z2 = static_cast<double>(shape.features) + 1;
  switch (shape.kind) {
    case wire::model_kind::linear: return {clip * std::sqrt(z2), z2};  // |e| <= clip (Huber), Hessian z z^T
    case wire::model_kind::logistic: return {std::sqrt(z2), z2 / 4};   // |sigma(s) - y| <= 1, sigma' <= 1/4
    case wire::model_kind::softmax:
      return {std::sqrt(2 * z2), z2 / 2};  // sum_r e_r^2 <= 2, ||diag(pi) - pi pi^T|| <= 1/2
  }
  return {};
}

model_result train_model_nonprivate(const model_run& run) {
  model_result out;
  out.theta = nonprivate_model(run.data, run.settings.l2);
  out.summary = "no privacy: accelerated gradient descent on the training users' objective";
  return out;
}

model_result train_model_dp_sgd(const model_run& run) {
  const model_data& data = run.data;
  const train_settings& s = run.settings;
  const uint64_t steps = s.steps != 0 ? s.steps : default_model_steps;
  const uint64_t sigma2 = server::dp_sgd_sigma2_for(s.epsilon, s.delta, steps, s.clip, model_frac_bits);
  if (sigma2 == 0)
    fail("--method dp-sgd: no noise level fits epsilon {} at delta {} over {} steps", s.epsilon, s.delta, steps);
  server::dp_sgd_options o;
  o.users = data.users();
  o.steps = steps;
  o.learning_rate = s.lr;
  o.clip = s.clip;
  o.frac_bits = model_frac_bits;
  o.sigma2 = sigma2;
  o.l2_regularization = s.l2;
  o.delta = s.delta;
  const uint64_t clip_units = server::dp_sgd_clip_units(s.clip, model_frac_bits);
  device_round round(data, model_frac_bits, static_cast<int64_t>(clip_units));
  model_result out;
  curve_recorder curve(run, steps, out);
  uint64_t step = 0;
  const auto gradient = [&](uint64_t user, span<const double> weights, span<int64_t> g) {
    if (user == 0) round.broadcast(weights, ++step);  // every round starts with its broadcast
    return round.contribute(user, g);
  };
  const auto observer = [&](uint64_t t, span<const double> weights) {
    curve(t, std::vector<double>(weights.begin(), weights.end()));
    return true;
  };
  random::drbg rng = seeded_drbg(s.seed, seed_purpose::server_noise, 0);
  const std::vector<double> initial(model_d(data), 0.0);
  const server::dp_sgd_result r =
      server::run_dp_sgd(o, span<const double>(initial.data(), initial.size()), gradient, rng, observer);
  if (r.code != status::ok) fail("--method dp-sgd: the run stopped: {}", describe(r.code));
  out.theta = r.averaged;
  out.steps = r.steps_taken;
  out.epsilon_spent = r.epsilon;
  out.delta_spent = s.delta;
  const double sigma = std::sqrt(static_cast<double>(sigma2)) / std::ldexp(1.0, model_frac_bits);
  out.budget = {{"accountant", "zCDP of the discrete Gaussian, tight conversion (I.1)"},
                {"sigma2", sigma2},
                {"sigma", sigma},
                {"clip_units", clip_units},
                {"rho_per_step", r.steps_taken > 0 ? r.rho / static_cast<double>(r.steps_taken) : 0.0},
                {"rho", r.rho}};
  out.details = {{"frac_bits", model_frac_bits}, {"iterate", "averaged"}};
  out.contributions = round.calls();
  out.device_seconds = round.seconds();
  out.bytes_per_device_round = static_cast<double>(round.broadcast_bytes() + 8 * model_d(data));
  out.summary = fmt::format("DP-SGD: {} full-batch steps, sigma2 {} grid units^2 (sigma {:.4g} on the sum), G {}",
                            r.steps_taken, sigma2, sigma, s.clip);
  return out;
}

model_result train_model_levy_sgd(const model_run& run) {
  const train_settings& s = run.settings;
  const uint64_t steps = s.steps != 0 ? s.steps : default_model_steps;
  model_result out;
  out.budget = levy_budget_json(s.epsilon, s.delta, steps, model_d(run.data));
  curve_recorder curve(run, steps, out);
  levy_gradient gradient{run.data, curve, {}, 0};
  const packed_users users = pack(run.data);
  const std::vector<double> initial(model_d(run.data), 0.0);
  unsigned char seed[random::drbg::seed_size];
  fill_seed(s.seed, 1, seed);
  server::winsorized_sgd_result r;
  const status st = server::winsorized_sgd(
      levy_options(run, steps), span<const span<const double>>(users.users.data(), users.users.size()),
      run.data.shape.features + 1, span<const double>(initial.data(), initial.size()),
      [&](span<const double> t, span<const double> x, span<double> g) { gradient(t, x, g); }, seed, &r);
  if (st != status::ok) fail("--method levy-sgd: {}", describe(st));
  curve(r.steps, r.last);
  out.theta = r.theta;
  out.steps = r.steps;
  out.epsilon_spent = r.spent.epsilon;
  out.delta_spent = r.spent.delta;
  out.budget["eps_coordinate_used"] = r.eps_coordinate;
  out.budget["tau"] = r.tau;
  out.summary =
      fmt::format("Levy Alg 3: {} steps, epsilon' {:.4g} per rotated coordinate (paper's split {:.4g}), tau {:.4g}",
                  r.steps, r.eps_coordinate, out.budget["eps_coordinate_paper"].get<double>(), r.tau);
  return out;
}

model_result train_model_levy_phased(const model_run& run) {
  const train_settings& s = run.settings;
  const uint64_t steps = s.steps != 0 ? s.steps : default_model_steps;
  model_result out;
  out.budget = levy_budget_json(s.epsilon, s.delta, steps, model_d(run.data));
  const uint64_t total = steps * s.phases;
  curve_recorder curve(run, total, out);
  levy_gradient gradient{run.data, curve, {}, 0};
  const packed_users users = pack(run.data);
  const std::vector<double> initial(model_d(run.data), 0.0);
  unsigned char seed[random::drbg::seed_size];
  fill_seed(s.seed, 2, seed);
  server::phased_erm_options o;
  o.step = levy_options(run, steps);
  o.phases = s.phases;
  o.lambda = s.l2;
  server::phased_erm_result r;
  const status st = server::phased_erm(
      o, span<const span<const double>>(users.users.data(), users.users.size()), run.data.shape.features + 1,
      span<const double>(initial.data(), initial.size()),
      [&](span<const double> t, span<const double> x, span<double> g) { gradient(t, x, g); }, seed, &r);
  if (st != status::ok) fail("--method levy-phased: {} (fewer --phases, or more users)", describe(st));
  curve(total, r.theta);
  out.theta = r.theta;
  out.steps = total;
  out.epsilon_spent = r.spent.epsilon;
  out.delta_spent = r.spent.delta;
  out.details = {{"phases", s.phases}, {"phase_users", r.phase_users}};
  out.summary = fmt::format("Levy Alg 4: {} phases of {} steps, users per phase {}", s.phases, steps,
                            nlohmann::json(r.phase_users).dump());
  return out;
}

model_result train_model_ghazi_output(const model_run& run) {
  const model_data& data = run.data;
  const train_settings& s = run.settings;
  if (!(s.l2 > 0)) fail("--method ghazi-output needs --l2 above 0 (its sensitivity is 2 G / (lambda n))");
  const loss_constants c = model_loss_constants(data.shape, s.clip);
  server::output_perturbation_options o;
  o.n = data.users();
  o.lipschitz = c.lipschitz;
  o.smoothness = c.smoothness;
  o.regularization = s.l2;
  o.epsilon = s.epsilon;
  o.delta = s.delta;
  // [impl] The output grid: about 2^20 grid units per sensitivity 2G / (lambda n), at most 2^-24, so
  // sigma^2 stays within the exact sampler's range whatever lambda and n are.
  const double sensitivity = 2 * c.lipschitz / (s.l2 * static_cast<double>(o.n));
  o.frac_bits = static_cast<uint32_t>(std::clamp(20 - static_cast<int>(std::ceil(std::log2(sensitivity))), 0, 24));
  std::vector<double> g(model_d(data));
  const server::erm_gradient gradient = [&](span<const double> w, span<double> out) {
    users_gradient(data, std::vector<double>(w.begin(), w.end()), s.clip, g);
    std::copy(g.begin(), g.end(), out.begin());
  };
  random::drbg rng = seeded_drbg(s.seed, seed_purpose::server_noise, 3);
  server::output_perturbation_release r;
  const std::vector<double> w0(model_d(data), 0.0);
  const status st = server::release_output_perturbation(span<const double>(w0.data(), w0.size()), gradient, o, rng, &r);
  if (st != status::ok) fail("--method ghazi-output: {}", describe(st));
  model_result out;
  out.theta = r.projected;
  out.steps = 1;
  out.epsilon_spent = r.epsilon_impl;
  out.delta_spent = s.delta;
  curve_recorder curve(run, 1, out);
  curve(1, out.theta);
  out.details = {{"frac_bits", o.frac_bits}, {"solver", "gradient descent, step 1 / (beta + lambda)"}};
  out.budget = {{"lipschitz", c.lipschitz},   {"smoothness", c.smoothness},         {"lambda", s.l2},
                {"sensitivity", sensitivity}, {"sensitivity_units", r.sensitivity}, {"sigma2", r.sigma2},
                {"noise_sd", r.noise_sd}};
  out.summary = fmt::format("Ghazi Alg 6: G {:.4g}, beta {:.4g}, lambda {:g}, noise sd {:.4g} per coordinate",
                            c.lipschitz, c.smoothness, s.l2, r.noise_sd);
  return out;
}

model_result train_model_ldp_sgd(const model_run& run) {
  const model_data& data = run.data;
  const train_settings& s = run.settings;
  const uint64_t n = data.users(), steps = ldp_sgd_steps(s, n);
  const uint64_t d = model_d(data);
  const parameter_block block = ldp_sgd_block(s, static_cast<uint32_t>(d), s.clip);
  model_result out;
  curve_recorder curve(run, steps, out);
  device_cost cost;
  random::drbg rng = seeded_drbg(s.seed, seed_purpose::device_block, 0);
  std::vector<double> theta(d, 0.0), mean(d, 0.0), g(d);
  model_data one = data;  // a single user's view for users_gradient
  for (uint64_t t = 0; t < steps; ++t) {
    const uint64_t first = n * t / steps, count = n * (t + 1) / steps - first;
    std::vector<double> vectors;
    for (uint64_t u = first; u < first + count; ++u) {
      // User u's averaged gradient, clipped to G: what its device randomizes.
      one.first = {data.first[u], data.first[u + 1]};
      users_gradient(one, theta, 0, g);
      const double norm = std::sqrt(squared_norm(g));
      for (double& v : g) vectors.push_back(norm > s.clip ? v * s.clip / norm : v);
    }
    const std::vector<double> estimate =
        ldp_sgd_batch_mean(block, span<const double>(vectors.data(), vectors.size()), first, count, s.seed, rng, cost);
    for (std::size_t j = 0; j < d; ++j) {
      theta[j] -= s.lr * (estimate[j] + s.l2 * theta[j]);
      if (t >= steps / 2) mean[j] += theta[j] / double(steps - steps / 2);
    }
    curve(t + 1, theta);
  }
  out.theta = mean;
  out.steps = steps;
  out.epsilon_spent = block.epsilon_impl;
  out.budget = {{"mechanism", block.mechanism->name}, {"epsilon_impl", block.epsilon_impl}, {"radius", s.clip}};
  out.details = {{"users_per_step", n / steps}, {"iterate", "mean of the last half"}};
  out.contributions = cost.reports;
  out.device_seconds = cost.device_seconds;
  const wire::model_header h{data.shape, wire::weight_format::f64, 0};
  out.bytes_per_device_round =
      static_cast<double>(wire::model_broadcast_size(h)) +
      static_cast<double>(cost.report_bytes) / static_cast<double>(std::max<uint64_t>(1, cost.reports));
  out.summary = fmt::format("LDP SGD: {} steps of {} users, gradients through {} (radius G = {})", steps, n / steps,
                            block.mechanism->name, s.clip);
  return out;
}

}  // namespace ldp::tools
