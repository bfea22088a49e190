// Ranges, quantiles and densities from a range model (distribution_queries.h, docs/mechanisms.md G.4).
#include "distribution_queries.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "estimation.h"
#include "ldp/wire/field.h"

namespace ldp::server::detail {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The block's range in real units and its D buckets (range_cells.h: bucket k is [lo + k W / D,
// lo + (k + 1) W / D)).
struct bucket_scale {
  double lo = 0, width = 0, buckets = 0;
  explicit bucket_scale(const wire::params& p)
      : lo(static_cast<double>(p.get_signed(wire::field::clip_lo)) * grid_step(p)),
        width(static_cast<double>(p.get_signed(wire::field::clip_hi) - p.get_signed(wire::field::clip_lo)) *
              grid_step(p)),
        buckets(static_cast<double>(p.get(wire::field::domain))) {}
  // A real value's position in bucket units, clamped to [0, D].
  double position(double x) const noexcept { return std::clamp((x - lo) / width * buckets, 0.0, buckets); }
  double value(double position) const noexcept { return lo + position / buckets * width; }
  double bucket_width() const noexcept { return width / buckets; }
};

// z sd, 0 for a variance of 0 (so that z = +inf, confidence 1, keeps a known answer finite).
double half_width(double z, double variance) noexcept { return variance == 0 ? 0 : z * std::sqrt(variance); }

// The lowest position t in [0, D] at which g, given at the bucket edges and linear between them,
// reaches q: 0 when g(0) does, D when no edge does.
double first_reaching(const std::vector<double>& g, double q) noexcept {
  for (std::size_t k = 0; k < g.size(); ++k) {
    if (!(g[k] >= q)) continue;
    if (k == 0) return 0;
    return static_cast<double>(k - 1) + (q - g[k - 1]) / (g[k] - g[k - 1]);  // g[k - 1] < q <= g[k]
  }
  return static_cast<double>(g.size() - 1);
}

}  // namespace

bool valid_ranges(span<const std::pair<double, double>> queries) noexcept {
  return std::all_of(queries.begin(), queries.end(), [](const std::pair<double, double>& r) {
    return std::isfinite(r.first) && std::isfinite(r.second) && r.first <= r.second;
  });
}

bool valid_quantiles(span<const double> qs) noexcept {
  return std::all_of(qs.begin(), qs.end(), [](double q) { return q >= 0 && q <= 1; });
}

std::vector<range_estimate> answer_ranges(const wire::params& p, const range_model* m,
                                          span<const std::pair<double, double>> queries, double z) {
  const bucket_scale scale(p);
  std::vector<range_estimate> out;
  out.reserve(queries.size());
  for (const auto& [lo, hi] : queries) {
    range_estimate e{lo, hi, nan, nan, nan, nan};
    if (m != nullptr) {
      const range_answer a = m->answer(scale.position(lo), scale.position(hi));
      const double half = half_width(z, a.variance);
      e.estimate = a.fraction;
      e.variance = a.variance;
      e.ci_low = a.fraction - half;
      e.ci_high = a.fraction + half;
    }
    out.push_back(e);
  }
  return out;
}

// G.4: F at the D + 1 edges made monotone (running max, clipped to [0, 1]); the value is where F
// reaches q, the interval where F + z sd and F - z sd do.
std::vector<quantile_estimate> answer_quantiles(const wire::params& p, const range_model* m, span<const double> qs,
                                                double z) {
  const bucket_scale scale(p);
  std::vector<quantile_estimate> out;
  out.reserve(qs.size());
  const auto edges = static_cast<std::size_t>(p.get(wire::field::domain)) + 1;
  std::vector<double> f(edges), upper(edges), lower(edges);
  bool known = m != nullptr;
  double running = 0;
  for (std::size_t k = 0; known && k < edges; ++k) {
    const range_answer a = m->answer(0, static_cast<double>(k));
    known = !std::isnan(a.fraction) && !std::isnan(a.variance);
    running = std::max(running, std::min(a.fraction, 1.0));
    f[k] = running;
    const double half = half_width(z, a.variance);
    upper[k] = running + half;
    lower[k] = running - half;
  }
  for (double q : qs) {
    if (!known) {
      out.push_back({q, nan, nan, nan});
      continue;
    }
    out.push_back({q, scale.value(first_reaching(f, q)), scale.value(first_reaching(upper, q)),
                   scale.value(first_reaching(lower, q))});
  }
  return out;
}

std::vector<density_estimate> answer_density(const wire::params& p, const range_model* m, double z) {
  const bucket_scale scale(p);
  const auto buckets = static_cast<std::size_t>(p.get(wire::field::domain));
  const double w = scale.bucket_width();
  std::vector<density_estimate> out;
  out.reserve(buckets);
  for (std::size_t k = 0; k < buckets; ++k) {
    const auto at = static_cast<double>(k);
    density_estimate e{scale.value(at + 0.5), nan, nan, nan};
    if (m != nullptr) {
      const range_answer a = m->answer(at, at + 1);
      const double half = half_width(z, a.variance);
      e.value = a.fraction / w;
      e.ci_low = (a.fraction - half) / w;
      e.ci_high = (a.fraction + half) / w;
    }
    out.push_back(e);
  }
  return out;
}

std::vector<estimate> bucket_counts(const wire::params& p, const range_model* m, uint64_t n, double z,
                                    variance_kind kind) {
  const auto buckets = static_cast<uint32_t>(p.get(wire::field::domain));
  const auto total = static_cast<double>(n);
  std::vector<estimate> out;
  out.reserve(buckets);
  for (uint32_t k = 0; k < buckets; ++k) {
    if (m == nullptr) {
      out.push_back(empty_estimate(k));
      continue;
    }
    const range_answer a = m->answer(k, k + 1.0);
    out.push_back(make_estimate(k, total * a.fraction, total * total * a.variance, z, kind));
  }
  return out;
}

}  // namespace ldp::server::detail
