#include "ldp/server/central/dp_sgd.h"

#include <cmath>

#include "ldp/base/int128.h"
#include "ldp/server/central/accountant.h"
#include "ldp/server/central/discrete_gaussian.h"
#include "ldp/server/central/l2_projection.h"

namespace ldp::server {
namespace {

// Bounds that keep the exact sum of n clipped entries (each <= C) plus the noise inside int64 and
// the squared norms inside 128 bits.
constexpr unsigned max_frac_bits = 40;
constexpr uint64_t max_clip_units = uint64_t{1} << 40;
constexpr uint64_t max_users = uint64_t{1} << 21;

uint64_t magnitude(int64_t v) noexcept { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

// ||g||^2 <= c^2 exactly, for entries of magnitude <= c <= 2^40 (squares < 2^80, at most 2^40 of
// them before the sum could leave 128 bits; d is far below that).
bool inside(span<const int64_t> g, uint64_t c) noexcept {
  u128 sum{};
  for (const int64_t v : g) {
    if (magnitude(v) > c) return false;
    sum = sum + mul_64x64(magnitude(v), magnitude(v));
  }
  return !(mul_64x64(c, c) < sum);
}

bool valid(const dp_sgd_options& o, std::size_t dimension) noexcept {
  return o.users >= 1 && o.users <= max_users && o.steps >= 1 && o.learning_rate > 0 && o.clip > 0 &&
         o.frac_bits <= max_frac_bits && dp_sgd_clip_units(o.clip, o.frac_bits) <= max_clip_units && o.sigma2 >= 1 &&
         o.sigma2 <= discrete_gaussian_max_sigma2 && o.radius >= 0 && o.l2_regularization >= 0 && o.delta > 0 &&
         o.delta < 1 && dimension >= 1;
}

}  // namespace

uint64_t dp_sgd_clip_units(double clip, unsigned frac_bits) noexcept {
  const double c = std::floor(std::ldexp(clip, static_cast<int>(frac_bits)));
  if (!(c >= 0)) return 0;
  return c >= 18446744073709551615.0 ? UINT64_MAX : static_cast<uint64_t>(c);
}

uint64_t dp_sgd_sigma2_for(double epsilon, double delta, uint64_t steps, double clip, unsigned frac_bits) noexcept {
  return discrete_gaussian_sigma2_for(epsilon, delta, steps,
                                      2 * static_cast<double>(dp_sgd_clip_units(clip, frac_bits)));
}

void clip_on_grid(span<int64_t> g, uint64_t clip_units) noexcept {
  // First the scaled vector rounded to nearest (so a long vector lands on the sphere, not inside
  // it by a grid unit); if rounding pushed it out, passes truncating toward zero with a 2^-30
  // margin for the double norm's rounding: each strictly shrinks every non-zero entry, so they end.
  const double margin = 1 - std::ldexp(1.0, -30);
  for (bool nearest = true; !inside(g, clip_units); nearest = false) {
    double norm2 = 0;
    for (const int64_t v : g) norm2 += static_cast<double>(v) * static_cast<double>(v);
    double s = static_cast<double>(clip_units) / std::sqrt(norm2);
    if (!nearest) s = s < 1 ? s * margin : margin;
    for (int64_t& v : g) {
      const double scaled = static_cast<double>(v) * s;
      v = static_cast<int64_t>(nearest ? std::round(scaled) : scaled);
    }
  }
}

status dp_sgd_noisy_sum(const dp_sgd_gradient& gradient, uint64_t users, span<const double> weights,
                        uint64_t clip_units, uint64_t sigma2, random::drbg& rng, span<int64_t> noisy_sum) {
  std::vector<int64_t> g(noisy_sum.size());
  for (int64_t& v : noisy_sum) v = 0;
  for (uint64_t u = 0; u < users; ++u) {
    for (int64_t& v : g) v = 0;
    const status s = gradient(u, weights, g);
    if (s != status::ok) return s;
    clip_on_grid(g, clip_units);
    for (std::size_t j = 0; j < g.size(); ++j) noisy_sum[j] += g[j];
  }
  for (int64_t& v : noisy_sum) v += discrete_gaussian(rng, sigma2);
  return status::ok;
}

dp_sgd_result run_dp_sgd(const dp_sgd_options& options, span<const double> initial, const dp_sgd_gradient& gradient,
                         random::drbg& rng, const dp_sgd_observer& observer) {
  dp_sgd_result out;
  if (!valid(options, initial.size()) || !gradient) {
    out.code = status::invalid_argument;
    return out;
  }
  const std::size_t d = initial.size();
  const uint64_t clip_units = dp_sgd_clip_units(options.clip, options.frac_bits);
  const double scale = std::ldexp(1.0 / static_cast<double>(options.users), -static_cast<int>(options.frac_bits));
  out.last.assign(initial.begin(), initial.end());
  out.averaged = out.last;
  std::vector<int64_t> noisy_sum(d);
  for (uint64_t step = 1; step <= options.steps; ++step) {
    out.code = dp_sgd_noisy_sum(gradient, options.users, out.last, clip_units, options.sigma2, rng, noisy_sum);
    // A failed callback may have seen this step's iterate but no noise was released: not counted.
    if (out.code != status::ok) break;
    ++out.steps_taken;
    for (std::size_t j = 0; j < d; ++j) {
      const double g = static_cast<double>(noisy_sum[j]) * scale + options.l2_regularization * out.last[j];
      out.last[j] -= options.learning_rate * g;
    }
    project_l2_ball(out.last, options.radius);
    const double k = static_cast<double>(step);
    for (std::size_t j = 0; j < d; ++j) out.averaged[j] += (out.last[j] - out.averaged[j]) / k;
    if (observer && !observer(step, out.last)) break;
  }
  out.rho =
      discrete_gaussian_rho(2 * static_cast<double>(clip_units), static_cast<double>(options.sigma2), out.steps_taken);
  out.epsilon = zcdp_to_epsilon(out.rho, options.delta);
  return out;
}

}  // namespace ldp::server
