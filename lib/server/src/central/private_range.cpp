// PrivateRange (Levy et al. Alg 6), WinsorizedMean1D (Alg 1) and the budget arithmetic of Alg 2
// and Thm 3 (docs/mechanisms.md C.2); winsorized.h states the variants.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ldp/base/bits.h"
#include "ldp/base/int128.h"
#include "ldp/random/samplers.h"
#include "ldp/server/central/exact_sampling.h"
#include "ldp/server/central/winsorized.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/mean_params.h"
#include "winsorized_detail.h"

namespace ldp::server {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double two32 = 4294967296.0;

using wire::valid_epsilon;

// A run of bins with one score: the occupied bins one by one, the empty runs between them whole.
struct group {
  uint64_t first = 0;
  uint64_t size = 0;
  uint64_t score = 0;
};

// c(x) = max(#{X' < x}, #{X' > x}) per group, left to right; false on a bad histogram.
bool score_groups(span<const bin_count> occupied, uint64_t bins, std::vector<group>& out) {
  uint64_t n = 0;
  for (std::size_t i = 0; i < occupied.size(); ++i) {
    if (occupied[i].count == 0 || occupied[i].bin >= bins) return false;
    if (i > 0 && occupied[i].bin <= occupied[i - 1].bin) return false;
    if (!checked_add(n, occupied[i].count, &n)) return false;
  }
  out.clear();
  out.reserve(2 * occupied.size() + 1);
  uint64_t below = 0, next = 0;
  for (const bin_count& b : occupied) {
    if (b.bin > next) out.push_back({next, b.bin - next, std::max(below, n - below)});
    out.push_back({b.bin, 1, std::max(below, n - below - b.count)});
    below += b.count;
    next = b.bin + 1;
  }
  if (next < bins) out.push_back({next, bins - next, n});
  return true;
}

// lambda = epsilon / 2 rounded down to a multiple of 2^-32: P(k) ~ exp(-lambda c(k)); 0 when epsilon
// is out of (0, 40] or too small.
uint64_t lambda_num(double epsilon) {
  return valid_epsilon(epsilon) ? static_cast<uint64_t>(std::floor(epsilon / 2 * two32)) : 0;
}

// The exponential mechanism at group level, exactly and in O(groups) expected time for any number of
// bins (docs/mechanisms.md C.2 [impl]): group g has weight size_g exp(-x_g), x_g = lambda (c_g - c_min) =
// X_g / 2^32, and a bin is then uniform inside it. Level m_g = min(floor(x_g), max_level).
//  - Proposal: level m with probability proportional to T_m rho^m, T_m the bins of its groups and
//    rho = 24/65 >= 1/e; then a bin of the level uniformly (so a group with probability ~ size_g).
//    The masses are integers on a 2^mass_bits scale, rounded up one factor of rho at a time,
//    q_0 = T_m 2^mass_bits, q_i = ceil(24 q_(i-1) / 65), so every product stays below 2^128.
//  - Acceptance: 24 q_(i-1) / (65 q_i) per step (undoes the rounding: level m's accepted mass is
//    exactly proportional to T_m rho^m), then (exp(-1) / rho)^m as m events Poisson(1) <= 4
//    (exact_sampling.h), then exp(-(x_g - m_g)) by bern_exp. Together size_g exp(-x_g).
// Every factor is a rational comparison or an exact Bernoulli, so the law is exact. exp(-1) / rho
// = 0.9963 keeps the acceptance above 0.85 at every level; past max_level (e^44 > 2^63 > bins) the
// capped groups hold less than half the proposal mass of the best bin, whose weight is 1.
constexpr unsigned max_level = 44;
constexpr unsigned mass_bits = 58;  // T_m <= 2^62: 65 q_i < 2^127

std::size_t sample_group(const std::vector<group>& groups, uint64_t best, uint64_t lambda, random::drbg& rng) {
  const std::size_t count = groups.size();
  std::vector<u128> excess(count);  // X_g
  std::vector<unsigned char> level(count);
  std::array<std::size_t, max_level + 2> start{};  // groups sorted by level: level m at [start[m], start[m+1])
  for (std::size_t i = 0; i < count; ++i) {
    excess[i] = mul_64x64(lambda, groups[i].score - best);
    const uint64_t floor_x = excess[i].hi != 0 ? max_level : excess[i].lo >> 32;
    level[i] = static_cast<unsigned char>(std::min<uint64_t>(floor_x, max_level));
    ++start[level[i] + 1u];
  }
  for (unsigned m = 0; m <= max_level; ++m) start[m + 1] += start[m];
  std::vector<std::size_t> order(count);
  std::vector<uint64_t> below(count + 1, 0);  // bins of the sorted groups before position i
  {
    std::array<std::size_t, max_level + 1> next{};
    std::copy(start.begin(), start.end() - 1, next.begin());
    for (std::size_t i = 0; i < count; ++i) order[next[level[i]]++] = i;
    for (std::size_t i = 0; i < count; ++i) below[i + 1] = below[i] + groups[order[i]].size;
  }
  const auto bins_at = [&](unsigned m) { return below[start[m + 1]] - below[start[m]]; };
  const auto step = [](u128 q) {  // 24 q and ceil(24 q / 65); q < 2^121, so 24 q fits
    u128 q24;
    checked_mul(q, 24, &q24);
    return std::pair<u128, u128>{q24, div_ceil(q24, 65)};
  };
  const auto scaled = [](uint64_t t) { return u128{t >> (64 - mass_bits), t << mass_bits}; };
  std::array<u128, max_level + 1> mass{};
  u128 total;
  for (unsigned m = 0; m <= max_level; ++m) {
    u128 q = scaled(bins_at(m));
    for (unsigned i = 0; i < m; ++i) q = step(q).second;
    mass[m] = q;
    total = total + q;
  }
  const u128 two_to_32{0, uint64_t{1} << 32};
  for (;;) {
    u128 u = detail::uniform_below_wide(rng, total);
    unsigned m = 0;
    while (!(u < mass[m])) u = u - mass[m++];
    bool accept = true;
    u128 q = scaled(bins_at(m));
    for (unsigned i = 0; accept && i < m; ++i) {
      const auto [q24, next] = step(q);
      u128 next65;
      accept = checked_mul(next, 65, &next65) && detail::uniform_below_wide(rng, next65) < q24;
      q = next;
    }
    for (unsigned i = 0; accept && i < m; ++i) accept = detail::bern_65_over_24e(rng);
    if (!accept) continue;
    const uint64_t r = below[start[m]] + random::uniform_below64(rng, bins_at(m));
    const std::size_t at =
        static_cast<std::size_t>(std::upper_bound(below.begin() + static_cast<std::ptrdiff_t>(start[m]),
                                                  below.begin() + static_cast<std::ptrdiff_t>(start[m + 1]), r) -
                                 below.begin()) -
        1;
    const std::size_t g = order[at];
    if (detail::bern_exp_wide(rng, excess[g] - u128{0, uint64_t{m} << 32}, two_to_32)) return g;
  }
}

}  // namespace

