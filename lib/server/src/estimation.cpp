// Shared estimation pieces: docs/mechanisms.md A.0 (the variance template, plug-in c_v clipped to
// [0, n]), the implemented support models of the pure oracles and the normal-approximation interval.
#include <algorithm>
#include <cmath>
#include <limits>

#include "estimation.h"
#include "ldp/wire/oracle_params.h"
#include "support_model.h"

namespace ldp::server::detail {

double threshold_probability(const wire::params& p, wire::field f) noexcept {
  const int w = static_cast<int>(p.get(wire::field::threshold_bits));
  return std::ldexp(static_cast<double>(p.get(f)), -w);
}

support_model pure_model(const wire::params& p) noexcept {
  using wire::field;
  using wire::frequency_oracle;
  support_model model;
  model.p = threshold_probability(p, field::threshold_keep);
  switch (wire::oracle_of(p.mech)) {  // the kent-vote is counted as SUE
    case frequency_oracle::grr: {
      // (1 - T/2^w)/(d - 1) = (2^w - T)/(2^w (d - 1)), with 2^w - T exact in integers.
      const int w = static_cast<int>(p.get(field::threshold_bits));
      const uint64_t rest = (uint64_t{1} << w) - p.get(field::threshold_keep);
      model.q = std::ldexp(static_cast<double>(rest), -w) / static_cast<double>(p.get(field::domain) - 1);
      break;
    }
    case frequency_oracle::sue:
    case frequency_oracle::oue: model.q = threshold_probability(p, field::threshold_other); break;
    case frequency_oracle::blh:
    case frequency_oracle::olh:
    case frequency_oracle::flh: model.q = 1.0 / static_cast<double>(p.get(field::hash_range)); break;  // q* (A.4)
    case frequency_oracle::hr: model.q = 0.5; break;  // orthogonal rows (A.5)
    case frequency_oracle::cms:
    case frequency_oracle::hcms:
    case frequency_oracle::dbitflip: model = support_model{}; break;  // not a pure protocol
  }
  if (wire::is_memoized(p)) {
    // One report of each device passes both stages: the composite channel replaces the permanent
    // stage's p (and q for unary; local hashing keeps q* = 1/g, which holds for any keep), and
    // devices are independent, each with its own secret (docs/mechanisms.md E.1).
    const wire::memo_channel composite = wire::composite_channel(p);
    model.p = composite.p;
    if (wire::kind_of(p.mech) == wire::payload_kind::unary_bits) model.q = composite.q;
  }
  return model;
}

double sketch_scale(const wire::params& p) noexcept {
  return 1 / (1 - 2 * threshold_probability(p, wire::field::threshold_other));
}

double confidence_z(double confidence) noexcept {
  if (!(confidence >= 0 && confidence <= 1)) return std::numeric_limits<double>::quiet_NaN();
  if (confidence == 0) return 0;
  if (confidence == 1) return std::numeric_limits<double>::infinity();
  // P(|Z| > z) = erfc(z / sqrt 2) decreases from 1 at z = 0 to 0: bisect until the bracket stops
  // shrinking (erfc underflows to 0 near z = 38.5, so [0, 64] brackets every representable tail).
  const double tail = 1 - confidence;
  const double inv_sqrt2 = 0.70710678118654752440;
  double lo = 0, hi = 64;
  for (int i = 0; i < 256; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (std::erfc(mid * inv_sqrt2) > tail) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo + (hi - lo) / 2;
}

double clip_count(double c, double n) noexcept {
  if (!(c > 0)) return 0;  // also maps NaN to 0
  return c < n ? c : n;
}

collision_sums sum_collisions(span<const uint32_t> items, const std::vector<double>& terms) {
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return items[a] < items[b]; });
  collision_sums out;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || items[order[i]] != items[order[i - 1]]) {
      out.total += terms[order[i]];
      ++out.distinct;
    }
  }
  return out;
}

estimate make_estimate(uint32_t item, double count, double variance, double z) noexcept {
  estimate e;
  e.item = item;
  e.value = count;
  e.variance = variance;
  const double half = z * std::sqrt(variance > 0 ? variance : 0.0);
  e.ci_low = count - half;
  e.ci_high = count + half;
  return e;
}

std::vector<estimate> template_estimates(const support_model& model, const std::vector<uint64_t>& support,
                                         span<const uint32_t> items, uint64_t reports, double z) {
  const auto n = static_cast<double>(reports);
  std::vector<estimate> out;
  out.reserve(items.size());
  for (uint32_t v : items) {
    const double c = model.count(static_cast<double>(support[v]), n);
    out.push_back(make_estimate(v, c, model.variance(c, n), z));
  }
  return out;
}

}  // namespace ldp::server::detail
