// The sparse-projection family (docs/mechanisms.md C.3): exact sums, merge, saved state, and the projection
// mechanism's release.
//
// State body (after the common part of aggregator.cpp): d x i64, sums[j] = sum over accepted
// reports of coordinate j in grid units. Invariants checked on reading: |sums[j]| <= n L and
// sum_j |sums[j]| <= n R1 (each report has ||x||_2 <= L, so ||x||_1 <= R1), else malformed_report.
#include "ldp/server/central/sparse_projection.h"

#include <cmath>
#include <limits>
#include <new>

#include "estimation.h"
#include "family.h"
#include "ldp/base/bits.h"
#include "ldp/server/central/accountant.h"
#include "ldp/server/central/discrete_gaussian.h"
#include "ldp/server/central/l1_projection.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/mean_params.h"
#include "state_io.h"

namespace ldp::server {
namespace {

using wire::field;

uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

// n * bound, saturated at 2^64 - 1 (only compared with, never stored).
uint64_t saturating_mul(uint64_t n, uint64_t bound) {
  uint64_t out = 0;
  return checked_mul(n, bound, &out) ? out : std::numeric_limits<uint64_t>::max();
}

using wire::epsilon_margin;  // docs/mechanisms.md D.1: epsilon_impl * margin <= epsilon

}  // namespace

sparse_projection_aggregator::sparse_projection_aggregator(const wire::params& p, std::size_t d)
    : aggregator(p),
      sums_(d, 0),
      indices_(static_cast<std::size_t>(p.get(field::sparsity))),
      values_(static_cast<std::size_t>(p.get(field::sparsity))) {}

status sparse_projection_aggregator::ingest(const wire::report& r) noexcept {
  const status s = wire::read_sparse(params_, r, indices_, values_);
  if (s != status::ok) return s;
  const auto l = static_cast<uint64_t>(wire::sparse_radius(params_));
  uint64_t squares = 0;  // the decoder bounds |v| by L, and s L^2 < 2^63
  for (uint32_t i = 0; i < r.count; ++i) squares += magnitude(values_[i]) * magnitude(values_[i]);
  if (squares > l * l) return status::out_of_range;
  int64_t unused = 0;
  for (uint32_t i = 0; i < r.count; ++i) {
    if (!checked_add(sums_[indices_[i]], values_[i], &unused)) return status::overflow;
  }
  for (uint32_t i = 0; i < r.count; ++i) sums_[indices_[i]] += values_[i];
  return status::ok;
}

status sparse_projection_aggregator::merge_counts(const aggregator& other) {
  const auto& o = static_cast<const sparse_projection_aggregator&>(other);
  std::vector<int64_t> merged(sums_.size());
  for (std::size_t j = 0; j < sums_.size(); ++j) {
    if (!checked_add(sums_[j], o.sums_[j], &merged[j])) return status::overflow;
  }
  sums_.swap(merged);
  return status::ok;
}

void sparse_projection_aggregator::write_body(std::vector<unsigned char>& out) const {
  out.reserve(out.size() + 8 * sums_.size());
  for (int64_t v : sums_) detail::put_u64(out, static_cast<uint64_t>(v));
}

status sparse_projection_aggregator::read_body(span<const unsigned char> body) {
  if (body.size() != 8 * sums_.size()) return status::wrong_length;
  const uint64_t per_coordinate = saturating_mul(reports_, static_cast<uint64_t>(wire::sparse_radius(params_)));
  const uint64_t total_bound = saturating_mul(reports_, wire::sparse_l1_bound(params_));
  // Saturated like the bound: d sums below 2^63 each may legitimately pass 2^64 in total (a merge of
  // valid states does once n R1 does), and a total that saturates only fails a bound that did not.
  uint64_t total = 0;
  for (std::size_t j = 0; j < sums_.size(); ++j) {
    sums_[j] = static_cast<int64_t>(load_le64(body.data() + 8 * j));
    const uint64_t m = magnitude(sums_[j]);
    uint64_t next = 0;
    total = checked_add(total, m, &next) ? next : std::numeric_limits<uint64_t>::max();
    if (m > per_coordinate || total > total_bound) return status::malformed_report;
  }
  return status::ok;
}

std::vector<estimate> sparse_projection_aggregator::estimate_impl(double) const {
  const double scale = detail::grid_step(params_) / static_cast<double>(reports_);
  std::vector<estimate> out(sums_.size());
  for (std::size_t j = 0; j < sums_.size(); ++j) {
    const double mean =
        reports_ == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(sums_[j]) * scale;
    out[j] = estimate{static_cast<uint32_t>(j), mean, 0.0, mean, mean};
  }
  return out;
}

status detail::make_sparse_projection_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  std::size_t d = 0;
  if (!cell_count(p.get(field::domain), &d)) return status::overflow;
  *out = std::make_unique<sparse_projection_aggregator>(p, d);
  return status::ok;
}

