// Ghazi et al. Algorithm 6 (docs/mechanisms.md I.3.2): the regularized ERM solver with a public step
// count, the discrete Gaussian on the rounded minimizer, and the l-infinity projection.
#include "ldp/server/central/output_perturbation.h"

#include <cmath>
#include <new>

#include "ldp/base/bits.h"
#include "ldp/server/central/discrete_gaussian.h"
#include "ldp/server/central/l1_projection.h"
#include "ldp/server/central/sparse_projection.h"

namespace ldp::server {
namespace {

constexpr double max_steps = 1e8;

bool valid(const output_perturbation_options& o) {
  return o.n >= 1 && o.lipschitz > 0 && std::isfinite(o.lipschitz) && o.smoothness >= 0 &&
         std::isfinite(o.smoothness) && o.regularization > 0 && std::isfinite(o.regularization) &&
         o.solver_fraction > 0 && o.solver_fraction <= 1 && o.l1_radius >= 0 && std::isfinite(o.l1_radius) &&
         o.frac_bits <= 40;
}

// The l2 sensitivity of the exact regularized minimizer under replace-one (Bousquet-Elisseeff 2002;
// Chaudhuri, Monteleoni, Sarwate 2011): 2G / (lambda n).
double minimizer_sensitivity(const output_perturbation_options& o) {
  return 2 * o.lipschitz / (o.regularization * static_cast<double>(o.n));
}

double solver_tolerance(const output_perturbation_options& o) { return o.solver_fraction * minimizer_sensitivity(o); }

}  // namespace

status solve_regularized_erm(span<const double> w0, const erm_gradient& gradient,
                             const output_perturbation_options& options, std::vector<double>* w,
                             uint64_t* steps) noexcept {
  w->clear();
  *steps = 0;
  if (!valid(options) || w0.size() == 0 || !gradient) return status::invalid_argument;
  const double lambda = options.regularization, beta = options.smoothness;
  const double tau = solver_tolerance(options);
  // ||w0 - w*|| <= ||grad F_lambda(w0)|| / lambda <= G / lambda (strong convexity), and each step
  // contracts the distance by beta / (beta + lambda): this many steps reach tau from any data.
  double bound_steps = 0;
  const double start = options.lipschitz / lambda;
  if (start > tau) bound_steps = beta == 0 ? 1 : std::ceil(std::log(start / tau) / std::log((beta + lambda) / beta));
  if (!(bound_steps <= max_steps)) return status::invalid_argument;
  const double step = 1 / (beta + lambda);
  try {
    w->assign(w0.begin(), w0.end());
    std::vector<double> g(w0.size());
    for (uint64_t t = 0; t < static_cast<uint64_t>(bound_steps); ++t) {
      gradient(span<const double>(*w), span<double>(g));
      double norm = 0;
      for (std::size_t j = 0; j < g.size(); ++j) {
        g[j] += lambda * ((*w)[j] - w0[j]);
        norm += g[j] * g[j];
      }
      if (!std::isfinite(norm)) {
        w->clear();
        return status::invalid_argument;
      }
      if (std::sqrt(norm) <= lambda * tau) break;  // ||w - w*|| <= ||grad|| / lambda <= tau already
      for (std::size_t j = 0; j < g.size(); ++j) (*w)[j] -= step * g[j];
      ++*steps;
    }
  } catch (const std::bad_alloc&) {
    w->clear();
    return status::overflow;
  }
  return status::ok;
}

status project_linf_to_l1_ball(span<const double> v, span<const double> center, double radius,
                               std::vector<double>* out) noexcept {
  out->clear();
  if (v.size() != center.size()) return status::invalid_argument;
  try {
    std::vector<double> shifted(v.size());
    for (std::size_t j = 0; j < v.size(); ++j) shifted[j] = v[j] - center[j];
    const status s = project_l1_ball(shifted, radius, out);
    if (s != status::ok) return s;
    for (std::size_t j = 0; j < v.size(); ++j) (*out)[j] += center[j];
  } catch (const std::bad_alloc&) {
    out->clear();
    return status::overflow;
  }
  return status::ok;
}

status release_output_perturbation(span<const double> w0, const erm_gradient& gradient,
                                   const output_perturbation_options& options, random::drbg& rng,
                                   output_perturbation_release* out) noexcept {
  *out = output_perturbation_release{};
  if (!valid(options)) return status::invalid_argument;
  const double unit = std::ldexp(1.0, static_cast<int>(options.frac_bits));
  const double d = static_cast<double>(w0.size());
  const double sensitivity =
      std::ceil((minimizer_sensitivity(options) + 2 * solver_tolerance(options)) * unit + std::sqrt(d));
  if (!(sensitivity < 0x1p62)) return status::invalid_argument;
  output_perturbation_release r;
  r.sensitivity = static_cast<uint64_t>(sensitivity);
  if (gaussian_variance(r.sensitivity, options.epsilon, options.delta, &r.sigma2, &r.epsilon_impl) != status::ok) {
    return status::invalid_argument;
  }
  r.noise_sd = std::sqrt(static_cast<double>(r.sigma2)) / unit;
  std::vector<double> w;
  uint64_t steps = 0;
  const status solved = solve_regularized_erm(w0, gradient, options, &w, &steps);
  if (solved != status::ok) return solved;
  try {
    r.noisy.resize(w.size());
    for (std::size_t j = 0; j < w.size(); ++j) {
      const double scaled = std::nearbyint(w[j] * unit);
      if (!(std::fabs(scaled) < 0x1p62)) return status::overflow;
      int64_t noisy = 0;
      if (!checked_add(static_cast<int64_t>(scaled), discrete_gaussian(rng, r.sigma2), &noisy)) {
        return status::overflow;
      }
      r.noisy[j] = static_cast<double>(noisy) / unit;
    }
    if (options.l1_radius > 0) {
      const status projected = project_linf_to_l1_ball(r.noisy, w0, options.l1_radius, &r.projected);
      if (projected != status::ok) return projected;
    } else {
      r.projected = r.noisy;
    }
  } catch (const std::bad_alloc&) {
    return status::overflow;
  }
  *out = std::move(r);
  return status::ok;
}

}  // namespace ldp::server
