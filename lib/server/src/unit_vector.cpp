// The unit-vector family (ldp/server/unit_vector.h, docs/mechanisms.md B.6).
//
// Counts section of the saved state (after the common body of aggregator.cpp): for each coordinate
// i = 0 .. d-1 in order, S_i as 16 bytes (wide_sum.h layout), |S_i| <= n (2^15 - 1).
//
// Estimator and variance [derived]. A device holding x (clipped: ||x|| <= R) reports q = u 2^14 with
// E[q] = 2^14 x / B (B.6 "Unbiasing constant"), so x^ = B S / (2^14 n) is unbiased, and coordinate i
// is a mean of independent terms w_i = B q_i / 2^14 with
//     Var(x^_i) = (1 / n^2) sum_u (E[w_{u,i}^2] - x_{u,i}^2).
// q_i^2 depends on |Z_i| only (the flip into the half keeps magnitudes), and the d coordinates of Z
// are exchangeable with Z / ||Z|| a unit vector, so E[(Z_i / ||Z||)^2] = 1/d exactly whatever x; the
// rounding adds at most 1/4 (2^-28 after the 2^-14 scale, twice the 2^-29 square-root excess on top:
// 2^-30 covers both for d <= 2^16). Hence E[w_i^2] <= B^2 (1/d + 2^-30), and sum_u x_{u,i}^2 >= n
// x_bar_i^2 is replaced by n c_i^2.
//
// PrivUnitG (B.7): q = Z / 2^15 rounded, so w = B q / 2^14 = (B / 8) Z / sigma up to the rounding. Z
// given the cap coin has second moment `along` (wire::privunitg_moments) along v and 1 in every
// direction orthogonal to v (continuous values; the lattice moves them by O(delta_E / Q)), so
// E[(Z_i / sigma)^2] = 1 + v_i^2 (along - 1) <= max(1, along), and the rounding adds at most 1/4 in
// units of q, 2^-24 in units of (Z / sigma)^2: 2^-22 covers it.
//
// ProjUnit, FastProjUnit (B.8): a report is lifted to d coordinates by G^T q of its seed before it is
// summed (projected_unit.h), |(G^T q)_i| <= k (2^15 - 1), and x^ = B S / (2^14 sqrt(k) n); the variance
// is B.8's trace averaged over the coordinates (variance_kind average).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "estimation.h"
#include "family.h"
#include "ldp/base/int128.h"
#include "ldp/server/unit_vector.h"
#include "ldp/wire/projunit_params.h"
#include "ldp/wire/report.h"
#include "ldp/wire/unit_vector_params.h"
#include "projected_unit.h"
#include "wide_sum.h"

namespace ldp::server {
namespace {

using wire::field;

class unit_vector final : public aggregator {
 public:
  explicit unit_vector(const wire::params& p)
      : aggregator(p),
        sums_(static_cast<std::size_t>(p.get(field::domain))),
        scratch_(static_cast<std::size_t>(p.get(field::domain))),
        lift_(p),
        lifted_(lift_.active() ? sums_.size() : 0) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    const status s = wire::read_vector(r, scratch_);
    if (s != status::ok) return s;
    span<const int64_t> values = scratch_;
    if (lift_.active()) {  // B.8: G^T q of the report's seed, exactly
      const status lifted = lift_.lift(r.seed, span<const int64_t>(scratch_.data(), r.count), lifted_);
      if (lifted != status::ok) return lifted;
      values = lifted_;
    }
    for (std::size_t i = 0; i < sums_.size(); ++i) sums_[i] += to_i128(values[i]);
    return status::ok;
  }

  status merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const unit_vector&>(other);
    for (std::size_t i = 0; i < sums_.size(); ++i) sums_[i] += o.sums_[i];
    return status::ok;
  }

  void write_body(std::vector<unsigned char>& out) const override { detail::put_wide_sums(out, sums_); }

  status read_body(span<const unsigned char> body) override {
    const u128 bound = mul_64x64(reports_, detail::lifted_coordinate_max(params_));
    return detail::load_wide_sums(body, sums_, [&](i128 s) { return !(bound < magnitude(s)); });
  }

