// Thm 3's session of K adaptive queries (winsorized_queries.h; docs/mechanisms.md C.2).
#include "ldp/server/central/winsorized_queries.h"

#include <algorithm>
#include <cmath>
#include <new>

#include "ldp/wire/central_params.h"
#include "ldp/wire/mean_params.h"

namespace ldp::server {
namespace {

uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

}  // namespace

status winsorized_query_session::create(const winsorized_query_options& o, span<const span<const double>> users,
                                        std::size_t sample_dim, const unsigned char seed[random::drbg::seed_size],
                                        winsorized_query_session* out) noexcept {
  *out = winsorized_query_session{};
  if (users.size() == 0 || sample_dim == 0 || o.dim == 0 || o.observations == 0 || !(o.lo < o.hi) ||
      !std::isfinite(o.lo) || !std::isfinite(o.hi) || !(o.tau >= 0) || !std::isfinite(o.tau)) {
    return status::invalid_argument;
  }
  for (const span<const double>& u : users) {
    if (u.size() == 0 || u.size() % sample_dim != 0) return status::invalid_argument;
  }
  try {
    winsorized_query_session s;
    s.options_ = o;
    s.sample_dim_ = sample_dim;
    s.users_.assign(users.begin(), users.end());
    if (wire::to_fixed(o.lo, o.frac_bits, &s.clip_lo_) != status::ok ||
        wire::to_fixed(o.hi, o.frac_bits, &s.clip_hi_) != status::ok) {
      return status::invalid_argument;
    }
    // The geometry of every query's round-1 block (only the rotation seed differs), checked once
    // here with a zero seed so that a query never fails on it.
    s.range_ = uint64_t{o.dim} * std::max(magnitude(s.clip_lo_), magnitude(s.clip_hi_));
    const uint64_t n = users.size();
    s.tau_ = o.tau > 0 ? o.tau : user_mean_tau(o.hi - o.lo, o.dim, o.observations, n, o.gamma);
    uint64_t padded = 1;
    while (padded < o.dim) padded *= 2;
    s.bin_half_width_ = rotated_bin_half_width(s.tau_, padded, n, o.beta, o.frac_bits, s.range_);
    const unsigned char zero[wire::seed_size] = {};
    wire::params probe;
    if (s.bin_half_width_ == 0 || wire::make_winsorized_bins(o.dim, o.frac_bits, s.clip_lo_, s.clip_hi_, o.observations,
                                                             s.range_, s.bin_half_width_, zero, &probe) != status::ok) {
      return status::invalid_argument;
    }
    status st = winsorized_session::create(o.epsilon, o.delta, o.queries, probe.get(wire::field::hadamard_dim),
                                           o.budget, &s.budget_);
    if (st != status::ok) return st;
    double level = 0;
    if (!s.budget_.within_budget(s.budget_.loss(s.budget_.eps_coordinate())) ||
        private_range_epsilon(s.budget_.eps_coordinate() / 2, &level) != status::ok) {
      return status::invalid_argument;
    }
    s.rng_ = std::make_unique<random::drbg>(seed);
    *out = std::move(s);
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

status winsorized_query_session::ask(const query_function& phi, winsorized_query_answer* out) noexcept {
  *out = winsorized_query_answer{};
  if (!rng_ || !phi) return status::invalid_argument;
  double eps = 0;
  if (budget_.next_query(&eps) != status::ok) return status::budget_exhausted;
  const status s = run(phi, eps, asked_++, out);
  // Each of the query's d~ mechanisms spent its implemented level, or at most eps if it failed
  // after the budget was handed out; the session reports the largest.
  level_ = std::max(level_, s == status::ok ? out->epsilon_impl : eps);
  if (s != status::ok) *out = winsorized_query_answer{};
  return s;
}

status winsorized_query_session::run(const query_function& phi, double eps, uint64_t query,
                                     winsorized_query_answer* out) noexcept {
  try {
    const winsorized_query_options& o = options_;
    const std::size_t d = o.dim;
    unsigned char seed[wire::seed_size];
    rng_->fill(seed, sizeof seed);  // a fresh public rotation per query (Alg 2), independent of the data
    wire::params round1;
    if (wire::make_winsorized_bins(o.dim, o.frac_bits, clip_lo_, clip_hi_, o.observations, range_, bin_half_width_,
                                   seed, &round1) != status::ok) {
      return status::invalid_argument;  // create checked the same geometry
    }
    // The devices' side: phi on each of the first m samples, clamped to the box on the grid,
    // averaged with the device's rounding.
    const double centre = o.lo + (o.hi - o.lo) / 2;
    std::vector<int64_t> means(users_.size() * d);
    std::vector<double> value(d);
    std::vector<int64_t> sums(d);
    for (std::size_t u = 0; u < users_.size(); ++u) {
      const std::size_t count = users_[u].size() / sample_dim_;
      const std::size_t used = std::min<std::size_t>(count, o.observations);
      std::fill(sums.begin(), sums.end(), 0);
      for (std::size_t k = 0; k < used; ++k) {
        std::fill(value.begin(), value.end(), std::nan(""));  // what phi leaves unwritten counts as the centre
        phi(users_[u].subspan(k * sample_dim_, sample_dim_), value);
        for (std::size_t j = 0; j < d; ++j) {
          const double x = std::isnan(value[j]) ? centre : std::clamp(value[j], o.lo, o.hi);
          int64_t f = 0;
          static_cast<void>(wire::to_fixed(x, o.frac_bits, &f));  // x is finite and inside the box
          sums[j] += std::clamp(f, clip_lo_, clip_hi_);           // |sum| <= m M < 2^32 2^31
        }
      }
      for (std::size_t j = 0; j < d; ++j) means[u * d + j] = wire::rounded_mean(sums[j], used);
    }
    winsorized_highd_result r;
    const status s = winsorized_mean_highd(round1, means, eps, o.window, *rng_, &r);
    if (s != status::ok) return s;
    out->query = query;
    out->mean = std::move(r.release.mean);
    out->noise_variance = r.release.noise_variance;
    out->eps_coordinate = eps;
    out->epsilon_impl = r.windows.epsilon_impl + r.release.epsilon_impl;
    out->bin_half_width = bin_half_width_;
    return status::ok;
  } catch (const std::bad_alloc&) {
    return status::overflow;
  } catch (...) {
    return status::invalid_argument;  // phi threw
  }
}

}  // namespace ldp::server
