// Server side of the scalar numeric mechanisms (docs/mechanisms.md B.1, B.2, and C.1 P2): mean
// estimation from `laplace`, `laplace-vector`, `duchi` and `kent-refine` reports. The aggregators
// come from aggregator::create (aggregator.h); this header states what their estimates mean and
// offers the closed forms and the post-processing.
//
// State: exact integers only. The discrete Laplace family keeps one signed 128-bit sum of the
// reported fixed-point values per coordinate (16 bytes each, little-endian low limb first, two's
// complement): with at most 2^62 reports of any int64 it cannot overflow. Duchi keeps the number
// of reported ones (u64, at most n). A saved state whose sums n int64 values cannot reach, or with
// more ones than reports, is rejected (malformed_report).
//
// Estimates (estimate_all), in real units (fixed point / 2^f), item = coordinate (0 for a scalar;
// kent-refine blocks of a fold carry their fold_coordinate):
//   - discrete Laplace: value = (sum / n) 2^-f, unbiased for the mean of the clamped inputs;
//     variance = gamma^2 sigma^2 / n exactly, with gamma = 2^-f and sigma^2 =
//     laplace_noise_variance(p) the noise variance of the implemented scale (B.1). Inputs are on
//     the grid already (wire::to_fixed rounds half to even, bias <= gamma / 2, not counted here).
//   - duchi: with y = 2 (x - lo) / Q - 1 in [-1, 1], y-hat = B-hat (2 ones - n) / n is exactly
//     unbiased (B.2) and value = (lo + hi)/2 2^-f + (Q/2) 2^-f y-hat. The variance is
//     (Q/2)^2 gamma^2 sum_u (B-hat^2 - y_u^2) / n^2, at most (Q/2)^2 gamma^2 (B-hat^2 - y-bar^2) / n
//     (the mean of y_u^2 is at least y-bar^2). Reported: (Q/2)^2 gamma^2 (B-hat^2 - y-c^2) / (n - 1)
//     with y-c = y-hat clipped to [-1, 1]; since E[y-hat^2] = y-bar^2 + Var(y-hat) <= y-bar^2 +
//     (B-hat^2 - y-bar^2) / n, its expectation is at least the bound above: conservative, and
//     unbiased on constant data (up to the clipping, which only raises it). n = 1: (Q/2)^2 gamma^2
//     B-hat^2, the largest per-user variance.
//   - memoized duchi (E.2): the same estimator and variance with B-hat = duchi_scale(p), which
//     undoes the flip; alpha-point rounding is unbiased over the devices' alphas, and its variance
//     is inside B-hat^2 - y_u^2 (each device's bit is one Bernoulli draw of its mean over alpha and
//     the permanent coin). Valid for one report per device: reports of one device on several days
//     share the permanent bit and must not be pooled into one state as if independent.
//   - ci_low/ci_high = value -+ z sqrt(variance), the normal approximation.
//   - n = 0: value and interval NaN, variance +inf.
#ifndef LDP_SERVER_MEAN_H
#define LDP_SERVER_MEAN_H

#include <vector>

#include "ldp/base/span.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/mechanism.h"
#include "ldp/wire/params.h"

namespace ldp::server {

// Whether the mean family serves m: laplace, laplace-vector, duchi, kent-refine, kway-marginals
// (laplace-vector reports of conjunction indicators; its answers are server/marginals.h), smooth-queries
// (of Chebyshev features; server/smooth_queries.h). aggregator::create
// gives invalid_parameters for a duchi block with T_lo = T_hi (epsilon 0, no estimator).
[[nodiscard]] bool is_mean_mechanism(wire::mechanism m) noexcept;

// B-hat = 2^w / (T_hi - T_lo) of a Duchi block (B.2; vector-duchi too); +inf when T_lo = T_hi. A
// memoized block (E.2) multiplies it by 2^32 / (2^32 - 2 Phi), undoing the output flip.
[[nodiscard]] double duchi_scale(const wire::params& p) noexcept;

// The variance of the implemented discrete Laplace noise in grid units^2: 2 alpha / (1 - alpha)^2
// with alpha = e^(-1/t), t = scale_num / scale_den (B.1; about 2 t^2 - 1/6).
[[nodiscard]] double laplace_noise_variance(const wire::params& p) noexcept;

// Post-processing (B.1, B.2): each value and interval end clamped to the block's range in real
// units ([clip_lo, clip_hi], the interval for kent-refine, divided by 2^f). The variance is kept:
// the true mean lies in the range, so clamping never moves an estimate away from it and the
// variance stays an upper bound of the mean squared error. Empty if memory runs out.
[[nodiscard]] std::vector<estimate> clamp_means(span<const estimate> raw, const wire::params& p);

}  // namespace ldp::server

#endif
