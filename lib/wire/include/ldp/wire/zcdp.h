// Conversion of zero-concentrated DP to (epsilon, delta)-DP, shared by the device-side parameter
// blocks that hold Gaussian noise (glm-copies, docs/mechanisms.md H.4) and the server's accountant
// (server/central/accountant.h, docs/mechanisms.md I.1). Moved here from glm_params (wt-glm) so
// there is one copy; deterministic (det_log only), so every target derives the same numbers.
#ifndef LDP_WIRE_ZCDP_H
#define LDP_WIRE_ZCDP_H

namespace ldp::wire {

// The smallest epsilon of CKS 2020 Corollary 13 for a rho-zCDP mechanism at delta in (0, 1):
// min over Renyi orders a > 1 of a rho + (ln(1/delta) - a ln a) / (a - 1) + ln(a - 1), never
// below 0. Every order gives a valid bound; the minimum is searched on a grid of a - 1 = 2^(k/4)
// and refined by golden section, with det_log only (deterministic). NaN outside the domain.
[[nodiscard]] double zcdp_epsilon(double rho, double delta) noexcept;

}  // namespace ldp::wire

#endif
