// Levy et al.'s Alg 3, 4 and 5 (docs/mechanisms.md I.2): drivers over winsorized_query_session and
// winsorized_mean_1d. See levy_training.h.
#include "ldp/server/central/levy_training.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "ldp/random/samplers.h"
#include "ldp/server/central/l2_projection.h"
#include "ldp/server/central/winsorized.h"
#include "ldp/wire/central_params.h"

namespace ldp::server {

status levy_step_budget(double epsilon, double delta, uint64_t steps, uint64_t rotated_dim, levy_budget* out) noexcept {
  levy_budget b;
  status s = query_step_epsilon(epsilon, delta, steps, rotated_dim, budget_rule::paper, &b.eps_coordinate_paper);
  if (s != status::ok) return s;
  s = query_step_epsilon(epsilon, delta, steps, rotated_dim, budget_rule::tight, &b.eps_coordinate_tight);
  if (s != status::ok) return s;
  const auto t = static_cast<double>(steps);
  b.eps_step = delta > 0 ? epsilon / (2 * std::sqrt(2 * t * std::log(2 / delta))) : epsilon / t;
  b.delta_step = delta / (2 * t);
  *out = b;
  return status::ok;
}

double levy_gradient_tau(double sigma, double smoothness, double radius, uint64_t dim, uint64_t samples, uint64_t users,
                         double alpha) noexcept {
  if (!(sigma > 0) || !(smoothness > 0) || !(radius > 0) || !(alpha > 0 && alpha < 1) || dim == 0 || samples == 0 ||
      users == 0)
    return std::nan("");
  const auto d = static_cast<double>(dim), m = static_cast<double>(samples), n = static_cast<double>(users);
  const double net = std::min(1.0, std::sqrt(2.0) * sigma / (4 * smoothness) * std::sqrt(d / m));
  const double t_star = sigma * std::sqrt(2 / m * (d * std::log(5 + 10 * radius / net) + std::log(n / alpha)));
  return 2.5 * t_star;
}

namespace {}  // namespace

status winsorized_sgd(const winsorized_sgd_options& options, span<const span<const double>> users,
                      std::size_t sample_dim, span<const double> theta0, const sample_gradient& gradient,
                      const unsigned char seed[random::drbg::seed_size], winsorized_sgd_result* out) noexcept {
  const std::size_t d = options.session.dim;
  if (!gradient || theta0.size() != d || (!options.center.empty() && options.center.size() != d) ||
      !(options.radius >= 0) || !(options.lambda >= 0) || !(options.learning_rate > 0))
    return status::invalid_argument;
  try {
    winsorized_query_session session;
    status s = winsorized_query_session::create(options.session, users, sample_dim, seed, &session);
    if (s != status::ok) return s;
    winsorized_sgd_result r;
    r.last.assign(theta0.begin(), theta0.end());
    r.theta.assign(d, 0);
    while (session.remaining() > 0) {
      const std::vector<double> theta = r.last;  // the query reads this step's iterate only
      const query_function phi = [&](span<const double> sample, span<double> value) { gradient(theta, sample, value); };
      winsorized_query_answer a;
      s = session.ask(phi, &a);
      if (s != status::ok) return s;
      r.eps_coordinate = a.eps_coordinate;
      for (std::size_t j = 0; j < d; ++j) {
        // Alg 4's rule: the public regularizer's gradient joins after the private mean.
        const double c = options.center.empty() ? 0 : options.center[j];
        r.last[j] -= options.learning_rate * (a.mean[j] + options.lambda * (theta[j] - c));
      }
      project_l2_ball(r.last, options.radius);
      for (std::size_t j = 0; j < d; ++j) r.theta[j] += r.last[j];
      ++r.steps;
    }
    for (double& v : r.theta) v /= static_cast<double>(r.steps);
    r.spent = session.spent();
    r.tau = session.tau();
    *out = std::move(r);
    return status::ok;
  } catch (const std::bad_alloc&) {
    return status::overflow;
  } catch (...) {
    return status::invalid_argument;  // the gradient threw
  }
}

status phased_erm(const phased_erm_options& options, span<const span<const double>> users, std::size_t sample_dim,
                  span<const double> theta0, const sample_gradient& gradient,
                  const unsigned char seed[random::drbg::seed_size], phased_erm_result* out) noexcept {
  if (options.phases == 0 || options.phases >= 63 || !(options.lambda >= 0)) return status::invalid_argument;
  try {
    phased_erm_result r;
    r.theta.assign(theta0.begin(), theta0.end());
    const uint64_t n = users.size();
    uint64_t first = 0;
    for (uint32_t t = 1; t <= options.phases; ++t) {
      const uint64_t count = t == options.phases ? n - first : n >> t;
      if (count == 0) return status::invalid_argument;
      winsorized_sgd_options step = options.step;
      step.lambda = std::ldexp(options.lambda, 2 * static_cast<int>(t));
      step.center = r.theta;
      unsigned char phase_seed[random::drbg::seed_size];
      std::copy(seed, seed + random::drbg::seed_size, phase_seed);
      phase_seed[random::drbg::seed_size - 1] ^= static_cast<unsigned char>(t);  // a distinct stream per phase
      winsorized_sgd_result phase;
      const status s =
          winsorized_sgd(step, users.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(count)),
                         sample_dim, r.theta, gradient, phase_seed, &phase);
      if (s != status::ok) return s;
      r.theta = std::move(phase.theta);
      r.phase_users.push_back(count);
      // Disjoint users: parallel composition, the run spends the largest phase's loss.
      if (phase.spent.epsilon > r.spent.epsilon) r.spent.epsilon = phase.spent.epsilon;
      if (phase.spent.delta > r.spent.delta) r.spent.delta = phase.spent.delta;
      r.spent.basic = phase.spent.basic;
      first += count;
    }
    *out = std::move(r);
    return status::ok;
  } catch (const std::bad_alloc&) {
    return status::overflow;
  }
}