bool detail::sparse_projection_body_size(const wire::params& p, uint64_t, uint64_t* bytes) {
  return checked_mul(p.get(field::domain), 8, bytes);
}

status gaussian_variance(uint64_t delta2, double epsilon, double delta, uint64_t* sigma2,
                         double* epsilon_impl) noexcept {
  *sigma2 = 0;
  *epsilon_impl = 0;
  if (!wire::valid_epsilon(epsilon) || !(delta > 0 && delta < 1) || delta2 == 0) {
    return status::invalid_argument;
  }
  // rho + 2 sqrt(rho ln(1/delta)) = epsilon at sqrt(rho) = sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)).
  const double log_term = std::log(1 / delta);
  const double root = epsilon / (std::sqrt(log_term + epsilon) + std::sqrt(log_term));  // the same, stable
  const double squared_sensitivity = static_cast<double>(delta2) * static_cast<double>(delta2);
  const double ideal = squared_sensitivity / (2 * root * root);
  if (!(ideal <= static_cast<double>(discrete_gaussian_max_sigma2))) return status::invalid_argument;
  auto level = [&](uint64_t s2) {
    return zcdp_to_epsilon_simple(squared_sensitivity / (2 * static_cast<double>(s2)), delta);
  };
  uint64_t s2 = static_cast<uint64_t>(std::ceil(ideal));
  if (s2 == 0) s2 = 1;
  while (level(s2) * epsilon_margin > epsilon) ++s2;  // a few steps at most: ideal is within ulps
  if (s2 > discrete_gaussian_max_sigma2) return status::invalid_argument;
  *sigma2 = s2;
  *epsilon_impl = level(s2);
  return status::ok;
}

status release_sparse_mean(const aggregator& agg, const sparse_release_options& options, random::drbg& rng,
                           sparse_release* out) noexcept {
  *out = sparse_release{};
  const auto* sparse = dynamic_cast<const sparse_projection_aggregator*>(&agg);
  if (sparse == nullptr || agg.reports() == 0) return status::invalid_argument;
  if (!(options.delta >= 0 && options.delta < 1)) return status::invalid_argument;
  const wire::params& p = agg.parameters();
  const uint64_t l = static_cast<uint64_t>(wire::sparse_radius(p));
  const double scale = detail::grid_step(p) / static_cast<double>(agg.reports());
  try {
    sparse_release r;
    r.delta = options.delta;
    r.l1_radius =
        static_cast<double>(l) * detail::grid_step(p) * std::sqrt(static_cast<double>(p.get(field::sparsity)));
    const std::vector<int64_t>& sums = sparse->sums();
    r.noisy_mean.resize(sums.size());
    if (options.delta == 0) {
      const uint64_t sensitivity = 2 * wire::sparse_l1_bound(p);  // l1, replace-one
      if (wire::laplace_scale(sensitivity, options.epsilon, &r.scale_num, &r.scale_den) != status::ok) {
        return status::invalid_argument;
      }
      const double t = static_cast<double>(r.scale_num) / static_cast<double>(r.scale_den);
      const double alpha = std::exp(-1 / t);
      r.epsilon_impl = static_cast<double>(sensitivity) / t;
      r.noise_scale = t * scale;
      r.noise_variance = 2 * alpha / ((1 - alpha) * (1 - alpha)) * scale * scale;
      for (std::size_t j = 0; j < sums.size(); ++j) {
        const int64_t z = random::discrete_laplace(rng, r.scale_num, r.scale_den);
        r.noisy_mean[j] = (static_cast<double>(sums[j]) + static_cast<double>(z)) * scale;
      }
    } else {
      if (gaussian_variance(2 * l, options.epsilon, options.delta, &r.sigma2, &r.epsilon_impl) != status::ok) {
        return status::invalid_argument;
      }
      // The discrete Gaussian's variance is below sigma^2 (CKS 2020, Prop. 19); sigma^2 bounds it.
      r.noise_scale = std::sqrt(static_cast<double>(r.sigma2)) * scale;
      r.noise_variance = static_cast<double>(r.sigma2) * scale * scale;
      for (std::size_t j = 0; j < sums.size(); ++j) {
        const int64_t z = discrete_gaussian(rng, r.sigma2);
        r.noisy_mean[j] = (static_cast<double>(sums[j]) + static_cast<double>(z)) * scale;
      }
    }
    const status projected = project_l1_ball(r.noisy_mean, r.l1_radius, &r.mean);
    if (projected != status::ok) return projected;
    *out = std::move(r);
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

}  // namespace ldp::server
