// The mean family (ldp/server/mean.h): exact sums of discrete Laplace reports (laplace,
// laplace-vector, kent-refine) and counts of Duchi bits, with the estimators of docs/mechanisms.md B.1
// and B.2 (memoized duchi, E.2: the same count, the scale B-hat of the flipped bit).
//
// Counts section of the saved state (after the common body of aggregator.cpp):
//   laplace, kent-refine   16 bytes: the sum of the reported values (wide_sum.h layout)
//   laplace-vector         d x 16 bytes: the sum of coordinate j, j = 0..d-1
//   bernstein              N x 16 bytes: the same, coordinate l = grid point l (docs/mechanisms.md H.1)
//   kway-marginals         the same, d = N' conjunctions (docs/mechanisms.md H.5)
//   duchi                  8 bytes: the number of reports with bit 1 (u64, <= n)
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "estimation.h"
#include "family.h"
#include "ldp/base/int128.h"
#include "ldp/server/mean.h"
#include "ldp/wire/byte_cursor.h"
#include "ldp/wire/mean_params.h"
#include "state_io.h"
#include "wide_sum.h"

namespace ldp::server {
namespace {

using wire::field;
using wire::mean_member;

constexpr double infinity = std::numeric_limits<double>::infinity();

// The item of a scalar estimate: a Kent fold's coordinate, else 0.
uint32_t scalar_item(const wire::params& p) {
  return p.has(field::fold_coordinate) ? static_cast<uint32_t>(p.get(field::fold_coordinate)) : 0;
}

// Discrete Laplace reports: one exact sum per coordinate.
class laplace_mean final : public aggregator {
 public:
  laplace_mean(const wire::params& p, std::size_t coordinates)
      : aggregator(p), sums_(coordinates), scratch_(coordinates) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (!wire::is_laplace_vector_block(params_)) {
      sums_[0] += to_i128(r.value);
      return status::ok;
    }
    const status s = wire::read_vector(r, scratch_);
    if (s != status::ok) return s;
    for (std::size_t j = 0; j < sums_.size(); ++j) sums_[j] += to_i128(scratch_[j]);
    return status::ok;
  }

  status merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const laplace_mean&>(other);
    for (std::size_t j = 0; j < sums_.size(); ++j) sums_[j] += o.sums_[j];
    return status::ok;
  }

  void write_body(std::vector<unsigned char>& out) const override { detail::put_wide_sums(out, sums_); }

  status read_body(span<const unsigned char> body) override {
    return detail::load_wide_sums(body, sums_, [&](i128 s) { return detail::reachable(s, reports_); });
  }

  std::vector<estimate> estimate_impl(double z) const override {
    const double gamma = detail::grid_step(params_);
    const auto n = static_cast<double>(reports_);
    const double variance = gamma * gamma * laplace_noise_variance(params_) / n;
    std::vector<estimate> out;
    out.reserve(sums_.size());
    for (std::size_t j = 0; j < sums_.size(); ++j) {
      const uint32_t item = wire::is_laplace_vector_block(params_) ? static_cast<uint32_t>(j) : scalar_item(params_);
      out.push_back(reports_ == 0 ? detail::empty_estimate(item)
                                  : detail::make_estimate(item, to_double(sums_[j]) / n * gamma, variance, z,
                                                          variance_kind::exact));
    }
    return out;
  }

 private:
  std::vector<i128> sums_;
  std::vector<int64_t> scratch_;  // one laplace-vector report's coordinates (ingest cannot allocate)
};

// Duchi reports: the number of ones.
class duchi_mean final : public aggregator {
 public:
  explicit duchi_mean(const wire::params& p) : aggregator(p) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    ones_ += r.bit;
    return status::ok;
  }

  // Batch records are one byte, 0 or 1: a run is counted in one pass after checking every byte.
  std::size_t run_payload_size() const noexcept override { return 1; }
  bool ingest_run(const unsigned char* first, std::size_t stride, std::size_t count) noexcept override {
    uint64_t ones = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const unsigned char b = first[i * stride];
      if (b > 1) return false;
      ones += b;
    }
    ones_ += ones;
    return true;
  }

  status merge_counts(const aggregator& other) override {
    ones_ += static_cast<const duchi_mean&>(other).ones_;
    return status::ok;
  }

  void write_body(std::vector<unsigned char>& out) const override { detail::put_u64(out, ones_); }

  status read_body(span<const unsigned char> body) override {
    wire::byte_reader in(body);
    const uint64_t ones = in.get_le(8);
    if (!in.ok() || !in.rest().empty()) return status::wrong_length;
    if (ones > reports_) return status::malformed_report;
    ones_ = ones;
    return status::ok;
  }

  std::vector<estimate> estimate_impl(double z) const override {
    const uint32_t item = scalar_item(params_);
    if (reports_ == 0) return {detail::empty_estimate(item)};
    const wire::value_range r = wire::range_of(params_);
    const double gamma = detail::grid_step(params_);
    const double half_width = static_cast<double>(wire::range_width(params_)) / 2 * gamma;
    const double center = (static_cast<double>(r.lo) + static_cast<double>(r.hi)) / 2 * gamma;
    const auto n = static_cast<double>(reports_);
    const double b = duchi_scale(params_);
    // 2 ones - n, exact in double for n < 2^53 and within one rounding beyond.
    const double y = b * (2 * static_cast<double>(ones_) - n) / n;
    const double y_clipped = std::min(1.0, std::max(-1.0, y));
    // (B^2 - y-c^2) / (n - 1): conservative in expectation (ldp/server/mean.h).
    const double per_user = reports_ == 1 ? b * b : (b * b - y_clipped * y_clipped) / (n - 1);
    const double variance = half_width * half_width * per_user;
    return {detail::make_estimate(item, center + half_width * y, variance, z, variance_kind::bound)};
  }

 private:
  uint64_t ones_ = 0;
};

}  // namespace

