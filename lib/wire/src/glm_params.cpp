#include "ldp/wire/glm_params.h"

#include <cmath>
#include <limits>

#include "derivation.h"
#include "ldp/wire/det_math.h"
#include "ldp/wire/epsilon.h"

namespace ldp::wire {
namespace {

derived_params fail() noexcept {
  derived_params out;
  out.code = status::invalid_argument;
  return out;
}

// One order's bound of CKS 2020 Corollary 13, rewritten with ln(1 - 1/a) = ln(a - 1) - ln a:
// a rho + (L - a ln a) / (a - 1) + ln(a - 1), L = ln(1/delta), for a = 1 + b, b > 0.
double order_bound(double rho, double log_inverse_delta, double b) noexcept {
  const double a = 1.0 + b;
  return a * rho + (log_inverse_delta - a * det_log(a)) / b + det_log(b);
}

// (p + 4) Q^2 / 2 per unit of 1/sigma2 and copy (the squared L2 sensitivity over 2).
double half_sensitivity_squared(uint64_t dimension, unsigned frac_bits) noexcept {
  return std::ldexp(static_cast<double>(dimension + 4), 2 * static_cast<int>(frac_bits) - 1);
}

}  // namespace

uint32_t glm_degree_for_accuracy(double alpha) noexcept {
  if (!(alpha > 0)) return 0;
  const double d = 32.0 / (alpha * alpha * alpha);
  if (!(d <= glm_max_degree)) return 0;
  auto degree = static_cast<uint32_t>(d);
  if (static_cast<double>(degree) < d) ++degree;
  return degree < 1 ? 1 : degree;
}

double zcdp_epsilon(double rho, double delta) noexcept {
  if (!(rho >= 0) || !(delta > 0) || !(delta < 1)) return std::numeric_limits<double>::quiet_NaN();
  if (rho == 0) return 0;
  const double log_inverse_delta = -det_log(delta);
  // Grid b = a - 1 = 2^(k/4), k in [-160, 160]: the optimum a ~ 1 + sqrt(L / rho) lies inside for
  // every rho the blocks can hold (D (p + 4) Q^2 / 2^53 <= rho <= 2^40).
  const auto b_of = [](double k) { return det_exp(k / 4.0 * 0.6931471805599453); };
  int best_k = -160;
  double best = order_bound(rho, log_inverse_delta, b_of(-160));
  for (int k = -159; k <= 160; ++k) {
    const double v = order_bound(rho, log_inverse_delta, b_of(k));
    if (v < best) {
      best = v;
      best_k = k;
    }
  }
  // Golden-section search for the minimum between the grid's neighbours (the bound is convex in
  // ln b near its minimum); any b is a valid order, so the result is a bound whatever it finds.
  double lo = best_k - 1.0, hi = best_k + 1.0;
  const double ratio = 0.6180339887498949;
  for (int i = 0; i < 60; ++i) {
    const double m1 = hi - ratio * (hi - lo), m2 = lo + ratio * (hi - lo);
    if (order_bound(rho, log_inverse_delta, b_of(m1)) < order_bound(rho, log_inverse_delta, b_of(m2))) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  const double refined = order_bound(rho, log_inverse_delta, b_of((lo + hi) / 2));
  if (refined < best) best = refined;
  return best < 0 ? 0 : best;
}

double glm_rho(const params& p) noexcept {
  const double copies = static_cast<double>(glm_copy_count(p.get(field::degree)));
  return copies * half_sensitivity_squared(p.get(field::vector_dim), static_cast<unsigned>(p.get(field::frac_bits))) /
         static_cast<double>(p.get(field::noise_sigma2));
}

double glm_delta(const params& p) noexcept { return std::ldexp(static_cast<double>(p.get(field::privacy_delta)), -64); }

derived_params make_glm_copies(double epsilon, double delta, const glm_shape& shape) noexcept {
  if (!valid_epsilon(epsilon) || !(delta > std::ldexp(1.0, -64)) || !(delta < 0.5)) return fail();
  if (shape.degree < 1 || shape.degree > glm_max_degree || shape.dimension < 1 || shape.dimension > glm_max_dimension ||
      shape.frac_bits > glm_max_frac_bits) {
    return fail();
  }
  params p;
  p.mech = mechanism::glm_copies;
  const uint64_t copies = glm_copy_count(shape.degree);
  p.set(field::domain, copies * (uint64_t{shape.dimension} + 1)).set(field::vector_dim, shape.dimension);
  p.set(field::frac_bits, shape.frac_bits).set(field::degree, shape.degree);
  // delta rounded down: the stored delta never exceeds the one asked for.
  p.set(field::privacy_delta, static_cast<uint64_t>(std::ldexp(delta, 64)));
  const double stored_delta = glm_delta(p);
  // The largest rho whose bound fits (zcdp_epsilon increases with rho): bisection on [0, epsilon].
  double lo = 0, hi = epsilon;
  for (int i = 0; i < 64; ++i) {
    const double mid = (lo + hi) / 2;
    (zcdp_epsilon(mid, stored_delta) * epsilon_margin <= epsilon ? lo : hi) = mid;
  }
  if (!(lo > 0)) return fail();
  const double sigma2 =
      std::ceil(static_cast<double>(copies) * half_sensitivity_squared(shape.dimension, shape.frac_bits) / lo);
  if (!(sigma2 >= 1) || !(sigma2 <= static_cast<double>(glm_max_sigma2))) return fail();
  p.set(field::noise_sigma2, static_cast<uint64_t>(sigma2));
  // D.1 step 3: the level of the stored integers, stepped toward privacy until it fits.
  while (detail::glm_epsilon(p) * epsilon_margin > epsilon) {
    const uint64_t s = p.get(field::noise_sigma2);
    if (s >= glm_max_sigma2) return fail();
    p.set(field::noise_sigma2, s + 1 + (s >> 40));
  }
  return detail::finish(p);
}

bool detail::glm_rules_hold(const params& p) noexcept {
  const uint64_t d = p.get(field::degree), dim = p.get(field::vector_dim), s2 = p.get(field::noise_sigma2);
  const uint64_t delta = p.get(field::privacy_delta);
  if (d < 1 || d > glm_max_degree || dim < 1 || dim > glm_max_dimension) return false;
  if (p.get(field::frac_bits) > glm_max_frac_bits) return false;
  if (s2 < 1 || s2 > glm_max_sigma2) return false;
  if (delta < 1 || delta >= (uint64_t{1} << 63)) return false;
  return p.get(field::domain) == glm_copy_count(d) * (dim + 1);
}

double detail::glm_epsilon(const params& p) noexcept { return zcdp_epsilon(glm_rho(p), glm_delta(p)); }

}  // namespace ldp::wire
