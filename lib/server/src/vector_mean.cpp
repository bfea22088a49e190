// The vector mean family (ldp/server/vector_mean.h, docs/mechanisms.md B.5).
//
// Counts section of the saved state (after the common body of aggregator.cpp), for each rotated
// coordinate j = 0 .. d~-1 in order:
//   vector-duchi    n_j u64, ones_j u64         (ones_j <= n_j)
//   vector-laplace  n_j u64, sum_j 16 bytes     (wide_sum.h layout; a sum n_j int64 values reach)
// and the n_j add up to n.
//
// Estimator and variance [derived], in grid units. A device holds x (clipped: ||x|| <= R), rotates
// it exactly to v = H D x, draws j uniformly in [d~) and sends w with E[w | j] = s v_j, s the scale
// of wire::scale_of_rotation (the randomized rounding to the grid is unbiased; the clip of s v_j to
// [-r, r], probability <= beta, is ignored here). The server sums S_j over the reports of
// coordinate j. E[S_j] = (n / d~) s (H D x_bar)_j and H H = d~ I, so
//     x^ = D H S / (s n)
// is unbiased: the Horvitz-Thompson y^ = (d~ / n) S of U x_bar, rotated back by U^T = s' D H with
// s' = 1 / (s d~), which undoes the device's own s exactly. Coordinate i of x^ is
// (1 / (s n)) omega_i sum_u H[i, j_u] w_u, a sum of independent terms with
//     E[H[i, j] w] = (1 / d~) sum_j H[i, j] s v_j = (s / d~) (H H D x)_i = s omega_i x_i,
// so Var(x^_i) = (1 / (s n))^2 sum_u (E[w_u^2] - s^2 x_{u,i}^2). Duchi's w = +-r B has
// E[w^2] = r^2 B^2; Laplace's w = y~ + Y has E[w^2 | j] = (s v_j)^2 + rho_j + sigma^2 with rho_j <= 1/4
// the rounding variance, and sum_j (s v_j)^2 = s^2 d~ ||x||^2. Hence
//     Duchi    Var(x^_i) = (1 / n^2) sum_u (r^2 B^2 / s^2 - x_{u,i}^2)
//     Laplace  Var(x^_i) = (1 / n^2) sum_u (||x_u||^2 - x_{u,i}^2 + (sigma^2 + rho_u) / s^2)
// which, summed over all d~ coordinates with s^2 = 1 / d~, are B.5's totals. The unobserved
// sum_u x_{u,i}^2 >= n x_bar_i^2 is replaced by n c_i^2 (c_i the estimate clipped to [-R, R]),
// ||x_u||^2 by its bound R^2 and rho_u by 1/4: exact for identical users on the sphere, otherwise
// never below the truth except through the plug-in's noise.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "estimation.h"
#include "family.h"
#include "integer_fwht.h"
#include "kernel_access.h"
#include "ldp/base/int128.h"
#include "ldp/random/rotation.h"
#include "ldp/server/mean.h"
#include "ldp/server/vector_mean.h"
#include "ldp/wire/byte_cursor.h"
#include "ldp/wire/vector_params.h"
#include "state_io.h"
#include "wide_sum.h"

namespace ldp::server {
namespace {

using wire::field;
using wire::mechanism;

constexpr double infinity = std::numeric_limits<double>::infinity();

class vector_mean final : public aggregator {
 public:
  vector_mean(const wire::params& p, std::size_t padded_dim)
      : aggregator(p),
        duchi_(p.mech == mechanism::vector_duchi),
        counts_(padded_dim),
        ones_(duchi_ ? padded_dim : 0),
        sums_(duchi_ ? 0 : padded_dim) {}

 protected:
  status ingest(const wire::report& r) noexcept override {
    if (r.index >= counts_.size()) return status::out_of_range;  // the decoder already checks
    ++counts_[r.index];
    if (duchi_) {
      ones_[r.index] += r.bit;
    } else {
      sums_[r.index] += to_i128(r.value);
    }
    return status::ok;
  }

  status merge_counts(const aggregator& other) override {
    const auto& o = static_cast<const vector_mean&>(other);
    for (std::size_t j = 0; j < counts_.size(); ++j) {
      counts_[j] += o.counts_[j];
      if (duchi_) {
        ones_[j] += o.ones_[j];
      } else {
        sums_[j] += o.sums_[j];
      }
    }
    return status::ok;
  }

