#include "ldp/wire/public_coin_params.h"

#include <cmath>
#include <limits>

#include "derivation.h"
#include "ldp/wire/det_math.h"
#include "ldp/wire/epsilon.h"
#include "ldp/wire/mean_params.h"

namespace ldp::wire {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr uint64_t coin_one = uint64_t{1} << public_coin_threshold_bits;

bool shape_ok(const public_coin_shape& s, mechanism m) {
  if (s.frac_bits < 1 || s.frac_bits > public_coin_max_frac_bits || !is_loss_kind(static_cast<uint32_t>(s.loss))) {
    return false;
  }
  return m != mechanism::bernstein_genprot || (s.strings >= 2 && s.strings <= genprot_max_strings);
}

params block_of(mechanism m, const public_coin_shape& s, uint64_t t_num) {
  params p;
  p.mech = m;
  p.set(field::vector_dim, s.dim).set(field::grid_size, s.grid).set(field::loss, static_cast<uint32_t>(s.loss));
  p.set(field::users, s.users).set(field::frac_bits, s.frac_bits).set_seed(field::hash_seed, s.seed);
  p.set(field::scale_num, t_num).set(field::scale_den, laplace_scale_den);
  if (m == mechanism::bernstein_genprot) p.set(field::public_strings, s.strings);
  return p;
}

// The level of the ideal (unrounded) thresholds at inner level x = V / t (H.2, H.3): the start of
// the search, which the integers then step from.
double ideal_level(mechanism m, double x, uint32_t strings) {
  coin_levels c;
  c.bit_one = x;
  c.bit_zero = -det_log(2 - det_exp(x));
  c.p_lo = det_exp(-x) / 2;
  c.p_hi = det_exp(x) / 2;
  return m == mechanism::bernstein_genprot ? genprot_level(c, strings) : c.bit_zero;
}

derived_params make_public_coin(mechanism m, double epsilon, const public_coin_shape& s) {
  derived_params out;
  out.code = status::invalid_argument;
  if (!valid_epsilon(epsilon) || !shape_ok(s, m)) return out;
  const double target = epsilon / epsilon_margin;
  // The inner level x in (0, ln 2) with ideal_level(x) = target, by bisection (the level increases
  // with x); for one bit it is one_bit_inner_epsilon(epsilon).
  double lo = 0, hi = 0.6931471805599453;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (ideal_level(m, mid, s.strings) <= target ? lo : hi) = mid;
  }
  if (!(lo > 0)) return out;  // genprot's floor: no scale reaches epsilon
  const double grid = std::ldexp(1.0, static_cast<int>(s.frac_bits));
  const double ideal = std::ceil(grid / lo * static_cast<double>(laplace_scale_den));
  if (!(ideal <= static_cast<double>(laplace_max_scale_num))) return out;
  // The rounded thresholds may sit a hair above the ideal level: the smallest scale at or above the
  // ideal whose level fits (D.1 step 3), by doubling steps, then bisection between the last scale
  // that failed and the first that fits.
  const auto fits = [&](uint64_t num) {
    const params p = block_of(m, s, num);
    return validate(p) == status::ok && detail::public_coin_epsilon(p) * epsilon_margin <= epsilon;
  };
  uint64_t failed = static_cast<uint64_t>(ideal) - 1, step = 1;
  if (validate(block_of(m, s, failed + 1)) != status::ok) return out;
  while (!fits(failed + step)) {
    failed += step;
    step *= 2;
    if (failed + step > laplace_max_scale_num) return out;
  }
  uint64_t passed = failed + step;
  while (passed - failed > 1) {
    const uint64_t mid = failed + (passed - failed) / 2;
    (fits(mid) ? passed : failed) = mid;
  }
  return detail::finish(block_of(m, s, passed));
}

}  // namespace

double one_bit_inner_epsilon(double epsilon) noexcept { return det_log(2 - det_exp(-epsilon)); }

derived_params make_bernstein_1bit(double epsilon, const public_coin_shape& shape) noexcept {
  return make_public_coin(mechanism::bernstein_1bit, epsilon, shape);
}

derived_params make_bernstein_genprot(double epsilon, const public_coin_shape& shape) noexcept {
  return make_public_coin(mechanism::bernstein_genprot, epsilon, shape);
}

