#include "ldp/server/central/ghazi_sgd.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <numeric>
#include <tuple>
#include <utility>

#include "ldp/random/samplers.h"
#include "ldp/server/central/accountant.h"
#include "ldp/server/central/discrete_gaussian.h"
#include "ldp/server/central/l1_projection.h"
#include "ldp/server/central/l2_projection.h"
#include "ldp/server/central/levy_training.h"

namespace ldp::server {
namespace {

// dp_sgd.h's bounds: the exact sum of n clipped entries (each <= C) plus the noise stays in int64.
constexpr unsigned max_frac_bits = 40;
constexpr uint64_t max_clip_units = uint64_t{1} << 40;
constexpr uint64_t max_users = uint64_t{1} << 21;
// Keeps the filter's floating-point sum of per-step costs from rounding past the budget.
constexpr double budget_margin = 1 - 0x1p-40;

unsigned resolve_level(const ghazi_sgd_options& o) noexcept {
  if (o.max_level != ghazi_auto_level) return o.max_level;
  unsigned m = 0;
  while (m < 62 && (uint64_t{1} << (m + 2)) <= o.users) ++m;
  return m;
}

bool valid(const ghazi_sgd_options& o, std::size_t dimension) noexcept {
  const uint64_t clip_units = dp_sgd_clip_units(o.clip, o.frac_bits);
  const unsigned m = resolve_level(o);
  return o.users >= 2 && o.users <= max_users && o.epsilon > 0 && std::isfinite(o.epsilon) && o.delta > 0 &&
         o.delta < 1 && o.steps >= 1 && o.learning_rate > 0 && std::isfinite(o.learning_rate) && o.clip > 0 &&
         o.frac_bits <= max_frac_bits && clip_units >= 1 && clip_units <= max_clip_units && o.radius >= 0 &&
         std::isfinite(o.radius) && o.l2_regularization >= 0 && std::isfinite(o.l2_regularization) && o.sparsity >= 0 &&
         std::isfinite(o.sparsity) && m < 62 && (uint64_t{1} << (m + 1)) <= o.users &&
         o.sigma2 <= random::discrete_gaussian_max_sigma2 && dimension >= 1;
}

// The step's costs at sigma2: 3 private means touch a batch user (A(B), its half, and A(b_0) when it
// is b_0), converted at delta_batch and amplified by the batch's sampling rate.
void fill_costs(const ghazi_sgd_options& o, uint64_t sigma2, ghazi_step_budget* b) noexcept {
  const double c = static_cast<double>(dp_sgd_clip_units(o.clip, o.frac_bits));
  b->sigma2 = sigma2;
  b->rho_mean = discrete_gaussian_rho(2 * c, static_cast<double>(sigma2), 1);
  b->epsilon_batch = zcdp_to_epsilon(3 * b->rho_mean, b->delta_batch);
  b->expected_rho = 0;
  for (unsigned k = 0; k <= b->max_level; ++k) {
    const double q = std::ldexp(1.0, static_cast<int>(k) + 1) / static_cast<double>(o.users);
    b->level_epsilon[k] = subsampled_epsilon(b->epsilon_batch, q);
    b->level_delta[k] = q * b->delta_batch;
    b->expected_rho += b->level_probability[k] * b->level_epsilon[k] * b->level_epsilon[k] / 2;
  }
}

// A's release on an exact sum of `count` users' clipped gradients: noise, the mean, the l1 projection.
status finish_mean(const ghazi_sgd_options& o, uint64_t sigma2, span<const int64_t> sum, uint64_t count,
                   random::drbg& rng, std::vector<double>& scratch, span<double> out) {
  const double scale = std::ldexp(1.0 / static_cast<double>(count), -static_cast<int>(o.frac_bits));
  scratch.resize(sum.size());
  for (std::size_t j = 0; j < sum.size(); ++j)
    scratch[j] = static_cast<double>(sum[j] + discrete_gaussian(rng, sigma2)) * scale;
  if (o.sparsity > 0) {
    std::vector<double> projected;
    const status s = project_l1_ball(scratch, o.clip * std::sqrt(o.sparsity), &projected);
    if (s != status::ok) return s;
    scratch.swap(projected);
  }
  std::copy(scratch.begin(), scratch.end(), out.begin());
  return status::ok;
}

// Adds user `user`'s clipped grid gradient into `sum`.
status accumulate(const dp_sgd_gradient& gradient, uint64_t user, span<const double> weights, uint64_t clip_units,
                  std::vector<int64_t>& g, span<int64_t> sum) {
  std::fill(g.begin(), g.end(), 0);
  const status s = gradient(user, weights, g);
  if (s != status::ok) return s;
  clip_on_grid(g, clip_units);
  for (std::size_t j = 0; j < g.size(); ++j) sum[j] += g[j];
  return status::ok;
}

// Alg 3 with the caller's permutation of the users: a partial Fisher-Yates shuffle of any ordering
// draws a uniform ordered batch, so the run keeps one permutation instead of rebuilding it per step.
status debiased(const ghazi_sgd_options& o, uint64_t sigma2, unsigned level, unsigned max_level,
                const dp_sgd_gradient& gradient, span<const double> weights, random::drbg& rng,
                std::vector<uint64_t>& perm, span<double> out) {
  const std::size_t d = weights.size();
  // level <= M < 21 (n <= 2^21): the batch's indices fit size_t everywhere.
  const std::size_t batch = std::size_t{1} << (level + 1), half = batch / 2;
  for (std::size_t i = 0; i < batch; ++i)
    std::swap(perm[i], perm[i + static_cast<std::size_t>(random::uniform_below64(rng, o.users - i))]);
  const uint64_t clip_units = dp_sgd_clip_units(o.clip, o.frac_bits);
  std::vector<int64_t> g(d), sum_odd(d), sum_even(d), first(d), sum_all(d);
  for (std::size_t i = 0; i < batch; ++i) {
    const status s = accumulate(gradient, perm[i], weights, clip_units, g, i < half ? sum_odd : sum_even);
    if (s != status::ok) return s;
    if (i == 0) first = sum_odd;
  }
  for (std::size_t j = 0; j < d; ++j) sum_all[j] = sum_odd[j] + sum_even[j];
  std::vector<double> scratch, a_all(d), a_odd(d), a_even(d), a_first(d);
  for (auto [sum, count, a] : {std::tuple{&sum_all, batch, &a_all}, std::tuple{&sum_odd, half, &a_odd},
                               std::tuple{&sum_even, half, &a_even}, std::tuple{&first, std::size_t{1}, &a_first}}) {
    const status s = finish_mean(o, sigma2, *sum, count, rng, scratch, *a);
    if (s != status::ok) return s;
  }
  const double weight = 1 / ghazi_level_probability(max_level, level);
  for (std::size_t j = 0; j < d; ++j) out[j] = a_first[j] + (a_all[j] - (a_odd[j] + a_even[j]) / 2) * weight;
  return status::ok;
}

}  // namespace

double ghazi_level_probability(unsigned max_level, unsigned k) noexcept {
  if (k > max_level || max_level > 62) return 0;
  return std::ldexp(1.0, static_cast<int>(max_level - k)) / static_cast<double>((uint64_t{1} << (max_level + 1)) - 1);
}

unsigned ghazi_sample_level(random::drbg& rng, unsigned max_level) noexcept {
  // u + 1 is uniform on [1, 2^(M+1) - 1]; its bit width j + 1 has 2^j values, so M - j has weight 2^(M-k).
  const uint64_t u = random::uniform_below64(rng, (uint64_t{1} << (max_level + 1)) - 1) + 1;
  unsigned j = 0;
  while ((u >> (j + 1)) != 0) ++j;
  return max_level - j;
}

double subsampled_epsilon(double epsilon, double q) noexcept {
  // Past 1 the form eps + log(q + (1 - q) e^-eps) keeps e^eps from overflowing.
  if (epsilon <= 1) return std::log1p(q * std::expm1(epsilon));
  return epsilon + std::log(q + (1 - q) * std::exp(-epsilon));
}

status ghazi_plan(const ghazi_sgd_options& o, ghazi_step_budget* out) noexcept {
  if (!valid(o, 1) || out == nullptr) return status::invalid_argument;
  try {
    ghazi_step_budget b;
    b.max_level = resolve_level(o);
    const double biggest = std::ldexp(1.0, static_cast<int>(b.max_level) + 1);
    b.delta_budget = o.delta / 2;
    // T steps at the largest batch spend at most delta / 2 in their deltas: the filter stops on epsilon only.
    b.delta_batch =
        std::min(0.5, b.delta_budget * static_cast<double>(o.users) / (biggest * static_cast<double>(o.steps)));
    const double l = std::log(2 / o.delta);
    b.rho_budget =
        (std::sqrt(l + o.epsilon) - std::sqrt(l)) * (std::sqrt(l + o.epsilon) - std::sqrt(l)) * budget_margin;
    b.level_probability.resize(b.max_level + 1);
    b.level_epsilon.resize(b.max_level + 1);
    b.level_delta.resize(b.max_level + 1);
    for (unsigned k = 0; k <= b.max_level; ++k) b.level_probability[k] = ghazi_level_probability(b.max_level, k);
    const double steps = static_cast<double>(o.steps);
    if (o.sigma2 != 0) {
      fill_costs(o, o.sigma2, &b);
    } else {
      // The expected cost falls as sigma2 grows: the smallest integer whose T expected steps fit.
      fill_costs(o, random::discrete_gaussian_max_sigma2, &b);
      if (!(steps * b.expected_rho <= b.rho_budget)) return status::overflow;
      uint64_t lo = 0, hi = random::discrete_gaussian_max_sigma2;  // lo fails (or is 0), hi fits
      while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        fill_costs(o, mid, &b);
        (steps * b.expected_rho <= b.rho_budget ? hi : lo) = mid;
      }
      fill_costs(o, hi, &b);
    }
    *out = std::move(b);
    return status::ok;
  } catch (const std::bad_alloc&) {
    return status::overflow;
  }
}

