// ProjUnit and FastProjUnit (Asi, Feldman, Nelson, Nguyen, Talwar 2023; docs/mechanisms.md B.8):
// members of the unit-vector family that run PrivUnitG's device step (B.7) in k dimensions on the
// normalized projection W x / ||W x||, W public and named by a per-report seed (random/projection.h).
// A report is the seed and k int16 coordinates (wire_format.md projected_unit); the server adds
// G^T q per report (W = G / sqrt(k), G a +-1 matrix) and scales by R output_scale / (2^46 sqrt(k)).
#ifndef LDP_WIRE_PROJUNIT_PARAMS_H
#define LDP_WIRE_PROJUNIT_PARAMS_H

#include <cstdint>

#include "ldp/wire/mechanism.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// k when the caller gives 0: min(d, 1000), the projection Apple's reference uses for both
// mechanisms (ml-projunit experiments.py choose_best_k). The variance exceeds PrivUnitG's in d
// dimensions by the factor (k - 1 + along) d / ((d - 1 + along) k) ~ 1 + (along - 1) / k (B.8), below
// 1 % at k = 1000 for every epsilon <= 8, while device and server work grow with k.
inline constexpr uint32_t projection_dim_default = 1000;
[[nodiscard]] constexpr uint32_t default_projection_dim(uint32_t d) noexcept {
  return d < projection_dim_default ? d : projection_dim_default;
}

// A projunit block needs k d <= 2^26: the server regenerates k d signs (k d / 8 bytes of ChaCha20)
// and adds them for every report (B.8 "Server"), so the block bounds the work an untrusted report of
// 18 + 2k bytes can cost (docs/security_model.md). The default k fits up to d = 65536.
inline constexpr uint64_t projunit_max_work = uint64_t{1} << 26;

// c = E||W x|| / ||x|| to second order for spread inputs (B.8 "Estimator"): 1 - 1/(4k) for ProjUnit's
// Rademacher rows, 1 - (d~ - k) / (4k (d~ - 1)) for FastProjUnit's k distinct rows of d~ (1 when
// k = d~). The block's output_scale is PrivUnitG's divided by c.
[[nodiscard]] double projection_norm_mean(mechanism m, uint32_t d, uint32_t k) noexcept;

// The block of m (projunit or fastprojunit) for vectors of d coordinates in the ball of radius
// `radius` (B.6's grid and ball rules in d dimensions) projected to k dimensions (1 <= k <= d; 0
// picks default_projection_dim(d)) at level epsilon: make_privunitg(k, radius, frac_bits, epsilon)'s
// cap and keep (so epsilon_impl is PrivUnitG's in k dimensions), domain d, projection_dim k and
// output_scale = round(PrivUnitG's / projection_norm_mean(m, d, k)).
[[nodiscard]] derived_params make_projunit(uint32_t d, uint32_t k, double radius, unsigned frac_bits,
                                           double epsilon) noexcept;
[[nodiscard]] derived_params make_fastprojunit(uint32_t d, uint32_t k, double radius, unsigned frac_bits,
                                               double epsilon) noexcept;

// Whether m reports a projection (payload projected_unit): projunit, fastprojunit.
[[nodiscard]] constexpr bool is_projected_unit(mechanism m) noexcept {
  return is_known(m) && kind_of(m) == payload_kind::projected_unit;
}

}  // namespace ldp::wire

#endif
