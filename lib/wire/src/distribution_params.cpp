#include "ldp/wire/distribution_params.h"

#include <cmath>

#include "derivation.h"
#include "ldp/base/int128.h"
#include "ldp/wire/det_math.h"

namespace ldp::wire {
namespace {

derived_params fail() {
  derived_params out;
  out.code = status::invalid_argument;
  return out;
}

bool buckets_ok(uint64_t d) { return d >= 2 && d <= distribution_max_buckets; }

// At least one grid point per bucket, so every bucket can be reported on (range_cells.h).
bool range_holds_buckets(const params& p) {
  const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
  return lo < hi && static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) >= p.get(field::domain);
}

// A tree-form block: the inner OLH block, then the range (and the fan-out).
derived_params tree_block(mechanism m, double epsilon, uint32_t buckets, uint32_t branching, double lo, double hi,
                          unsigned frac_bits) {
  if (!buckets_ok(buckets)) return fail();
  const derived_params inner = make_olh(epsilon, buckets);
  if (inner.code != status::ok) return inner.code == status::invalid_parameters ? inner : fail();
  params p = inner.block;
  p.mech = m;
  if (m == mechanism::hierarchical) p.set(field::branching, branching);
  if (!detail::set_range(p, lo, hi, frac_bits)) return fail();
  return detail::finish(p);
}

}  // namespace

uint32_t square_wave_half_width(double epsilon, uint32_t buckets) noexcept {
  const double e = det_exp(epsilon);
  const double b = (epsilon * e - e + 1) / (2 * e * (e - 1 - epsilon));
  const double width = std::floor(b * buckets + 0.5);
  return width >= static_cast<double>(buckets) ? buckets : static_cast<uint32_t>(width);
}

derived_params make_square_wave(double epsilon, uint32_t buckets, double lo, double hi, unsigned frac_bits,
                                int64_t half_width) noexcept {
  if (!valid_epsilon(epsilon) || !buckets_ok(buckets)) return fail();
  const uint64_t b = half_width < 0 ? square_wave_half_width(epsilon, buckets) : static_cast<uint64_t>(half_width);
  if (b > buckets) return fail();
  params p;
  p.mech = mechanism::square_wave;
  p.set(field::domain, buckets).set(field::threshold_bits, oracle_threshold_bits).set(field::window_half_width, b);
  p.set(field::threshold_keep, detail::window_threshold(epsilon, 2 * b + 1, buckets - 1));
  if (!detail::set_range(p, lo, hi, frac_bits)) return fail();
  return detail::finish(p);
}

uint32_t default_branching(uint32_t buckets) noexcept {
  uint32_t best = 0;
  double best_cost = 0;
  for (uint32_t b = 2; b <= 16; ++b) {
    params p;
    p.mech = mechanism::hierarchical;
    p.set(field::domain, buckets).set(field::branching, b);
    if (distribution_levels(p) == 0) continue;
    const double cost = (b - 1) / (std::log(b) * std::log(b));
    if (best == 0 || cost < best_cost) best = b, best_cost = cost;
  }
  return best;
}

derived_params make_hierarchical(double epsilon, uint32_t buckets, uint32_t branching, double lo, double hi,
                                 unsigned frac_bits) noexcept {
  return tree_block(mechanism::hierarchical, epsilon, buckets, branching == 0 ? default_branching(buckets) : branching,
                    lo, hi, frac_bits);
}

derived_params make_haar(double epsilon, uint32_t buckets, double lo, double hi, unsigned frac_bits) noexcept {
  return tree_block(mechanism::haar, epsilon, buckets, 2, lo, hi, frac_bits);
}

uint32_t distribution_item(const params& p, uint32_t g, uint32_t bucket) noexcept {
  const uint32_t h = distribution_levels(p);
  if (p.mech == mechanism::haar) {
    const uint32_t shift = h - g;  // a coefficient of level g spans 2^(h - g) buckets
    return ((bucket >> shift) << 1) | ((bucket >> (shift - 1)) & 1u);
  }
  const uint64_t b = distribution_branching(p);
  uint64_t span_of_node = 1;
  for (uint32_t i = g + 1; i < h; ++i) span_of_node *= b;
  return static_cast<uint32_t>(bucket / span_of_node);
}

bool detail::distribution_rules_hold(const params& p) noexcept {
  if (!buckets_ok(p.get(field::domain)) || !range_holds_buckets(p)) return false;
  if (p.mech == mechanism::square_wave) {
    const uint64_t b = p.get(field::window_half_width), others = p.get(field::domain) - 1;
    const uint64_t keep = p.get(field::threshold_keep), w = p.get(field::threshold_bits);
    if (b > p.get(field::domain)) return false;
    // A window value more likely than any other (epsilon_impl > 0): T (D - 1) > (2^w - T)(2b + 1).
    return mul_64x64((uint64_t{1} << w) - keep, 2 * b + 1) < mul_64x64(keep, others);
  }
  const uint64_t b = distribution_branching(p);
  return b >= 2 && b <= 256 && distribution_levels(p) >= 1 && validate(distribution_inner_block(p)) == status::ok;
}

double detail::square_wave_epsilon(const params& p) noexcept {
  return window_epsilon(p.get(field::threshold_keep), 2 * p.get(field::window_half_width) + 1,
                        p.get(field::domain) - 1);
}

}  // namespace ldp::wire
