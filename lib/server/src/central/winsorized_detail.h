// Pieces shared by the one-shot and two-round forms of Levy et al.'s winsorized means (docs/mechanisms.md
// C.2): the noisy clipped sum of one coordinate mechanism and the rotation of B.4 on the server.
#ifndef LDP_SERVER_SRC_CENTRAL_WINSORIZED_DETAIL_H
#define LDP_SERVER_SRC_CENTRAL_WINSORIZED_DETAIL_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/params.h"

namespace ldp::server::detail {

struct noisy_value {
  double value = 0;        // sum + discrete Laplace noise (grid units)
  uint64_t scale_num = 0;  // t = scale_num / scale_den
  uint64_t scale_den = 0;
  double epsilon_impl = 0;  // width / t <= epsilon
};

// sum + DLap(t) with t = width / epsilon (wire::laplace_scale: the level width t_den / t_num never
// exceeds epsilon), for a sum whose replace-one sensitivity is `width` grid units.
[[nodiscard]] status noisy_sum(int64_t sum, uint64_t width, double epsilon, random::drbg& rng,
                               noisy_value* out) noexcept;

// The device's rotation of a winsorized block on the server: y <- H D x for x the d coordinates of
// `mean` clamped to [clip_lo, clip_hi] and padded to d~ (unnormalized int32 FWHT, exact).
[[nodiscard]] status rotate_mean(const wire::params& p, span<const int64_t> mean, std::vector<int32_t>& y);

// The inverse on noisy real values: x = D H y / d~, keeping the first d coordinates, scaled by
// `scale` (the grid step and 1/n).
[[nodiscard]] status unrotate(const wire::params& p, std::vector<double> y, double scale, std::vector<double>* x);

}  // namespace ldp::server::detail

#endif
