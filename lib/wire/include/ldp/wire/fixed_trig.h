// Deterministic fixed-point cos and sin for the trigonometric basis of Kent M5 (docs/mechanisms.md
// C.1 P5): integer arithmetic only, so every device (Cortex-M included) and the server compute the
// same features bit for bit, and no floating point runs on a device.
//
// An angle is a binary phase p in [0, 2^32), the fraction p / 2^32 of a full turn; values are Q30
// (value * 2^30, in [-2^30, 2^30]). Method: the octant symmetries of cos and sin reduce p to an
// angle theta in [0, pi/4], held in unsigned Q32 (theta * 2^32 = p' 2 pi, with 2 pi in Q32), and
// the Taylor polynomials to degree 12 (cos) and 11 (sin), whose remainders are below 2^-37 there,
// are evaluated by Horner's rule in Q32 with unsigned 64-bit products (no 128-bit type: Cortex-M). |result - 2^30 cos(2 pi p / 2^32)| <= 1
// (and the same for sin): one Q30 unit, 2^-30 in value (tests/unit/wire/test_fixed_trig.cpp
// checks every octant against long double).
#ifndef LDP_WIRE_FIXED_TRIG_H
#define LDP_WIRE_FIXED_TRIG_H

#include <cstdint>

namespace ldp::wire {

inline constexpr unsigned trig_bits = 30;  // values are Q30

// 2^30 cos(2 pi phase / 2^32) and 2^30 sin(2 pi phase / 2^32), rounded (error at most one unit).
[[nodiscard]] int64_t fixed_cos(uint32_t phase) noexcept;
[[nodiscard]] int64_t fixed_sin(uint32_t phase) noexcept;

// The binary phase of m x for x on the grid of f fraction bits (x = value * 2^f): the fraction
// of a turn (m x mod 2^f) / 2^f, exactly when f <= 32, rounded to 32 bits otherwise. m x wraps
// modulo 2^64, which 2^f divides, so the residue is exact for every x and m.
[[nodiscard]] uint32_t turn_phase(uint64_t m, int64_t x, unsigned frac_bits) noexcept;

// Kent M5's feature j >= 0 (the fold coordinate) at x in fixed point with f fraction bits, in Q30:
// phi_(j+2)(x) / sqrt(2) of C.1 P5, that is cos(2 pi m x) for even j and sin(2 pi m x) for odd j,
// m = j / 2 + 1 (phi_1 = 1 is known and has no fold). x is clamped to [0, 1] (0 and 1 give the
// same features: the basis is periodic).
[[nodiscard]] int64_t basis_feature(uint32_t j, int64_t x, unsigned frac_bits) noexcept;

}  // namespace ldp::wire

#endif
