#include "ldp/wire/mean_params.h"

#include <cmath>
#include <limits>

#include "derivation.h"
#include "ldp/base/bits.h"
#include "ldp/base/fixed_point.h"
#include "ldp/wire/det_math.h"

namespace ldp::wire {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

// Delta * t_den / t_num: one rounding each for the two conversions and the division (t_den is a
// power of two), far inside the 2^-40 margin.
double laplace_level(uint64_t delta, uint64_t t_num, uint64_t t_den) {
  return static_cast<double>(delta) * static_cast<double>(t_den) / static_cast<double>(t_num);
}

derived_params fail() {
  derived_params out;
  out.code = status::invalid_argument;
  return out;
}

using detail::finish;
using detail::set_range;

bool magnitude_fits(int64_t v) { return v >= -laplace_max_magnitude && v <= laplace_max_magnitude; }

derived_params make_scaled(params p, double epsilon) {
  uint64_t t_num = 0, t_den = 0;
  if (laplace_scale(sensitivity(p), epsilon, &t_num, &t_den) != status::ok) return fail();
  p.set(field::scale_num, t_num).set(field::scale_den, t_den);
  return finish(p);
}

// epsilon_impl of the two noises (Table D.1 rows discrete Laplace and Duchi).
double laplace_epsilon(const params& p) {
  return laplace_level(sensitivity(p), p.get(field::scale_num), p.get(field::scale_den));
}

double duchi_epsilon(const params& p) {
  const uint64_t t_hi = p.get(field::threshold_keep), t_lo = p.get(field::threshold_other);
  if (t_lo == 0) return infinity;
  return det_log(static_cast<double>(t_hi)) - det_log(static_cast<double>(t_lo));
}

// One report of a memoized duchi block (docs/mechanisms.md E.2): the bit is 1 with
// (Phi 2^w + (2^w - 2 Phi) N) / 2^2w for the permanent probability N / 2^w, which alpha-point
// rounding keeps linear in x (its average over alpha is x). The range ends give the worst pair.
// Each product is below 2^64 and rounds once in double, far inside the D.1 margin; the level is
// not stepped against a request (the flip only lowers it below the duchi level).
double memoized_report_epsilon(const params& p) {
  const double one = std::ldexp(1.0, static_cast<int>(duchi_threshold_bits));
  const auto flip = static_cast<double>(p.get(field::output_flip));
  const double keep = one - 2 * flip;
  const auto t_hi = static_cast<double>(p.get(field::threshold_keep));
  const auto t_lo = static_cast<double>(p.get(field::threshold_other));
  return det_log(flip * one + keep * t_hi) - det_log(flip * one + keep * t_lo);
}

}  // namespace

status to_fixed(double x, unsigned frac_bits, int64_t* out) noexcept {
  if (frac_bits > 62) {
    *out = 0;
    return status::invalid_argument;
  }
  const q_result r = ldp::to_fixed(x, static_cast<int>(frac_bits), INT64_MIN, INT64_MAX);
  *out = r.value;
  return r.code;
}

status laplace_scale(uint64_t delta, double epsilon, uint64_t* t_num, uint64_t* t_den) noexcept {
  *t_num = *t_den = 0;
  if (!valid_epsilon(epsilon) || delta == 0) return status::invalid_argument;
  const double margin = epsilon_margin;
  const double ideal = static_cast<double>(delta) / epsilon * margin;  // t in grid units
  if (!(ideal <= static_cast<double>(laplace_max_scale))) return status::invalid_argument;
  // The finest power-of-two denominator (at most laplace_scale_den) that keeps t_num <= 2^58.
  int shift = laplace_scale_den_bits;
  while (shift > 0 && std::ldexp(ideal, shift) > static_cast<double>(laplace_max_scale_num)) --shift;
  const uint64_t den = uint64_t{1} << shift;
  uint64_t num = static_cast<uint64_t>(std::ceil(std::ldexp(ideal, shift)));
  // The smallest t_num that passes: ceil may land a step above it, rounding a step below.
  while (num > 1 && laplace_level(delta, num - 1, den) <= epsilon / margin) --num;
  while (laplace_level(delta, num, den) > epsilon / margin) ++num;
  uint64_t limit = 0;  // t <= 2^56: t_num <= 2^56 t_den, which cannot bind when that overflows
  if (num > laplace_max_scale_num || (checked_mul(laplace_max_scale, den, &limit) && num > limit)) {
    return status::invalid_argument;
  }
  *t_num = num;
  *t_den = den;
  return status::ok;
}

status duchi_thresholds(double epsilon, uint64_t* t_lo, uint64_t* t_hi) noexcept {
  *t_lo = *t_hi = 0;
  if (!valid_epsilon(epsilon)) return status::invalid_argument;
  const uint64_t one = uint64_t{1} << duchi_threshold_bits;
  const uint64_t lo = detail::binary_flip_threshold(epsilon);
  if (lo >= one - lo) return status::invalid_argument;  // epsilon_impl = 0: no estimator
  *t_lo = lo;
  *t_hi = one - lo;
  return status::ok;
}

derived_params make_laplace(double lo, double hi, unsigned frac_bits, double epsilon) noexcept {
  params p;
  p.mech = mechanism::laplace;
  if (!set_range(p, lo, hi, frac_bits)) return fail();
  return make_scaled(p, epsilon);
}

derived_params make_laplace_vector(uint32_t d, double lo, double hi, unsigned frac_bits, double epsilon) noexcept {
  params p;
  p.mech = mechanism::laplace_vector;
  return detail::laplace_vector_block(p, d, lo, hi, frac_bits, epsilon);
}

