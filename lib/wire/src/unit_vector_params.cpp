#include "ldp/wire/unit_vector_params.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "derivation.h"
#include "ldp/base/bits.h"
#include "ldp/wire/det_math.h"
#include "ldp/wire/epsilon.h"
#include "ldp/wire/mean_params.h"

namespace ldp::wire {
namespace {

constexpr unsigned threshold_bits = oracle_threshold_bits;
constexpr double one_d = 4294967296.0;  // 2^32
constexpr double pi = 3.141592653589793;
constexpr double sqrt_two_pi = 2.5066282746310002;
constexpr double sigma = 67108864.0;            // 2^26, PrivUnitG's sigma (privunitg_sigma_log2)
constexpr uint32_t cap_grid_log2 = 10;          // t on the grid of 2^-10 (B.7 "Block")
constexpr double privunitg_min_epsilon = 1e-3;  // below it Q_hi / Q_lo would dominate (B.7)

derived_params fail() {
  derived_params out;
  out.code = status::invalid_argument;
  return out;
}

// R^2 * d~ < 2^62 (d~ = padded_dim(d)): the device's sum of squares and its clip (vector_mean.h
// clip_to_ball) stay exact in 64 bits.
bool ball_fits(int64_t radius, uint32_t d) {
  if (radius < 1 || radius >= (int64_t{1} << 31)) return false;
  const auto squared = static_cast<uint64_t>(radius) * static_cast<uint64_t>(radius);
  uint64_t bound = 0;
  return checked_mul(squared, padded_dim(d), &bound) && bound < (uint64_t{1} << 62);
}

// The arguments every unit-vector derivation shares (B.6 "Block"): epsilon, d, frac_bits, and the
// radius on the grid, which must fit the ball rule.
bool ball_arguments_hold(uint32_t d, double radius, unsigned frac_bits, double epsilon, int64_t* fixed_radius) {
  return valid_epsilon(epsilon) && d >= 1 && d <= unit_vector_max_dim && frac_bits <= 62 &&
         to_fixed(radius, frac_bits, fixed_radius) == status::ok && ball_fits(*fixed_radius, d);
}

params unit_vector_block(mechanism m, uint32_t d, unsigned frac_bits, int64_t radius, uint64_t keep, uint64_t scale) {
  params p;
  p.mech = m;
  p.set(field::domain, d).set(field::frac_bits, frac_bits).set_signed(field::radius, radius);
  p.set(field::threshold_bits, threshold_bits).set(field::threshold_keep, keep).set(field::output_scale, scale);
  return p;
}

// 2^32 / ((2 T / 2^32 - 1) c_d), rounded to the nearest integer; 0 when it does not fit in 63 bits.
uint64_t l2_ball_output_scale(uint32_t d, uint64_t keep) {
  const double bias = (2 * static_cast<double>(keep) - one_d) / one_d;
  const double scale = one_d / (bias * sphere_abs_coordinate_mean(d));
  if (!(scale < 9.2e18)) return 0;
  return static_cast<uint64_t>(scale + 0.5);
}

double normal_density(double s) { return det_exp(-s * s / 2) / sqrt_two_pi; }

// The probability of the cap at Qbar = Q that makes the level of the continuous mechanism exactly
// epsilon (e = e^epsilon): p (1 - Q) / ((1 - p) Q) = e (B.7 "Mechanism").
double ideal_keep(double e, double q) { return e * q / (1 - q + e * q); }

// The t of the grid of 2^-10 in [0, 3] minimizing the continuous second moment per report,
// (along + d - 1) / mean^2, at the ideal p (B.7 "Mechanism"), as its index j = t 2^10.
uint32_t optimal_cap_index(uint32_t d, double e) {
  const uint32_t last = privunitg_max_cap_threshold >> (privunitg_sigma_log2 - cap_grid_log2);
  uint32_t best = 0;
  double best_cost = std::numeric_limits<double>::infinity();
  for (uint32_t j = 0; j <= last; ++j) {
    const double t = std::ldexp(static_cast<double>(j), -static_cast<int>(cap_grid_log2));
    const privunitg_moment_pair m = privunitg_moments(t, ideal_keep(e, upper_normal_tail(t)));
    const double cost = (m.along + static_cast<double>(d) - 1) / (m.mean * m.mean);
    if (cost < best_cost) {
      best_cost = cost;
      best = j;
    }
  }
  return best;
}

}  // namespace

double upper_normal_tail(double s) noexcept {
  // The terms s^(2n+1) / (2n+1)!! are positive and fall below the sum's last bit after about 34 steps
  // for s <= 3.
  double sum = 0, term = s;
  for (unsigned n = 1; sum + term != sum && n < 200; ++n) {
    sum += term;
    term = term * s * s / static_cast<double>(2 * n + 1);
  }
  return 0.5 - normal_density(s) * sum;
}

cap_probability_bounds privunitg_cap_bounds(uint32_t cap_threshold) noexcept {
  const double q = upper_normal_tail(static_cast<double>(cap_threshold) / sigma);
  const double pad = privunitg_cap_error + std::ldexp(q, -30) + std::ldexp(1.0, -60);
  return {q - pad, q + pad};
}

double privunitg_epsilon(uint64_t keep, unsigned bits, uint32_t cap_threshold) noexcept {
  const double infinity = std::numeric_limits<double>::infinity();
  if (cap_threshold > privunitg_max_cap_threshold || bits < 1 || bits > 63) return infinity;
  const double one = std::ldexp(1.0, static_cast<int>(bits));
  const auto p = static_cast<double>(keep) / one;
  const cap_probability_bounds q = privunitg_cap_bounds(cap_threshold);
  if (keep >= (uint64_t{1} << bits) || !(p >= q.hi)) return infinity;
  const double other = static_cast<double>((uint64_t{1} << bits) - keep) / one;  // 1 - p, exact
  const double in_cap = det_log(p) + det_log(1 - q.lo) - det_log(other) - det_log(q.lo);
  const double cap_only = det_log(q.hi) - det_log(q.lo);
  const double out_only = det_log(1 - q.lo) - det_log(1 - q.hi);
  return std::max(in_cap, std::max(cap_only, out_only));
}

privunitg_moment_pair privunitg_moments(double t, double p) noexcept {
  const double q = upper_normal_tail(t), density = normal_density(t);
  return {density * (p / q - (1 - p) / (1 - q)), p * (1 + t * density / q) + (1 - p) * (1 - t * density / (1 - q))};
}

double sphere_abs_coordinate_mean(uint32_t d) noexcept {
  double c = d % 2 == 1 ? 1.0 : 2.0 / pi;
  for (uint32_t k = d % 2 == 1 ? 1 : 2; k + 2 <= d; k += 2) {
    c = c * static_cast<double>(k) / static_cast<double>(k + 1);
  }
  return c;
}

double unit_vector_scale(const params& p) noexcept { return static_cast<double>(p.get(field::output_scale)) / one_d; }

double detail::unit_vector_epsilon(const params& p) noexcept {
  const uint64_t w = p.get(field::threshold_bits), keep = p.get(field::threshold_keep);
  switch (unit_vector_of(p.mech)) {
    case unit_vector_member::l2_ball: {
      const auto t = static_cast<double>(keep);
      const double one = std::ldexp(1.0, static_cast<int>(w));
      if (t <= 0 || t >= one) return std::numeric_limits<double>::infinity();
      return det_log(t) - det_log(one - t);
    }
    case unit_vector_member::privunitg:
    case unit_vector_member::projunit:
    case unit_vector_member::fastprojunit:
      return privunitg_epsilon(keep, static_cast<unsigned>(w), static_cast<uint32_t>(p.get(field::cap_threshold)));
  }
  return std::numeric_limits<double>::infinity();
}

bool detail::unit_vector_rules_hold(const params& p) noexcept {
  const uint64_t d = p.get(field::domain), w = p.get(field::threshold_bits), keep = p.get(field::threshold_keep);
  // B >= R: l2-ball's c_d <= 1, PrivUnitG's mean <= 8 (its scale carries 2^3 for the report's units).
  if (d < 1 || d > unit_vector_max_dim || !ball_fits(p.get_signed(field::radius), static_cast<uint32_t>(d)) ||
      p.get(field::output_scale) < (uint64_t{1} << 32)) {
    return false;
  }
  switch (unit_vector_of(p.mech)) {
    // The half toward the direction strictly more likely (epsilon_impl > 0, B > 0).
    case unit_vector_member::l2_ball: return 2 * keep > (uint64_t{1} << w) && keep < (uint64_t{1} << w);
    // Q_hi <= p < 1 and t <= 3: the level of B.7 is finite.
    case unit_vector_member::privunitg: return unit_vector_epsilon(p) < std::numeric_limits<double>::infinity();
    case unit_vector_member::projunit:
    case unit_vector_member::fastprojunit:
      return projection_rules_hold(p) && unit_vector_epsilon(p) < std::numeric_limits<double>::infinity();
  }
  return false;
}

derived_params make_l2_ball(uint32_t d, double radius, unsigned frac_bits, double epsilon) noexcept {
  int64_t fixed_radius = 0;
  if (!ball_arguments_hold(d, radius, frac_bits, epsilon, &fixed_radius)) return fail();
  const uint64_t keep = (uint64_t{1} << threshold_bits) - detail::binary_flip_threshold(epsilon);
  const uint64_t scale = l2_ball_output_scale(d, keep);
  if (scale == 0) return fail();
  return detail::finish(unit_vector_block(mechanism::l2_ball, d, frac_bits, fixed_radius, keep, scale));
}

derived_params make_privunitg(uint32_t d, double radius, unsigned frac_bits, double epsilon) noexcept {
  int64_t fixed_radius = 0;
  if (!(epsilon >= privunitg_min_epsilon) || !ball_arguments_hold(d, radius, frac_bits, epsilon, &fixed_radius)) {
    return fail();
  }
  const double e = det_exp(epsilon);
  const uint32_t j = optimal_cap_index(d, e);
  const uint32_t cap = j << (privunitg_sigma_log2 - cap_grid_log2);
  const cap_probability_bounds q = privunitg_cap_bounds(cap);
  // Only the in-cap ratio depends on P_keep: the two others must fit on their own, or no P_keep does.
  const double floor_level = std::max(det_log(q.hi) - det_log(q.lo), det_log(1 - q.lo) - det_log(1 - q.hi));
  if (floor_level * epsilon_margin > epsilon) return fail();
  const double target = std::floor(ideal_keep(e, q.lo) * one_d);
  uint64_t keep = target >= one_d ? (uint64_t{1} << threshold_bits) - 1 : static_cast<uint64_t>(target);
  while (keep > 0 && privunitg_epsilon(keep, threshold_bits, cap) * epsilon_margin > epsilon) --keep;
  const double t = std::ldexp(static_cast<double>(j), -static_cast<int>(cap_grid_log2));
  const double mean = privunitg_moments(t, static_cast<double>(keep) / one_d).mean;
  const double scale = std::ldexp(1.0, 35) / mean;
  if (!(scale < 9.2e18)) return fail();
  params p =
      unit_vector_block(mechanism::privunitg, d, frac_bits, fixed_radius, keep, static_cast<uint64_t>(scale + 0.5));
  return detail::finish(p.set(field::cap_threshold, cap));
}

}  // namespace ldp::wire
