// The privacy levels ldpkit accepts and the margin of their exact derivation (docs/mechanisms.md D.1),
// one definition for the wire derivations, the server's central releases and the tool's options.
#ifndef LDP_WIRE_EPSILON_H
#define LDP_WIRE_EPSILON_H

namespace ldp::wire {

// Every derivation, release and --epsilon option accepts levels in (epsilon_min_exclusive,
// epsilon_max] and refuses others (invalid_argument in the libraries).
inline constexpr double epsilon_min_exclusive = 0;
inline constexpr double epsilon_max = 40;

[[nodiscard]] constexpr bool valid_epsilon(double epsilon) noexcept {
  return epsilon > epsilon_min_exclusive && epsilon <= epsilon_max;
}

// 1 + 2^-40: a derived level must satisfy epsilon_impl * margin <= epsilon, which absorbs the few
// ulps of det_log and of double division, so the true level of the integers never exceeds epsilon.
inline constexpr double epsilon_margin = 1.0 + 1.0 / 1099511627776.0;

}  // namespace ldp::wire

#endif