status ghazi_private_mean(const ghazi_sgd_options& o, uint64_t sigma2, const dp_sgd_gradient& gradient,
                          span<const double> weights, span<const uint64_t> batch, random::drbg& rng,
                          span<double> out) noexcept {
  if (!valid(o, weights.size()) || !gradient || batch.empty() || out.size() != weights.size() || sigma2 < 1 ||
      sigma2 > random::discrete_gaussian_max_sigma2)
    return status::invalid_argument;
  for (const uint64_t u : batch)
    if (u >= o.users) return status::invalid_argument;
  try {
    const uint64_t clip_units = dp_sgd_clip_units(o.clip, o.frac_bits);
    std::vector<int64_t> g(weights.size()), sum(weights.size());
    for (const uint64_t u : batch) {
      const status s = accumulate(gradient, u, weights, clip_units, g, sum);
      if (s != status::ok) return s;
    }
    std::vector<double> scratch;
    return finish_mean(o, sigma2, sum, batch.size(), rng, scratch, out);
  } catch (const std::bad_alloc&) {
    return status::overflow;
  } catch (...) {
    return status::invalid_argument;  // the callback threw
  }
}

status ghazi_debiased_gradient(const ghazi_sgd_options& o, uint64_t sigma2, unsigned level,
                               const dp_sgd_gradient& gradient, span<const double> weights, random::drbg& rng,
                               span<double> out) noexcept {
  if (!valid(o, weights.size()) || !gradient || out.size() != weights.size() || level > resolve_level(o) ||
      sigma2 < 1 || sigma2 > random::discrete_gaussian_max_sigma2)
    return status::invalid_argument;
  try {
    std::vector<uint64_t> perm(static_cast<std::size_t>(o.users));
    std::iota(perm.begin(), perm.end(), uint64_t{0});
    return debiased(o, sigma2, level, resolve_level(o), gradient, weights, rng, perm, out);
  } catch (const std::bad_alloc&) {
    return status::overflow;
  } catch (...) {
    return status::invalid_argument;
  }
}

