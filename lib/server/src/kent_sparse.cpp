// The Kent M4 driver (ldp/server/kent_sparse.h states the design).
#include "ldp/server/kent_sparse.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "estimation.h"
#include "ldp/server/kent_support.h"
#include "ldp/server/mean.h"
#include "ldp/wire/kent_support_params.h"
#include "ldp/wire/mean_params.h"

namespace ldp::server {
namespace {

constexpr double vote_miss = 1e-3;  // d Phi(-z) at most this (user_level.h's vote rule)
constexpr double infinity = std::numeric_limits<double>::infinity();

double log_dimension(uint32_t d) { return std::log(static_cast<double>(d)); }

// A coordinate estimated 0 by selection or thresholding: its squared error is at most bound^2 when
// its mean is below the method's threshold `bound` (kent_sparse.h), the interval [-bound, bound].
estimate zero_estimate(uint32_t item, double bound) {
  return estimate{item, 0, bound * bound, -bound, bound, variance_kind::bound};
}

}  // namespace

user_level_config kent_sparse_protocol::stage_config(std::vector<uint32_t> coordinates) const {
  user_level_config c;
  c.method = user_level_method::m2;
  c.alpha = config_.alpha;
  c.users = config_.users - voters();
  c.observations = config_.observations;
  c.cap = config_.cap;
  c.frac_bits = config_.frac_bits;
  c.lo = config_.lo;
  c.hi = config_.hi;
  c.dimension = config_.dimension;
  c.c_h = config_.c_h;
  c.expansion = config_.expansion;
  c.coordinates = std::move(coordinates);
  return c;
}

status kent_sparse_protocol::create(const kent_sparse_config& c, kent_sparse_protocol* out) noexcept {
  if (out == nullptr) return status::invalid_argument;
  try {
    kent_sparse_protocol p;
    p.config_ = c;
    const uint32_t d = c.dimension, s = c.sparsity;
    if (d < 2 || d > wire::kent_support_max_dim || s < 1 || s > d || !(c.c_tau > 0) || !(c.lo < c.hi) ||
        !wire::valid_epsilon(c.alpha) || c.observations == 0 || c.users < 2) {
      return status::invalid_argument;
    }
    const double width = c.hi - c.lo;
    const double ln_d = log_dimension(d);

    // M4b: M2 on every coordinate with L + ln d in place of L (user_level.h's h).
    user_level_config dense = p.stage_config({});
    dense.users = c.users;
    const double signal = static_cast<double>(c.users) * c.alpha * c.alpha / d;
    const double log_term = std::max(1.0, std::log(signal));
    dense.c_h = c.c_h * (log_term + ln_d) / log_term;
    const status dense_made = user_level_protocol::create(dense, &p.dense_);
    const bool threshold_possible = dense_made == status::ok;
    if (dense_made == status::overflow) return dense_made;
    if (threshold_possible) {
      const double e_b = p.dense_.predicted_error(p.dense_.two_stage());
      p.error_threshold_ = s * e_b * (1 + 2 * ln_d);  // s (e_b + lambda^2), lambda^2 = 2 ln d e_b
    } else {
      p.error_threshold_ = infinity;
    }

    // M4a: the vote block, its reliability and the stage's predicted error (the first s
    // coordinates stand for the selection: every fold of s has the same size).
    const uint32_t used = c.cap != 0 ? std::min(c.observations, c.cap) : c.observations;
    p.tau_ = width / 2 * std::sqrt(c.c_tau * ln_d / used);
    wire::kent_support_shape shape;
    shape.frac_bits = c.frac_bits;
    shape.observations = used;
    shape.dimension = d;
    shape.sparsity = s;
    int64_t tau = 0;
    bool select_possible = wire::to_fixed(c.lo, c.frac_bits, &shape.clip_lo) == status::ok &&
                           wire::to_fixed(c.hi, c.frac_bits, &shape.clip_hi) == status::ok &&
                           wire::to_fixed(p.tau_, c.frac_bits, &tau) == status::ok;
    if (select_possible) {
      const uint64_t largest = std::max(shape.clip_lo < 0 ? 0 - static_cast<uint64_t>(shape.clip_lo) : 0,
                                        shape.clip_hi > 0 ? static_cast<uint64_t>(shape.clip_hi) : 0);
      shape.threshold = std::min<uint64_t>(std::max<int64_t>(tau, 1), largest);
      const wire::derived_params vote = wire::make_kent_support(c.alpha, shape);
      select_possible = vote.code == status::ok;
      if (select_possible) p.support_ = vote.block;
    }
    std::vector<uint32_t> first(s);
    for (uint32_t j = 0; j < s; ++j) first[j] = j;
    user_level_protocol stage;
    select_possible = select_possible && c.users - c.users / 2 >= 2 &&
                      user_level_protocol::create(p.stage_config(first), &stage) == status::ok;
    if (select_possible) {
      const double noise = laplace_noise_variance(p.support_);
      const double sd = std::sqrt((s + noise) / static_cast<double>(p.voters()));
      p.reliable_ = d * 0.5 * std::erfc(0.5 / sd / std::sqrt(2.0)) <= vote_miss;
      const double e_a = stage.predicted_error(stage.two_stage());
      p.error_select_ = s * (e_a + p.tau_ * p.tau_);
    } else {
      p.error_select_ = infinity;
    }

    switch (c.method) {
      case sparse_method::select: p.selects_ = true; break;
      case sparse_method::threshold: p.selects_ = false; break;
      case sparse_method::choose:
        p.selects_ = select_possible && p.reliable_ && (!threshold_possible || p.error_select_ < p.error_threshold_);
        break;
    }
    if (p.selects_ ? !select_possible : !threshold_possible) return status::invalid_argument;
    *out = std::move(p);
    return status::ok;
  } catch (...) {  // std::bad_alloc
    return status::overflow;
  }
}

status kent_sparse_protocol::select(const aggregator& votes, std::vector<uint32_t>* out) const noexcept {
  if (out == nullptr || !selects_) return status::invalid_argument;
  if (votes.fingerprint() != wire::fingerprint(support_)) return status::parameter_mismatch;
  try {
    const std::vector<estimate> scores = votes.estimate_all();
    if (scores.size() != config_.dimension) return status::overflow;
    *out = select_support(scores, config_.sparsity);
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

status kent_sparse_protocol::stage(span<const uint32_t> selected, user_level_protocol* out) const noexcept {
  if (out == nullptr || !selects_ || selected.empty() || selected.size() > config_.sparsity) {
    return status::invalid_argument;
  }
  try {
    return user_level_protocol::create(stage_config(std::vector<uint32_t>(selected.begin(), selected.end())), out);
  } catch (...) {
    return status::overflow;
  }
}

status kent_sparse_protocol::estimate_selected(span<const uint32_t> selected, const user_level_protocol* stage,
                                               span<const aggregator* const> refines, double confidence,
                                               std::vector<estimate>* out) const noexcept {
  if (out == nullptr || !selects_ || (!selected.empty() && stage == nullptr)) return status::invalid_argument;
  try {
    out->clear();
    std::vector<estimate> folds;
    if (!selected.empty()) {
      const std::vector<uint32_t>& coordinates = stage->config().coordinates;
      if (!std::equal(selected.begin(), selected.end(), coordinates.begin(), coordinates.end())) {
        return status::parameter_mismatch;
      }
      const status s = stage->estimate_all(refines, confidence, &folds);
      if (s != status::ok) return s;
    } else if (!refines.empty()) {
      return status::invalid_argument;
    }
    std::vector<estimate> all;
    all.reserve(config_.dimension);
    for (uint32_t j = 0; j < config_.dimension; ++j) all.push_back(zero_estimate(j, tau_));
    for (const estimate& e : folds) all[e.item] = e;
    *out = std::move(all);
    return status::ok;
  } catch (...) {
    out->clear();
    return status::overflow;
  }
}

status kent_sparse_protocol::estimate_thresholded(span<const aggregator* const> refines, double confidence,
                                                  std::vector<estimate>* out) const noexcept {
  if (out == nullptr || selects_) return status::invalid_argument;
  const status s = dense_.estimate_all(refines, confidence, out);
  if (s != status::ok) return s;
  hard_threshold(*out, config_.sparsity, config_.dimension);
  return status::ok;
}

void hard_threshold(std::vector<estimate>& estimates, uint32_t s, uint32_t d) noexcept {
  const double factor = std::sqrt(2 * log_dimension(d));
  // Ranks by |theta| of the coordinates above their threshold, at most s kept.
  std::vector<uint32_t> above;
  try {
    above.reserve(estimates.size());
  } catch (...) {
    return;
  }
  for (uint32_t i = 0; i < estimates.size(); ++i) {
    const estimate& e = estimates[i];
    if (std::abs(e.value) >= std::sqrt(e.variance) * factor) above.push_back(i);  // false for NaN
  }
  std::stable_sort(above.begin(), above.end(),
                   [&](uint32_t a, uint32_t b) { return std::abs(estimates[a].value) > std::abs(estimates[b].value); });
  std::vector<bool> keep(estimates.size(), false);
  for (std::size_t k = 0; k < above.size() && k < s; ++k) keep[above[k]] = true;
  for (uint32_t i = 0; i < estimates.size(); ++i) {
    if (!keep[i]) estimates[i] = zero_estimate(estimates[i].item, std::sqrt(estimates[i].variance) * factor);
  }
}

}  // namespace ldp::server