double advanced_composition(double eps_step, uint64_t k, double delta) noexcept {
  const auto kd = static_cast<double>(k);
  return std::sqrt(2 * kd * std::log(1 / delta)) * eps_step + kd * eps_step * std::expm1(eps_step);
}

status step_epsilon(double epsilon, double delta, uint64_t k, budget_rule rule, double* out) noexcept {
  *out = 0;
  if (!(epsilon > 0) || !std::isfinite(epsilon) || !(delta >= 0 && delta < 1) || k == 0)
    return status::invalid_argument;
  // Basic composition, epsilon / k, holds whatever delta is (pure DP at delta = 0).
  const double basic = epsilon / static_cast<double>(k);
  if (delta == 0) {
    *out = basic;
    return status::ok;
  }
  if (rule == budget_rule::paper) {
    *out = epsilon / std::sqrt(8 * static_cast<double>(k) * std::log(1 / delta));
    return status::ok;
  }
  // advanced_composition is increasing in eps_step: bisect on [0, epsilon] (one step alone costs
  // at least eps_step, so the answer is below epsilon), keeping the feasible end. Tight is the larger
  // of that and basic composition (basic wins for small k).
  double lo = 0, hi = epsilon;
  for (int i = 0; i < 200; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (advanced_composition(mid, k, delta) <= epsilon ? lo : hi) = mid;
  }
  *out = std::max(basic, lo);
  return status::ok;
}

status query_step_epsilon(double epsilon, double delta, uint64_t queries, uint64_t rotated_dim, budget_rule rule,
                          double* out) noexcept {
  *out = 0;
  uint64_t total = 0;
  if (queries == 0 || rotated_dim == 0 || !checked_mul(queries, rotated_dim, &total)) return status::invalid_argument;
  // One composition over all K d~ coordinate mechanisms: tight, pure DP, and the paper's single
  // query (Alg 2 itself; Thm 3's split is for K > 1).
  if (rule == budget_rule::tight || delta == 0 || queries == 1) return step_epsilon(epsilon, delta, total, rule, out);
  if (!(delta > 0 && delta < 1)) return status::invalid_argument;
  const auto kq = static_cast<double>(queries);
  const double eps0 = epsilon / (2 * std::sqrt(2 * kq * std::log(2 / delta)));
  return step_epsilon(eps0, delta / (2 * kq), rotated_dim, budget_rule::paper, out);
}

