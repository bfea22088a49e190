// Deterministic exp and log (docs/mechanisms.md 0, "Fixed-point probabilities"): thresholds derived on
// a device must equal those derived on the server bit for bit, and libm's exp/log differ between
// platforms. These use only IEEE-754 +, -, *, / (wire is compiled with -ffp-contract=off so no
// platform fuses them) plus exact scaling by powers of two, and are accurate to a few ulps.
#ifndef LDP_WIRE_DET_MATH_H
#define LDP_WIRE_DET_MATH_H

namespace ldp::wire {

// e^x for |x| <= 700; larger |x| saturates to 0 or +inf.
[[nodiscard]] double det_exp(double x) noexcept;

// ln x for finite x > 0; -inf at 0, NaN below.
[[nodiscard]] double det_log(double x) noexcept;

}  // namespace ldp::wire

#endif