bool is_mean_mechanism(wire::mechanism m) noexcept { return detail::served_by(m, detail::make_mean_aggregator); }

double duchi_scale(const wire::params& p) noexcept {
  const uint64_t t_hi = p.get(field::threshold_keep), t_lo = p.get(field::threshold_other);
  if (t_hi <= t_lo) return infinity;
  const double one = std::ldexp(1.0, static_cast<int>(p.get(field::threshold_bits)));
  const double scale = one / static_cast<double>(t_hi - t_lo);
  if (!wire::is_memoized_mean(p)) return scale;
  // E.2: a flip with phi = Phi / 2^32 (< 1/2) shrinks E[bit] - 1/2 by 1 - 2 phi; undo it.
  const double flip_one = std::ldexp(1.0, static_cast<int>(wire::duchi_threshold_bits));
  return scale * flip_one / (flip_one - 2 * static_cast<double>(p.get(field::output_flip)));
}

double laplace_noise_variance(const wire::params& p) noexcept {
  // alpha = e^-x with x = 1/t; expm1 keeps 1 - alpha accurate when t is large.
  const double x = static_cast<double>(p.get(field::scale_den)) / static_cast<double>(p.get(field::scale_num));
  const double one_minus_alpha = -std::expm1(-x);
  return 2 * std::exp(-x) / (one_minus_alpha * one_minus_alpha);
}

std::vector<estimate> clamp_means(span<const estimate> raw, const wire::params& p) {
  try {
    const wire::value_range r = wire::range_of(p);
    const double gamma = detail::grid_step(p);
    const double lo = static_cast<double>(r.lo) * gamma, hi = static_cast<double>(r.hi) * gamma;
    const auto clamp = [&](double v) { return std::isnan(v) ? v : std::min(hi, std::max(lo, v)); };
    std::vector<estimate> out(raw.begin(), raw.end());
    for (estimate& e : out) {
      e.value = clamp(e.value);
      e.ci_low = clamp(e.ci_low);
      e.ci_high = clamp(e.ci_high);
    }
    return out;
  } catch (...) {
    return {};
  }
}

// These two are called for the blocks this family serves only (family_of): the means and the
// kent-refine, counted as a discrete Laplace value.
status detail::make_mean_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  switch (wire::mean_of(p.mech)) {
    case mean_member::duchi:
      if (!(duchi_scale(p) < infinity)) return status::invalid_parameters;
      *out = std::make_unique<duchi_mean>(p);
      return status::ok;
    case mean_member::laplace: *out = std::make_unique<laplace_mean>(p, 1); return status::ok;
    case mean_member::laplace_vector:
    case mean_member::bernstein:  // H.1: the per-coordinate sums are the grid's loss sums
    case mean_member::kway_marginals:
    case mean_member::smooth_queries: {
      std::size_t d = 0;
      if (!cell_count(3 * p.get(field::domain), &d)) return status::overflow;  // sums (2 words) and scratch
      *out = std::make_unique<laplace_mean>(p, static_cast<std::size_t>(p.get(field::domain)));
      return status::ok;
    }
  }
  return status::invalid_parameters;
}

bool detail::mean_body_size(const wire::params& p, uint64_t, uint64_t* bytes) {
  switch (wire::mean_of(p.mech)) {
    case mean_member::duchi: *bytes = 8; return true;
    case mean_member::laplace_vector:
    case mean_member::bernstein:
    case mean_member::kway_marginals:
    case mean_member::smooth_queries: return checked_mul(p.get(field::domain), wide_sum_bytes, bytes);
    case mean_member::laplace: *bytes = wide_sum_bytes; return true;
  }
  return false;  // a value outside the enumeration
}

}  // namespace ldp::server