derived_params detail::laplace_vector_block(params p, uint32_t d, double lo, double hi, unsigned frac_bits,
                                            double epsilon) noexcept {
  p.set(field::domain, d);
  uint64_t delta = 0;
  if (d == 0 || !set_range(p, lo, hi, frac_bits) || !checked_mul(range_width(p), d, &delta) ||
      delta > (uint64_t{1} << 62)) {
    return fail();
  }
  return make_scaled(p, epsilon);
}

derived_params make_duchi(double lo, double hi, unsigned frac_bits, double epsilon) noexcept {
  params p;
  p.mech = mechanism::duchi;
  uint64_t t_lo = 0, t_hi = 0;
  if (!set_range(p, lo, hi, frac_bits) || duchi_thresholds(epsilon, &t_lo, &t_hi) != status::ok) {
    return fail();
  }
  p.set(field::threshold_bits, duchi_threshold_bits);
  p.set(field::threshold_keep, t_hi).set(field::threshold_other, t_lo);
  return finish(p);
}

derived_params make_memoized_duchi(double lo, double hi, unsigned frac_bits, double epsilon, uint32_t grid,
                                   double flip) noexcept {
  derived_params base = make_duchi(lo, hi, frac_bits, epsilon);
  if (base.code != status::ok || !(flip >= 0 && flip < 0.5)) return fail();
  params p = base.block;
  p.set(field::memo_grid, grid);
  p.set(field::output_flip, static_cast<uint64_t>(std::floor(std::ldexp(flip, duchi_threshold_bits) + 0.5)));
  return finish(p);  // validate() refuses k = 0, k above memo_grid_max, k not dividing Q, Phi = 2^31
}

namespace detail {

derived_params finish(const params& p) noexcept {
  derived_params out;
  out.block = p;
  out.code = validate(p) == status::ok ? status::ok : status::invalid_argument;
  out.epsilon_impl = implemented_epsilon(p);
  return out;
}

double mean_epsilon(const params& p) noexcept {
  switch (mean_of(p.mech)) {  // the kent-refine is a discrete Laplace value
    case mean_member::laplace:
    case mean_member::laplace_vector:
    case mean_member::bernstein:
    case mean_member::kway_marginals:
    case mean_member::smooth_queries: return laplace_epsilon(p);
    case mean_member::duchi: return is_memoized_mean(p) ? memoized_report_epsilon(p) : duchi_epsilon(p);
  }
  return std::numeric_limits<double>::quiet_NaN();  // a value outside the enumeration
}

double mean_longitudinal_epsilon(const params& p) noexcept {
  // Only the permanent bits of a memoized duchi block bound what repeated reports reveal (E.2);
  // fresh coins per report compose without limit.
  return mean_of(p.mech) == mean_member::duchi && is_memoized_mean(p) ? duchi_epsilon(p) : infinity;
}

double vector_mean_epsilon(const params& p) noexcept {
  switch (vector_mean_of(p.mech)) {
    case vector_mean_member::laplace: return laplace_epsilon(p);
    case vector_mean_member::duchi: return duchi_epsilon(p);
  }
  return std::numeric_limits<double>::quiet_NaN();  // a value outside the enumeration
}

bool numeric_rules_hold(const params& p) noexcept {
  const uint64_t q = range_width(p);
  if (p.has(field::scale_num)) {
    // Discrete Laplace (B.1): no saturation in practice, an exact sampler, Delta below 2^63.
    const value_range r = range_of(p);
    const uint64_t t_num = p.get(field::scale_num);
    uint64_t limit = 0;
    if (!magnitude_fits(r.lo) || !magnitude_fits(r.hi) || t_num > laplace_max_scale_num) return false;
    if (checked_mul(laplace_max_scale, p.get(field::scale_den), &limit) && t_num > limit) return false;
    uint64_t delta = 0;
    if (is_laplace_vector_block(p) && (!checked_mul(q, p.get(field::domain), &delta) || delta > (uint64_t{1} << 62))) {
      return false;
    }
  }
  const payload_kind kind = kind_of(p.mech);
  if ((kind == payload_kind::bit || kind == payload_kind::coordinate_bit) &&
      !in_family(p.mech, mechanism_family::public_coin)) {
    // Duchi (B.2): symmetric thresholds T_lo + T_hi = 2^w with 1 <= T_lo < T_hi (a finite level
    // above 0, an unbiased estimator), and a uniform in [0, 2^w * Q) that fits 64 bits.
    const uint64_t w = p.get(field::threshold_bits);
    const uint64_t t_hi = p.get(field::threshold_keep), t_lo = p.get(field::threshold_other);
    if (t_lo == 0 || t_lo >= t_hi || t_lo + t_hi != (uint64_t{1} << w)) return false;
    if (q > (uint64_t{1} << (64 - w))) return false;
  }
  if (p.has(field::memo_grid)) {
    // Memoized duchi (E.2): k + 1 grid points s = Q / k apart (k divides Q), and a flip below 1/2
    // (at 1/2 the report would say nothing: no estimator).
    const uint64_t k = p.get(field::memo_grid);
    if (k < 1 || k > memo_grid_max || q % k != 0) return false;
    if (p.get(field::output_flip) >= (uint64_t{1} << (duchi_threshold_bits - 1))) return false;
  }
  return true;
}

}  // namespace detail

bool detail::set_range(params& p, double lo, double hi, unsigned frac_bits) noexcept {
  int64_t flo = 0, fhi = 0;
  if (frac_bits > 62 || to_fixed(lo, frac_bits, &flo) != status::ok || to_fixed(hi, frac_bits, &fhi) != status::ok ||
      flo >= fhi) {
    return false;
  }
  p.set(field::frac_bits, frac_bits).set_signed(field::clip_lo, flo).set_signed(field::clip_hi, fhi);
  return true;
}

}  // namespace ldp::wire