  std::vector<estimate> estimate_impl(double z) const override {
    const std::size_t d = sums_.size();
    std::vector<estimate> out;
    out.reserve(d);
    if (reports_ == 0) {
      for (std::size_t i = 0; i < d; ++i) out.push_back(detail::empty_estimate(static_cast<uint32_t>(i)));
      return out;
    }
    const double radius = static_cast<double>(params_.get_signed(field::radius)) * detail::grid_step(params_);
    const double b = radius * wire::unit_vector_scale(params_);
    const auto n = static_cast<double>(reports_);
    const double factor =
        std::ldexp(b, -static_cast<int>(wire::unit_coordinate_bits)) * detail::lift_scale(params_) / n;
    const double second_moment = unit_vector_spread(params_);
    // A projected block's variance is averaged over its public projections (B.8 "Variance").
    const variance_kind kind = lift_.active() ? variance_kind::average : variance_kind::bound;
    for (std::size_t i = 0; i < d; ++i) {
      const double value = to_double(sums_[i]) * factor;
      const double clipped = std::min(radius, std::max(-radius, value));
      // A bound: B.6's second moment holds exactly only for identical users (and up to its rounding term),
      // B.7's is the largest over the coordinates.
      out.push_back(
          detail::make_estimate(static_cast<uint32_t>(i), value, (second_moment - clipped * clipped) / n, z, kind));
    }
    return out;
  }

 private:
  std::vector<i128> sums_;        // S_i
  std::vector<int64_t> scratch_;  // one report's coordinates
  detail::projection_lift lift_;  // B.8's G^T q (inactive for l2-ball and privunitg)
  std::vector<int64_t> lifted_;   // one projected report in d dimensions
};

}  // namespace

namespace {

// B = R output_scale / 2^32 in real units.
double unit_vector_b(const wire::params& p) {
  const double radius = static_cast<double>(p.get_signed(field::radius)) * detail::grid_step(p);
  return radius * wire::unit_vector_scale(p);
}

// PrivUnitG's second moment of Z / sigma along v (B.7), at the block's t and P_keep.
double privunitg_along(const wire::params& p) {
  const double t =
      std::ldexp(static_cast<double>(p.get(field::cap_threshold)), -static_cast<int>(wire::privunitg_sigma_log2));
  const double keep =
      std::ldexp(static_cast<double>(p.get(field::threshold_keep)), -static_cast<int>(p.get(field::threshold_bits)));
  return wire::privunitg_moments(t, keep).along;
}

}  // namespace

double unit_vector_spread(const wire::params& p) noexcept {
  const double b = unit_vector_b(p);
  switch (wire::unit_vector_of(p.mech)) {
    case wire::unit_vector_member::l2_ball:
      return b * b * (1 / static_cast<double>(p.get(field::domain)) + std::ldexp(1.0, -30));
    case wire::unit_vector_member::privunitg:
      return b * b / 64 * (std::max(1.0, privunitg_along(p)) + std::ldexp(1.0, -22));
    case wire::unit_vector_member::projunit:
    case wire::unit_vector_member::fastprojunit:
      return b * b / 64 * detail::projected_trace(p, privunitg_along(p)) / static_cast<double>(p.get(field::domain)) *
             (1 + std::ldexp(1.0, -22));
  }
  return std::numeric_limits<double>::infinity();
}

double unit_vector_total_spread(const wire::params& p) noexcept {
  const auto d = static_cast<double>(p.get(field::domain));
  switch (wire::unit_vector_of(p.mech)) {
    case wire::unit_vector_member::l2_ball:
    case wire::unit_vector_member::projunit:
    case wire::unit_vector_member::fastprojunit: return d * unit_vector_spread(p);
    case wire::unit_vector_member::privunitg: {
      const double b = unit_vector_b(p);
      return b * b / 64 * (privunitg_along(p) + d - 1 + d * std::ldexp(1.0, -22));
    }
  }
  return std::numeric_limits<double>::infinity();
}

bool is_unit_vector_mechanism(wire::mechanism m) noexcept {
  return detail::served_by(m, detail::make_unit_vector_aggregator);
}

status detail::make_unit_vector_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  if (!is_unit_vector_mechanism(p.mech)) return status::invalid_parameters;
  *out = std::make_unique<unit_vector>(p);
  return status::ok;
}

bool detail::unit_vector_body_size(const wire::params& p, uint64_t, uint64_t* bytes) {
  return checked_mul(p.get(field::domain), uint64_t{detail::wide_sum_bytes}, bytes);
}

}  // namespace ldp::server