double rotated_tau(double tau, uint64_t rotated_dim, uint64_t n, double gamma, tau_rule rule) noexcept {
  if (!(tau > 0) || rotated_dim == 0 || n == 0 || !(gamma > 0 && gamma < 1)) return nan;
  const auto d = static_cast<double>(rotated_dim), users = static_cast<double>(n);
  const double bound = rule == tau_rule::paper ? 10 * tau * std::sqrt(std::log(d * users / gamma) / d)
                                               : tau * std::sqrt(2 * std::log(2 * d * users / gamma) / d);
  return std::min(tau, bound);
}

double user_mean_tau(double width, uint64_t dim, uint64_t samples, uint64_t users, double gamma) noexcept {
  if (!(width > 0) || !std::isfinite(width) || dim == 0 || samples == 0 || users == 0 || !(gamma > 0 && gamma < 1)) {
    return nan;
  }
  const auto d = static_cast<double>(dim), m = static_cast<double>(samples), n = static_cast<double>(users);
  // Each coordinate of a user's mean is the average of m independent values in an interval of
  // length width: Hoeffding gives |mean - mu| <= width sqrt(ln(2 / g) / (2 m)) with probability
  // 1 - g; g = gamma / (n d) covers every user and coordinate, and the l2 norm adds sqrt(d).
  const double hoeffding = width * std::sqrt(d * std::log(2 * n * d / gamma) / (2 * m));
  return std::min(width * std::sqrt(d) / 2, hoeffding);
}

uint64_t rotated_bin_half_width(double tau, uint64_t rotated_dim, uint64_t users, double beta, unsigned frac_bits,
                                uint64_t range) noexcept {
  const double rotated = rotated_tau(tau, rotated_dim, users, beta, tau_rule::hoeffding);
  if (!std::isfinite(rotated) || frac_bits > 62) return 0;
  const double grid =
      std::ceil(std::ldexp(rotated * std::sqrt(static_cast<double>(rotated_dim)), static_cast<int>(frac_bits)));
  return static_cast<uint64_t>(std::clamp(grid, 1.0, static_cast<double>(std::max<uint64_t>(range, 1))));
}

status winsorized_session::create(double epsilon, double delta, uint64_t queries, uint64_t rotated_dim,
                                  budget_rule rule, winsorized_session* out) noexcept {
  *out = winsorized_session{};
  double eps = 0;
  const status s = query_step_epsilon(epsilon, delta, queries, rotated_dim, rule, &eps);
  if (s != status::ok) return s;
  out->epsilon_ = epsilon;
  out->delta_ = delta;
  out->queries_ = queries;
  out->rotated_dim_ = rotated_dim;
  out->rule_ = rule;
  out->eps_coordinate_ = eps;
  return status::ok;
}

status winsorized_session::next_query(double* eps_coordinate) noexcept {
  *eps_coordinate = 0;
  if (used_ >= queries_) return status::invalid_argument;
  ++used_;
  *eps_coordinate = eps_coordinate_;
  return status::ok;
}

privacy_loss composed_loss(double per_coordinate, uint64_t mechanisms, double delta) noexcept {
  privacy_loss spent;
  spent.epsilon = per_coordinate * static_cast<double>(mechanisms);
  spent.basic = true;
  if (delta > 0 && mechanisms > 0) {
    const double advanced = advanced_composition(per_coordinate, mechanisms, delta);
    if (advanced < spent.epsilon) spent = {advanced, delta, false};
  }
  return spent;
}

privacy_loss winsorized_session::loss(double per_coordinate) const noexcept {
  return composed_loss(per_coordinate, mechanisms(), delta_);
}

bool winsorized_session::within_budget(const privacy_loss& spent) const noexcept {
  return !(spent.epsilon > epsilon_ * (1 + 1e-12));
}

status private_range_epsilon(double epsilon, double* epsilon_impl) noexcept {
  const uint64_t lambda = lambda_num(epsilon);
  *epsilon_impl = 2 * static_cast<double>(lambda) / two32;
  return lambda == 0 ? status::invalid_argument : status::ok;
}