  void write_body(std::vector<unsigned char>& out) const override {
    out.reserve(out.size() + counts_.size() * (duchi_ ? 16 : 8 + detail::wide_sum_bytes));
    for (std::size_t j = 0; j < counts_.size(); ++j) {
      detail::put_u64(out, counts_[j]);
      if (duchi_) {
        detail::put_u64(out, ones_[j]);
      } else {
        detail::put_wide_sum(out, sums_[j]);
      }
    }
  }

  status read_body(span<const unsigned char> body) override {
    wire::byte_reader in(body);
    uint64_t total = 0;
    for (std::size_t j = 0; j < counts_.size(); ++j) {
      const uint64_t n = in.get_le(8);
      if (duchi_) {
        const uint64_t ones = in.get_le(8);
        if (in.ok() && ones > n) return status::malformed_report;
        ones_[j] = ones;
      } else {
        const span<const unsigned char> sum = in.get_bytes(detail::wide_sum_bytes);
        if (!in.ok()) break;
        sums_[j] = detail::load_wide_sum(sum.data());
        if (!detail::reachable(sums_[j], n)) return status::malformed_report;
      }
      if (!in.ok()) break;
      counts_[j] = n;
      if (!checked_add(total, n, &total)) return status::malformed_report;
    }
    if (!in.ok() || !in.rest().empty()) return status::wrong_length;
    return total == reports_ ? status::ok : status::malformed_report;
  }

  std::vector<estimate> estimate_impl(double z) const override {
    const auto d = static_cast<std::size_t>(params_.get(field::domain));
    std::vector<estimate> out;
    out.reserve(d);
    if (reports_ == 0) {
      for (std::size_t i = 0; i < d; ++i) out.push_back(detail::empty_estimate(static_cast<uint32_t>(i)));
      return out;
    }
    const std::vector<double> transformed = transformed_sums();
    const std::size_t dim = counts_.size();
    std::vector<uint32_t> signs(random::rotation_sign_words(static_cast<uint32_t>(dim)));
    if (random::rotation_signs(params_.rotation_seed, static_cast<uint32_t>(dim), signs) != status::ok) return {};

    const int f = static_cast<int>(params_.get(field::frac_bits));
    const auto n = static_cast<double>(reports_);
    const double radius = std::ldexp(static_cast<double>(params_.get_signed(field::radius)), -f);
    const double factor = report_unit(params_) / n;
    const double spread = vector_mean_spread(params_);
    for (std::size_t i = 0; i < d; ++i) {
      const bool flip = ((signs[i / 32] >> (i % 32)) & 1u) != 0;
      const double value = (flip ? -transformed[i] : transformed[i]) * factor;
      const double clipped = std::min(radius, std::max(-radius, value));
      // An upper bound for any users in the ball, whatever the rotation in use (vector_mean.h).
      out.push_back(detail::make_estimate(static_cast<uint32_t>(i), value, (spread - clipped * clipped) / n, z,
                                          variance_kind::bound));
    }
    return out;
  }

 private:
  // H applied to the per-coordinate sums, exactly, then one rounding to double. Every FWHT stage
  // is bounded by the sum of the absolute values of its input, which picks the narrowest exact
  // path: the int32 kernel below 2^31, int64 below 2^63, else 128 bits. Duchi's signed counts
  // ones_j - zeros_j add up to at most n <= 2^62 in absolute value; Laplace sums to at most n 2^63.
  std::vector<double> transformed_sums() const {
    const std::size_t dim = counts_.size();
    std::vector<int64_t> t(dim);
    uint64_t bound = reports_;
    if (duchi_) {
      for (std::size_t j = 0; j < dim; ++j) {
        t[j] = static_cast<int64_t>(ones_[j]) - static_cast<int64_t>(counts_[j] - ones_[j]);
      }
    } else if (!narrow_sums(t, &bound)) {
      std::vector<i128> wide(sums_);
      detail::fwht(wide.data(), dim);
      std::vector<double> out(dim);
      for (std::size_t j = 0; j < dim; ++j) out[j] = to_double(wide[j]);
      return out;
    }
    std::vector<double> out(dim);
    if (detail::fwht_fits_i32(dim, bound)) {
      std::vector<int32_t> narrow(t.begin(), t.end());
      detail::fwht_i32(narrow);
      std::copy(narrow.begin(), narrow.end(), out.begin());
    } else {
      detail::fwht(t);
      std::copy(t.begin(), t.end(), out.begin());
    }
    return out;
  }

