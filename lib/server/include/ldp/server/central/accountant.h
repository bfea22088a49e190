// The privacy accountant of the discrete Gaussian mechanism (docs/mechanisms.md I.1 "The
// accountant"): zero-concentrated DP per release, composition over T releases, conversion to
// (epsilon, delta) and the inverse (the noise for a target).
//
// What holds for the DISCRETE Gaussian (Canonne, Kamath, Steinke 2020, Theorems 14 and 15): if a
// query q maps datasets to Z^d and neighbours move it by at most Delta in L2 (on the integer grid),
// q(x) + Y with Y_j ~ N_Z(0, sigma2) independent is rho-zCDP with rho = Delta^2 / (2 sigma2) --
// the same rho as the continuous Gaussian, with no extra term (the Renyi divergence of N_Z shifted
// by an integer is at most that of N shifted by the same amount). Composition of T such releases
// (adaptively chosen) is T rho-zCDP (Bun, Steinke 2016, Lemma 2.3).
#ifndef LDP_SERVER_CENTRAL_ACCOUNTANT_H
#define LDP_SERVER_CENTRAL_ACCOUNTANT_H

#include <cstdint>

namespace ldp::server {

// rho of `steps` releases of the discrete Gaussian N_Z(0, sigma2) at L2 sensitivity `sensitivity`
// (grid units): steps Delta^2 / (2 sigma2). NaN for sigma2 <= 0 or a negative sensitivity.
[[nodiscard]] double discrete_gaussian_rho(double sensitivity, double sigma2, uint64_t steps) noexcept;

// The tight conversion (CKS 2020 Proposition 12 / Corollary 13, wire::zcdp_epsilon): the smallest
// epsilon over Renyi orders at which rho-zCDP gives (epsilon, delta)-DP, delta in (0, 1).
[[nodiscard]] double zcdp_to_epsilon(double rho, double delta) noexcept;

// The simple conversion rho + 2 sqrt(rho ln(1/delta)) (Bun, Steinke 2016, Proposition 1.3), for
// comparison: never below zcdp_to_epsilon.
[[nodiscard]] double zcdp_to_epsilon_simple(double rho, double delta) noexcept;

// The smallest integer sigma2 in [1, random::discrete_gaussian_max_sigma2] whose `steps` releases
// at `sensitivity` spend at most `epsilon` at `delta` (tight conversion): found by bisection on
// the accountant itself, so the spent epsilon is never above the target. 0 when none fits or an
// argument is invalid (epsilon <= 0, delta outside (0, 1), steps = 0, sensitivity <= 0).
[[nodiscard]] uint64_t discrete_gaussian_sigma2_for(double epsilon, double delta, uint64_t steps,
                                                    double sensitivity) noexcept;

}  // namespace ldp::server

#endif