status private_range(span<const bin_count> occupied, uint64_t bins, double epsilon, random::drbg& rng, uint64_t* bin,
                     double* epsilon_impl) noexcept {
  *bin = 0;
  *epsilon_impl = 0;
  const uint64_t lambda = lambda_num(epsilon);
  if (lambda == 0 || bins == 0 || bins > (uint64_t{1} << 62)) return status::invalid_argument;
  try {
    std::vector<group> groups;
    if (!score_groups(occupied, bins, groups)) return status::invalid_argument;
    uint64_t best = std::numeric_limits<uint64_t>::max();
    for (const group& g : groups) best = std::min(best, g.score);
    const group& g = groups[sample_group(groups, best, lambda, rng)];
    *bin = g.first + random::uniform_below64(rng, g.size);
    return private_range_epsilon(epsilon, epsilon_impl);
  } catch (...) {
    return status::overflow;
  }
}

std::vector<double> private_range_law(span<const bin_count> occupied, uint64_t bins, double epsilon) noexcept {
  try {
    std::vector<group> groups;
    const uint64_t lambda = lambda_num(epsilon);
    if (lambda == 0 || !score_groups(occupied, bins, groups)) return {};
    uint64_t best = std::numeric_limits<uint64_t>::max();
    for (const group& g : groups) best = std::min(best, g.score);
    const double rate = static_cast<double>(lambda) / two32;
    std::vector<double> law(static_cast<std::size_t>(bins));
    double total = 0;
    for (const group& g : groups) {
      const double w = std::exp(-rate * static_cast<double>(g.score - best));
      for (uint64_t k = g.first; k < g.first + g.size; ++k) law[static_cast<std::size_t>(k)] = w;
      total += w * static_cast<double>(g.size);
    }
    for (double& p : law) p /= total;
    return law;
  } catch (...) {
    return {};
  }
}

status detail::noisy_sum(int64_t sum, uint64_t width, double epsilon, random::drbg& rng, noisy_value* out) noexcept {
  *out = noisy_value{};
  if (wire::laplace_scale(width, epsilon, &out->scale_num, &out->scale_den) != status::ok)
    return status::invalid_argument;
  out->value =
      static_cast<double>(sum) + static_cast<double>(random::discrete_laplace(rng, out->scale_num, out->scale_den));
  out->epsilon_impl =
      static_cast<double>(width) * static_cast<double>(out->scale_den) / static_cast<double>(out->scale_num);
  return status::ok;
}

status winsorized_mean_1d(span<const int64_t> values, const winsorized_1d_options& options, random::drbg& rng,
                          winsorized_1d_result* out) noexcept {
  *out = winsorized_1d_result{};
  constexpr uint64_t limit = uint64_t{1} << 60;  // keeps midpoints and windows far inside int64
  if (values.empty() || !valid_epsilon(options.epsilon) || options.tau < 1 || options.tau >= limit ||
      options.range < 1 || options.range >= limit) {
    return status::invalid_argument;
  }
  try {
    const uint64_t bins = wire::bin_count(options.range, options.tau);
    std::vector<uint64_t> index(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) index[i] = wire::bin_of(values[i], options.range, options.tau);
    std::sort(index.begin(), index.end());
    std::vector<bin_count> occupied;
    for (uint64_t k : index) {
      if (occupied.empty() || occupied.back().bin != k) occupied.push_back({k, 0});
      ++occupied.back().count;
    }
    winsorized_1d_result r;
    double range_epsilon = 0;
    status s = private_range(occupied, bins, options.epsilon / 2, rng, &r.bin, &range_epsilon);
    if (s != status::ok) return s;
    const int64_t mid = wire::bin_midpoint(r.bin, options.range, options.tau);
    const auto w = static_cast<int64_t>(window_half_width(options.tau, options.window));
    r.window_lo = mid - w;
    r.window_hi = mid + w;
    for (int64_t v : values) {
      const int64_t clipped = std::clamp(v, r.window_lo, r.window_hi);
      if ((clipped > 0 && r.clipped_sum > INT64_MAX - clipped) ||
          (clipped < 0 && r.clipped_sum < INT64_MIN - clipped)) {
        return status::invalid_argument;
      }
      r.clipped_sum += clipped;
    }
    detail::noisy_value noisy;
    s = detail::noisy_sum(r.clipped_sum, 2 * static_cast<uint64_t>(w), options.epsilon / 2, rng, &noisy);
    if (s != status::ok) return s;
    r.mean = noisy.value / static_cast<double>(values.size());
    r.scale_num = noisy.scale_num;
    r.scale_den = noisy.scale_den;
    r.epsilon_impl = range_epsilon + noisy.epsilon_impl;
    *out = r;
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

}  // namespace ldp::server
