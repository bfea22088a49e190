// The parameter block of glm-copies (docs/mechanisms.md H.4, docs/wire_format.md 3.2 and 3.13): Wang,
// Gaboardi, Smith, Xu's Algorithms 4 and 5 (convex generalized linear models, hinge loss). A device
// holding features x in [0, 1]^p and a label s in [-1, 1] sends D = d (d + 1) + 1 noisy copies of
// (x, s): copy c, coordinate j (j < p the features, j = p the label) is entry c (p + 1) + j of a
// fixed_vector report of domain = D (p + 1) entries, each the value on the grid of 2^frac_bits
// units plus an exact discrete Gaussian N_Z(0, sigma2) (random/discrete_gaussian.h), all copies the
// same sigma2 (H.4 says why).
//
// Privacy [impl]: (x, s) moves by at most sqrt(p + 4) Q in L2 (Q = 2^frac_bits: each feature by Q,
// the label by 2 Q), so each copy is rho_c = (p + 4) Q^2 / (2 sigma2)-zCDP (Canonne, Kamath,
// Steinke 2020, Theorem 14, exact for the discrete Gaussian) and the report rho = D rho_c-zCDP
// (composition adds rho). epsilon_impl is rho converted to (epsilon, delta) at the block's delta by
// CKS 2020 Corollary 13, minimized over the Renyi order. Never the paper's basic composition, which
// for its printed noise gives (3 epsilon, (2 d (d + 1) + 2) delta) (C.4 erratum 6).
#ifndef LDP_WIRE_GLM_PARAMS_H
#define LDP_WIRE_GLM_PARAMS_H

#include <cstdint>

#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// The largest Bernstein degree a block may name (d (d + 1) + 1 = 65281 copies) and the largest
// dimension p (docs/wire_format.md 3.3).
inline constexpr uint32_t glm_max_degree = 255;
inline constexpr uint32_t glm_max_dimension = 65536;
inline constexpr unsigned glm_max_frac_bits = 30;
// sigma2 in [1, 2^52]: random::discrete_gaussian_max_sigma2, the exact sampler's range (the device
// checks that the two agree).
inline constexpr uint64_t glm_max_sigma2 = uint64_t{1} << 52;
// The fraction bits make_glm_copies uses unless told otherwise: features to 1/256 (H.4).
inline constexpr unsigned glm_default_frac_bits = 8;

struct glm_shape {
  uint32_t dimension = 1;  // p, the features (an intercept counts)
  uint32_t degree = 1;     // d, the Bernstein degree of the server's gradient oracle
  unsigned frac_bits = glm_default_frac_bits;
};

// D = d (d + 1) + 1, the copies of (x, s) a report holds.
[[nodiscard]] constexpr uint64_t glm_copy_count(uint64_t degree) noexcept { return degree * (degree + 1) + 1; }

// The paper's degree for a target excess risk alpha (Theorem 30: beta = alpha / 4,
// d = 2 / (beta^2 alpha) = 32 / alpha^3), rounded up; 0 when alpha <= 0 or d > glm_max_degree.
[[nodiscard]] uint32_t glm_degree_for_accuracy(double alpha) noexcept;

// The smallest epsilon of CKS 2020 Corollary 13 for a rho-zCDP mechanism at delta in (0, 1):
// min over Renyi orders a > 1 of a rho + (ln(1/delta) - a ln a) / (a - 1) + ln(a - 1), never
// below 0. Every order gives a valid bound; the minimum is searched on a grid of a - 1 = 2^(k/4)
// and refined by golden section, with det_log only (deterministic).
[[nodiscard]] double zcdp_epsilon(double rho, double delta) noexcept;

// The block's rho: D (p + 4) Q^2 / (2 sigma2) (see above).
[[nodiscard]] double glm_rho(const params& p) noexcept;

// The block's delta (privacy_delta / 2^64).
[[nodiscard]] double glm_delta(const params& p) noexcept;

// The block at (epsilon, delta), epsilon in (0, 40], delta in (2^-64, 1/2): the largest rho whose
// zcdp_epsilon fits, sigma2 = ceil(D (p + 4) Q^2 / (2 rho)), then sigma2 stepped up until
// epsilon_impl (1 + 2^-40) <= epsilon (D.1); delta is stored rounded down. invalid_argument when a
// rule of docs/wire_format.md 3.3 fails (sigma2 outside [1, 2^52] among them).
[[nodiscard]] derived_params make_glm_copies(double epsilon, double delta, const glm_shape& shape) noexcept;

namespace detail {

// The block rules of docs/wire_format.md 3.3 for glm-copies (params.cpp calls it).
[[nodiscard]] bool glm_rules_hold(const params& p) noexcept;

// zcdp_epsilon(glm_rho(p), glm_delta(p)) (oracle_params.cpp's implemented_epsilon).
[[nodiscard]] double glm_epsilon(const params& p) noexcept;

}  // namespace detail
}  // namespace ldp::wire

#endif
