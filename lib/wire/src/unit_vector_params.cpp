#include "ldp/wire/unit_vector_params.h"

#include <cmath>
#include <limits>

#include "derivation.h"
#include "ldp/base/bits.h"
#include "ldp/wire/det_math.h"
#include "ldp/wire/mean_params.h"

namespace ldp::wire {
namespace {

constexpr unsigned threshold_bits = oracle_threshold_bits;
constexpr double one_d = 4294967296.0;  // 2^32
constexpr double pi = 3.141592653589793;

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

// 2^32 / ((2 T / 2^32 - 1) c_d), rounded to the nearest integer; 0 when it does not fit in 63 bits.
uint64_t l2_ball_output_scale(uint32_t d, uint64_t keep) {
  const double bias = (2 * static_cast<double>(keep) - one_d) / one_d;
  const double scale = one_d / (bias * sphere_abs_coordinate_mean(d));
  if (!(scale < 9.2e18)) return 0;
  return static_cast<uint64_t>(scale + 0.5);
}

}  // namespace

double sphere_abs_coordinate_mean(uint32_t d) noexcept {
  double c = d % 2 == 1 ? 1.0 : 2.0 / pi;
  for (uint32_t k = d % 2 == 1 ? 1 : 2; k + 2 <= d; k += 2) {
    c = c * static_cast<double>(k) / static_cast<double>(k + 1);
  }
  return c;
}

double unit_vector_scale(const params& p) noexcept { return static_cast<double>(p.get(field::output_scale)) / one_d; }

double detail::unit_vector_epsilon(const params& p) noexcept {
  const auto keep = static_cast<double>(p.get(field::threshold_keep));
  const double one = std::ldexp(1.0, static_cast<int>(p.get(field::threshold_bits)));
  if (keep <= 0 || keep >= one) return std::numeric_limits<double>::infinity();
  return det_log(keep) - det_log(one - keep);
}

bool detail::unit_vector_rules_hold(const params& p) noexcept {
  const uint64_t d = p.get(field::domain), w = p.get(field::threshold_bits), keep = p.get(field::threshold_keep);
  // The half toward the direction strictly more likely (epsilon_impl > 0, B > 0), B >= R (c_d <= 1).
  return d >= 1 && d <= unit_vector_max_dim && ball_fits(p.get_signed(field::radius), static_cast<uint32_t>(d)) &&
         2 * keep > (uint64_t{1} << w) && keep < (uint64_t{1} << w) &&
         p.get(field::output_scale) >= (uint64_t{1} << 32);
}

derived_params make_l2_ball(uint32_t d, double radius, unsigned frac_bits, double epsilon) noexcept {
  if (!valid_epsilon(epsilon) || d < 1 || d > unit_vector_max_dim || frac_bits > 62) return fail();
  int64_t fixed_radius = 0;
  if (to_fixed(radius, frac_bits, &fixed_radius) != status::ok || !ball_fits(fixed_radius, d)) return fail();
  const uint64_t keep = (uint64_t{1} << threshold_bits) - detail::binary_flip_threshold(epsilon);
  const uint64_t scale = l2_ball_output_scale(d, keep);
  if (scale == 0) return fail();
  derived_params out;
  out.block.mech = mechanism::l2_ball;
  out.block.set(field::domain, d).set(field::frac_bits, frac_bits).set_signed(field::radius, fixed_radius);
  out.block.set(field::threshold_bits, threshold_bits).set(field::threshold_keep, keep);
  out.block.set(field::output_scale, scale);
  out.code = validate(out.block) == status::ok ? status::ok : status::invalid_argument;
  out.epsilon_impl = implemented_epsilon(out.block);
  return out;
}

}  // namespace ldp::wire