status run_ghazi_sgd(const ghazi_sgd_options& o, span<const double> initial, const dp_sgd_gradient& gradient,
                     random::drbg& rng, ghazi_sgd_result* result, const dp_sgd_observer& observer) noexcept {
  if (result == nullptr) return status::invalid_argument;
  *result = ghazi_sgd_result{};
  if (!valid(o, initial.size()) || !gradient) return status::invalid_argument;
  try {
    ghazi_sgd_result& r = *result;
    status code = ghazi_plan(o, &r.budget);
    if (code != status::ok) return code;
    const ghazi_step_budget& b = r.budget;
    const std::size_t d = initial.size();
    r.last.assign(initial.begin(), initial.end());
    r.averaged = r.last;
    r.level_counts.assign(b.max_level + 1, 0);
    std::vector<uint64_t> perm(static_cast<std::size_t>(o.users));
    std::iota(perm.begin(), perm.end(), uint64_t{0});
    std::vector<double> g(d);
    double delta_steps = 0;
    for (uint64_t step = 1; step <= o.steps; ++step) {
      // The fully adaptive filter (Whitehouse et al. 2023): N_t is drawn before the data is touched,
      // so the step's cost is known; the run stops before the first step that would pass the budget.
      const unsigned level = ghazi_sample_level(rng, b.max_level);
      const double rho = b.level_epsilon[level] * b.level_epsilon[level] / 2;
      if (r.rho_spent + rho > b.rho_budget || delta_steps + b.level_delta[level] > b.delta_budget) {
        r.filter_stopped = true;
        break;
      }
      code = debiased(o, b.sigma2, level, b.max_level, gradient, r.last, rng, perm, g);
      // A failed callback may have seen this step's iterate but nothing was released: not counted.
      if (code != status::ok) break;
      r.rho_spent += rho;
      delta_steps += b.level_delta[level];
      ++r.level_counts[level];
      ++r.steps_taken;
      for (std::size_t j = 0; j < d; ++j) r.last[j] -= o.learning_rate * (g[j] + o.l2_regularization * r.last[j]);
      project_l2_ball(r.last, o.radius);
      const double k = static_cast<double>(step);
      for (std::size_t j = 0; j < d; ++j) r.averaged[j] += (r.last[j] - r.averaged[j]) / k;
      if (observer && !observer(step, r.last)) break;
    }
    if (r.steps_taken > 0) {
      r.epsilon_spent = zcdp_to_epsilon_simple(r.rho_spent, b.delta_budget);
      r.delta_spent = b.delta_budget + delta_steps;
    }
    return code;
  } catch (const std::bad_alloc&) {
    return status::overflow;
  } catch (...) {
    return status::invalid_argument;  // the callback or the observer threw
  }
}

