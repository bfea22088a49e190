// Server side of Ghazi et al. 2024 sparse vectors (docs/mechanisms.md C.3, Algorithm 1, the projection
// mechanism), central DP under replace-one with a public n. Devices send s-sparse vectors with l2
// norm at most L (lib/device sparse_projection.h); the trusted server sums them exactly, adds noise to
// ALL d coordinates (noise on the observed support only would leak the support), and projects onto
// the l1 ball of radius L sqrt(s) (l1_projection.h).
//
// [impl] Variant implemented:
//   - pure epsilon-DP: discrete Laplace on the integer sums with scale t = 2 R1 / epsilon grid units,
//     R1 = floor(L sqrt(s)) (wire::sparse_l1_bound), so that the implemented level 2 R1 / t never
//     exceeds epsilon (the rational t of wire::laplace_scale). On the mean this is Laplace with
//     b = 2 L sqrt(s) / (n epsilon) up to the rounding of R1 and t.
//   - (epsilon, delta)-DP: the exact discrete Gaussian (discrete_gaussian.h) on the sums with integer
//     sigma^2 >= (2L)^2 / (2 rho), rho the zCDP level with rho + 2 sqrt(rho ln(1/delta)) = epsilon
//     (Canonne-Kamath-Steinke 2020: N_Z(0, sigma^2) per coordinate is (Delta_2^2 / (2 sigma^2))-zCDP
//     for integer shifts of l2 norm Delta_2 = 2L; Bun-Steinke 2016 Prop. 1.3 converts zCDP to
//     (epsilon, delta)). This replaces C.3's continuous sigma = 2L sqrt(2 ln(1.25/delta)) / (n eps)
//     (valid for eps < 1 only) and is within a few percent of it there; it holds for every epsilon.
//   - the sums are exact integers in a dense vector of d int64 (8d bytes; the state body is the
//     same d x i64), which the dense noise needs anyway.
#ifndef LDP_SERVER_CENTRAL_SPARSE_PROJECTION_H
#define LDP_SERVER_CENTRAL_SPARSE_PROJECTION_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::server {

// Exact per-coordinate sums of sparse-projection reports. A report whose l2 norm exceeds L is rejected
// (out_of_range): the sensitivity of the sums, hence the privacy of everyone else, rests on it. A
// report that would overflow a sum is rejected (overflow), whole.
//
// estimate_all() returns the exact, NOT private, mean of each coordinate (variance 0): the trusted
// server's own view, like the state itself. Publish only release_sparse_mean()'s output.
class sparse_projection_aggregator : public aggregator {
 public:
  // Sum over accepted reports of each coordinate, in grid units (the block's frac_bits).
  const std::vector<int64_t>& sums() const noexcept { return sums_; }

  sparse_projection_aggregator(const wire::params& p, std::size_t d);

 protected:
  status ingest(const wire::report& r) noexcept override;
  status merge_counts(const aggregator& other) override;
  void write_body(std::vector<unsigned char>& out) const override;
  status read_body(span<const unsigned char> body) override;
  std::vector<estimate> estimate_impl(double z) const override;

 private:
  std::vector<int64_t> sums_;
  std::vector<uint32_t> indices_;  // one report's pairs, s each
  std::vector<int64_t> values_;
};

struct sparse_release_options {
  double epsilon = 1;  // in (0, 40]
  double delta = 0;    // 0: pure DP, discrete Laplace; in (0, 1): discrete Gaussian
};

struct sparse_release {
  std::vector<double> noisy_mean;  // x_bar + z in real units, all d coordinates (already DP)
  std::vector<double> mean;        // noisy_mean projected onto the l1 ball of radius l1_radius
  double epsilon_impl = 0;         // the level the integers implement, <= the requested epsilon
  double delta = 0;
  double noise_scale = 0;     // on the mean, real units: Laplace b = t gamma / n, or sigma gamma / n
  double noise_variance = 0;  // per-coordinate variance of z on the mean: exact for Laplace; sigma^2
                              // for the discrete Gaussian, whose variance is below it by < 3e-7 relative
  double l1_radius = 0;       // L sqrt(s) in real units
  uint64_t scale_num = 0;     // pure DP: t = scale_num / scale_den grid units on the sums
  uint64_t scale_den = 0;
  uint64_t sigma2 = 0;  // approximate DP: sigma^2 in squared grid units on the sums
};

// The projection mechanism on `agg` (a sparse_projection_aggregator; invalid_argument otherwise), with
// noise drawn from `rng`, a server DRBG the caller seeds. n = agg.reports() is public and >= 1
// (invalid_argument for 0). invalid_argument for epsilon outside (0, 40], delta outside [0, 1), or a
// noise scale the samplers cannot represent (t above 2^56, sigma^2 above 2^52: use fewer frac_bits);
// overflow when memory runs out. Never throws.
[[nodiscard]] status release_sparse_mean(const aggregator& agg, const sparse_release_options& options,
                                         random::drbg& rng, sparse_release* out) noexcept;

// The discrete Gaussian variance for l2 sensitivity delta2 (grid units) at (epsilon, delta): the
// smallest integer sigma^2 with rho = delta2^2 / (2 sigma^2) and rho + 2 sqrt(rho ln(1/delta)) <=
// epsilon (with the D.1 margin); its implemented epsilon in *epsilon_impl. invalid_argument for
// arguments out of range or sigma^2 above discrete_gaussian_max_sigma2.
[[nodiscard]] status gaussian_variance(uint64_t delta2, double epsilon, double delta, uint64_t* sigma2,
                                       double* epsilon_impl) noexcept;

}  // namespace ldp::server

#endif