  // The Laplace sums as int64 and the sum of their absolute values, when that is below 2^63.
  bool narrow_sums(std::vector<int64_t>& t, uint64_t* bound) const {
    uint64_t total = 0;
    for (std::size_t j = 0; j < sums_.size(); ++j) {
      const u128 m = magnitude(sums_[j]);
      if (m.hi != 0 || m.lo >= (uint64_t{1} << 63) || !checked_add(total, m.lo, &total) ||
          total >= (uint64_t{1} << 63)) {
        return false;
      }
      t[j] = static_cast<int64_t>(sums_[j].lo);  // two's complement: the low limb is the value
    }
    *bound = total;
    return true;
  }

  bool duchi_;
  std::vector<uint64_t> counts_;  // n_j
  std::vector<uint64_t> ones_;    // vector-duchi: reports of coordinate j with bit 1
  std::vector<i128> sums_;        // vector-laplace: sum of the values reported for j
};

}  // namespace

double report_unit(const wire::params& p) noexcept {
  const int f = static_cast<int>(p.get(field::frac_bits));
  const wire::rotation_scale s = wire::scale_of_rotation(wire::rotation_log2(p));
  const double inverse_scale = std::ldexp(1.0, static_cast<int>(s.shift)) / static_cast<double>(s.mult);  // 1/s
  // One report's estimate of y_j per unit of S_j: Duchi's r B (2b - 1) is summed as ones - zeros.
  const double clip = std::ldexp(static_cast<double>(p.get_signed(field::clip_hi)), -f);
  const double unit = p.mech == mechanism::vector_duchi ? clip * duchi_scale(p) : std::ldexp(1.0, -f);
  return unit * inverse_scale;
}

double vector_mean_spread(const wire::params& p) noexcept {
  const int f = static_cast<int>(p.get(field::frac_bits));
  const double unit = report_unit(p);
  if (p.mech == mechanism::vector_duchi) return unit * unit;
  const double radius = std::ldexp(static_cast<double>(p.get_signed(field::radius)), -f);
  // Laplace: unit = 2^-f / s, so (sigma^2 + 1/4) 2^-2f / s^2 = (sigma^2 + 1/4) unit^2.
  return radius * radius + (laplace_noise_variance(p) + 0.25) * unit * unit;
}

bool is_vector_mean_mechanism(wire::mechanism m) noexcept {
  return detail::served_by(m, detail::make_vector_mean_aggregator);
}

double total_variance(span<const estimate> estimates) noexcept {
  double total = 0;
  for (const estimate& e : estimates) total += e.variance;
  return total;
}

status project_l2_ball(span<const double> y, double radius, std::vector<double>* out) noexcept {
  if (out == nullptr || !(radius >= 0) || !std::isfinite(radius)) return status::invalid_argument;
  double largest = 0;
  for (double v : y) {
    if (!std::isfinite(v)) return status::invalid_argument;
    largest = std::max(largest, std::fabs(v));
  }
  try {
    out->assign(y.begin(), y.end());
    if (largest == 0) return status::ok;
    // The norm through y / max|y_i|, which cannot overflow or underflow to zero.
    double sum = 0;
    for (double v : y) sum += (v / largest) * (v / largest);
    const double norm = largest * std::sqrt(sum);
    if (norm <= radius) return status::ok;
    const double shrink = radius / norm;
    for (double& v : *out) v *= shrink;
    return status::ok;
  } catch (...) {
    out->clear();
    return status::overflow;
  }
}

status detail::make_vector_mean_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  if (!is_vector_mean_mechanism(p.mech)) return status::invalid_parameters;
  if (p.mech == mechanism::vector_duchi && !(duchi_scale(p) < infinity)) return status::invalid_parameters;
  std::size_t dim = 0;
  // Three words per coordinate (counts and ones, or counts and a two-word sum), plus the FWHT copy.
  if (!cell_count(5 * p.get(field::hadamard_dim), &dim)) return status::overflow;
  *out = std::make_unique<vector_mean>(p, static_cast<std::size_t>(p.get(field::hadamard_dim)));
  return status::ok;
}

bool detail::vector_mean_body_size(const wire::params& p, uint64_t, uint64_t* bytes) {
  const uint64_t per_coordinate = p.mech == mechanism::vector_duchi ? 16 : 8 + wide_sum_bytes;
  return checked_mul(p.get(field::hadamard_dim), per_coordinate, bytes);
}

}  // namespace ldp::server