status random_stopping_selection(uint64_t candidates, uint64_t gamma_num, const candidate_score& score,
                                 random::drbg& rng, selection_result* out) noexcept {
  if (candidates == 0 || gamma_num == 0 || gamma_num > (uint64_t{1} << 32) || !score) return status::invalid_argument;
  selection_result r;
  r.score = std::numeric_limits<double>::infinity();
  for (;;) {
    const uint64_t k = random::uniform_below64(rng, candidates);
    double v = 0;
    const status s = score(k, &v);
    if (s != status::ok) return s;
    if (r.draws == 0 || v < r.score) {
      r.candidate = k;
      r.score = v;
    }
    ++r.draws;
    if (random::bernoulli(rng, gamma_num, 32)) break;
  }
  *out = r;
  return status::ok;
}

status private_selection(const private_selection_options& o, span<const span<const double>> users,
                         std::size_t sample_dim, const sample_loss& loss,
                         const unsigned char seed[random::drbg::seed_size], selection_result* out) noexcept {
  if (!loss || users.empty() || sample_dim == 0 || o.candidates == 0 || o.observations == 0 || o.frac_bits > 40 ||
      !(o.bound > 0) || !(o.epsilon > 0) || !(o.tau >= 0) || !(o.alpha > 0 && o.alpha < 1) ||
      o.gamma_num > (uint64_t{1} << 32))
    return status::invalid_argument;
  for (const auto& u : users)
    if (u.size() < sample_dim || u.size() % sample_dim != 0) return status::invalid_argument;
  try {
    const double unit = std::ldexp(1.0, static_cast<int>(o.frac_bits));
    const double range_real = std::ceil(o.bound * unit);
    // A user's sum of m losses on the grid must fit int64.
    if (!(range_real < 0x1p62) || !(range_real * o.observations < 0x1p63)) return status::invalid_argument;
    const auto n = static_cast<double>(users.size()), k = static_cast<double>(o.candidates);
    const double tau =
        o.tau > 0
            ? o.tau
            : o.bound / 2 * std::sqrt((std::log(k * n) + std::log(10 / o.alpha)) / static_cast<double>(o.observations));
    winsorized_1d_options base;
    base.epsilon = o.epsilon / 3;
    base.range = static_cast<uint64_t>(range_real);
    base.tau = std::clamp<uint64_t>(static_cast<uint64_t>(std::ceil(std::min(tau * unit, range_real))), 1, base.range);
    base.window = o.window;
    const uint64_t gamma_num =
        o.gamma_num != 0 ? o.gamma_num
                         : std::max<uint64_t>(1, static_cast<uint64_t>(std::ldexp(1.0, 32) / k));  // Thm 7: 1 / K
    random::drbg rng(seed);
    std::vector<int64_t> values(users.size());
    double level = 0;
    const candidate_score score = [&](uint64_t c, double* v) {
      for (std::size_t u = 0; u < users.size(); ++u) {
        const std::size_t used = std::min<std::size_t>(users[u].size() / sample_dim, o.observations);
        int64_t sum = 0;
        for (std::size_t j = 0; j < used; ++j) {
          const double x = loss(c, users[u].subspan(j * sample_dim, sample_dim));
          const double clamped = std::isnan(x) ? o.bound / 2 : std::clamp(x, 0.0, o.bound);
          sum += std::min(static_cast<int64_t>(std::llround(clamped * unit)), static_cast<int64_t>(base.range));
        }
        values[u] = wire::rounded_mean(sum, used);
      }
      winsorized_1d_result r;
      const status s = winsorized_mean_1d(values, base, rng, &r);
      *v = r.mean / unit;
      level = std::max(level, r.epsilon_impl);
      return s;
    };
    const status s = random_stopping_selection(o.candidates, gamma_num, score, rng, out);
    // Liu and Talwar's Thm 3.4: an eps-DP base under random stopping is 3 eps-DP.
    if (s == status::ok) out->epsilon_impl = 3 * level;
    return s;
  } catch (const std::bad_alloc&) {
    return status::overflow;
  } catch (...) {
    return status::invalid_argument;  // the loss threw
  }
}

}  // namespace ldp::server