uint32_t coin_groups(const params& p) noexcept {
  const uint64_t g =
      grid_point_count(static_cast<uint32_t>(p.get(field::vector_dim)), static_cast<uint32_t>(p.get(field::grid_size)));
  return g > public_coin_max_groups ? 0 : static_cast<uint32_t>(g);
}

uint64_t coin_threshold(const params& p, int64_t a) noexcept {
  const double exponent = static_cast<double>(a) * static_cast<double>(p.get(field::scale_den)) /
                          static_cast<double>(p.get(field::scale_num));
  const double scaled = std::ldexp(det_exp(exponent), static_cast<int>(public_coin_threshold_bits) - 1) + 0.5;
  return scaled >= static_cast<double>(coin_one) ? coin_one : static_cast<uint64_t>(scaled);
}

coin_levels enumerate_levels(const params& p) noexcept {
  coin_levels c;
  const int64_t grid = coin_grid(p);
  uint64_t previous = 0;
  for (int64_t a = -grid; a <= grid; ++a) {
    const uint64_t t = coin_threshold(p, a);
    if (t < previous) return c;  // not monotone: the interval ends would not decide
    previous = t;
  }
  const uint64_t t_min = coin_threshold(p, -grid), t_max = coin_threshold(p, grid);
  if (t_min < 1 || t_max >= coin_one) return c;
  const auto ln = [](uint64_t v) { return det_log(static_cast<double>(v)); };
  for (int64_t y = 0; y <= grid; ++y) {
    const int64_t lo = 2 * y - grid < 0 ? 2 * y - grid : 0;
    const uint64_t t_lo = coin_threshold(p, lo), t_hi = coin_threshold(p, y);
    const double one = ln(t_hi) - ln(t_lo), zero = ln(coin_one - t_lo) - ln(coin_one - t_hi);
    if (one > c.bit_one) c.bit_one = one;
    if (zero > c.bit_zero) c.bit_zero = zero;
  }
  c.p_lo = std::ldexp(static_cast<double>(t_min), -static_cast<int>(public_coin_threshold_bits));
  c.p_hi = std::ldexp(static_cast<double>(t_max), -static_cast<int>(public_coin_threshold_bits));
  c.finite = true;
  return c;
}

double genprot_level(const coin_levels& c, uint32_t strings) noexcept {
  // H.3: P(g = s | v) = p_s E[1 / (1 + K)] + prod_t (1 - p_t) / T with K the ones among the other
  // T - 1 samples. 1 / (1 + mu) <= E[1 / (1 + K)] <= 1 / mu (Jensen; E x^K <= e^{-mu (1 - x)}),
  // mu = sum of their p_t, and the p_t of two neighbours differ by e^{bit_one} at most.
  const double t = strings, others = t - 1;
  const double selected = det_exp(2 * c.bit_one) * (1 + 1 / (others * c.p_lo));
  const double empty = det_exp(t * det_log(1 - c.p_lo)) * (1 + others * c.p_hi) / (t * c.p_lo);
  return det_log(selected + empty);
}

bool detail::public_coin_rules_hold(const params& p) noexcept {
  // 1 <= f <= 16; a known loss; 1 <= k, p; (k + 1)^p <= 2^24 groups, each with a user: n >= (k + 1)^p;
  // genprot: 2 <= T <= 65536.
  const uint64_t f = p.get(field::frac_bits), k = p.get(field::grid_size), dim = p.get(field::vector_dim);
  if (f < 1 || f > public_coin_max_frac_bits || k < 1 || dim < 1) return false;
  if (!is_loss_kind(static_cast<uint32_t>(p.get(field::loss)))) return false;
  const uint32_t groups = coin_groups(p);
  if (groups == 0 || p.get(field::users) < groups) return false;
  if (p.mech == mechanism::bernstein_genprot) {
    const uint64_t t = p.get(field::public_strings);
    if (t < 2 || t > genprot_max_strings) return false;
  }
  return true;
}

double detail::public_coin_epsilon(const params& p) noexcept {
  const coin_levels c = enumerate_levels(p);
  if (!c.finite) return infinity;
  switch (public_coin_of(p.mech)) {
    case public_coin_member::one_bit: return c.bit_one > c.bit_zero ? c.bit_one : c.bit_zero;
    case public_coin_member::genprot: return genprot_level(c, static_cast<uint32_t>(p.get(field::public_strings)));
  }
  return infinity;
}

}  // namespace ldp::wire