status select_ghazi_sgd(const ghazi_selection_options& o, span<const double> initial, const dp_sgd_gradient& gradient,
                        const ghazi_user_loss& loss, random::drbg& rng, ghazi_selection_result* result) noexcept {
  if (result == nullptr) return status::invalid_argument;
  *result = ghazi_selection_result{};
  if (o.candidates.empty() || !loss || !gradient || !(o.epsilon > 0) || !std::isfinite(o.epsilon) ||
      !(o.delta > 0 && o.delta < 1) || !(o.loss_bound > 0) || !std::isfinite(o.loss_bound) ||
      o.frac_bits > max_frac_bits || o.gamma_num > (uint64_t{1} << 32))
    return status::invalid_argument;
  const uint64_t n = o.candidates.front().users;
  for (ghazi_sgd_options c : o.candidates) {
    c.epsilon = o.epsilon;  // each run's budget is set below from the selection's
    c.delta = o.delta;
    if (c.users != n || !valid(c, initial.size())) return status::invalid_argument;
  }
  try {
    ghazi_selection_result& r = *result;
    const auto k = static_cast<double>(o.candidates.size());
    const uint64_t gamma_num =
        o.gamma_num != 0 ? o.gamma_num : std::max<uint64_t>(1, static_cast<uint64_t>(std::ldexp(1.0, 32) / k));
    const double gamma = std::ldexp(static_cast<double>(gamma_num), -32);
    // Liu, Talwar 2019, Thm 3.4 with delta_2 = delta / 2: an (eps_1, delta_1)-DP base under random
    // stopping capped at T = ln(2 / delta) / gamma draws is (3 eps_1 + 3 sqrt(2 delta_1),
    // sqrt(2 delta_1) T + delta / 2)-DP; sqrt(2 delta_1) = delta / (2 T) spends the other half of delta.
    r.max_runs = static_cast<uint64_t>(std::ceil(std::log(2 / o.delta) / gamma));
    const double root = o.delta / (2 * static_cast<double>(r.max_runs));
    const double eps1 = o.epsilon / 3 - root;
    r.base_delta = root * root / 2;
    const double unit = std::ldexp(1.0, static_cast<int>(o.frac_bits));
    const double range = std::ceil(o.loss_bound * unit);  // a user's loss on the grid: the sum's sensitivity
    const double t = std::ceil(range / (eps1 / 2));       // discrete Laplace scale >= range / (eps_1 / 2)
    if (!(eps1 > 0) || !(r.base_delta > 0) || !(t < 0x1p32) || !(range * static_cast<double>(n) < 0x1p62))
      return status::invalid_argument;
    r.base_epsilon = eps1 / 2 + range / t;
    r.epsilon_spent = 3 * r.base_epsilon + 3 * root;
    r.delta_spent = root * static_cast<double>(r.max_runs) + o.delta / 2;
    std::vector<double> best;
    const candidate_score score = [&](uint64_t c, double* v) noexcept {
      // Draws past the cap are never run and never win: the output is the capped algorithm's.
      if (r.runs == r.max_runs) {
        *v = std::numeric_limits<double>::infinity();
        return status::ok;
      }
      try {
        ++r.runs;
        ghazi_sgd_options run = o.candidates[static_cast<std::size_t>(c)];
        run.epsilon = eps1 / 2;
        run.delta = r.base_delta;
        ghazi_sgd_result trained;
        const status s = run_ghazi_sgd(run, initial, gradient, rng, &trained);
        if (s != status::ok) return s;
        int64_t sum = 0;
        for (uint64_t u = 0; u < n; ++u) {
          const double x = loss(u, trained.averaged);
          const double clamped = std::isnan(x) ? o.loss_bound : std::clamp(x, 0.0, o.loss_bound);
          sum += std::min(static_cast<int64_t>(std::llround(clamped * unit)), static_cast<int64_t>(range));
        }
        sum += random::discrete_laplace(rng, static_cast<uint64_t>(t), 1);
        *v = static_cast<double>(sum) / (static_cast<double>(n) * unit);
        // random_stopping_selection keeps the first draw and then strictly smaller scores.
        if (best.empty() || *v < r.score) {
          best = trained.averaged;
          r.score = *v;
        }
        return status::ok;
      } catch (const std::bad_alloc&) {
        return status::overflow;
      } catch (...) {
        return status::invalid_argument;  // the loss threw (random_stopping_selection is noexcept)
      }
    };
    selection_result chosen;
    const status s = random_stopping_selection(o.candidates.size(), gamma_num, score, rng, &chosen);
    if (s != status::ok) return s;
    r.candidate = chosen.candidate;
    r.score = chosen.score;
    r.weights = std::move(best);
    return status::ok;
  } catch (const std::bad_alloc&) {
    return status::overflow;
  } catch (...) {
    return status::invalid_argument;  // a callback threw
  }
}

}  // namespace ldp::server
