// Parameter blocks of the scalar numeric mechanisms, docs/mechanisms.md B.0 (the grid), B.1 (discrete
// Laplace: laplace, laplace-vector, and the scale of kent-refine and vector-laplace) and B.2 (Duchi
// et al. one-bit mean: duchi, and the thresholds of vector-duchi), with the implemented epsilon of
// D.1. docs/wire_format.md sections 3.3 and 5 state the grid and the rules these blocks obey.
//
// The grid [impl, B.0]: a value is carried as its fixed-point integer x * 2^f (f = frac_bits), and
// the grid step is that unit, gamma = 2^-f. The range [lo, hi] (clip_lo/clip_hi, or interval_lo/
// interval_hi for kent-refine) holds Q + 1 grid points, Q = hi - lo, and the replace-one
// sensitivity is Delta = Q grid units (d * Q in L1 for laplace-vector). Rounding a real to the grid
// is deterministic (to_fixed, half to even, bias at most gamma / 2); the device only clamps.
//
// Everything here that reaches a block is deterministic across platforms: IEEE division, ceil,
// scaling by powers of two, and det_exp/det_log (lib/wire is compiled without FMA contraction).
#ifndef LDP_WIRE_MEAN_PARAMS_H
#define LDP_WIRE_MEAN_PARAMS_H

#include <cstdint>

#include "ldp/base/status.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// Duchi thresholds are out of 2^32 (B.2: w = 32).
inline constexpr unsigned duchi_threshold_bits = 32;
// Largest |range end| of a discrete Laplace block, in fixed point: with the scale limit below, a
// report saturates the int64 field only when |noise| >= 2^61 = 32 t, probability below e^-32 < 2^-46
// (B.1 asks for less than 2^-40).
inline constexpr int64_t laplace_max_magnitude = int64_t{1} << 61;
// Largest scale t = scale_num / scale_den in grid units.
inline constexpr uint64_t laplace_max_scale = uint64_t{1} << 56;
// Largest scale_num: the exact sampler forms u + scale_num * v with v ~ Geometric(e^-1), which
// overflows 64 bits (and is redrawn) only when v >= 64, probability e^-64 < 2^-92.
inline constexpr uint64_t laplace_max_scale_num = uint64_t{1} << 58;
// scale_den when t <= 2^42; a larger t takes the largest power of two keeping scale_num <= 2^58.
inline constexpr int laplace_scale_den_bits = 16;
inline constexpr uint64_t laplace_scale_den = uint64_t{1} << laplace_scale_den_bits;

// x * 2^frac_bits rounded half to even (the grid rounding of B.0), for frac_bits <= 62.
// invalid_argument for NaN or frac_bits > 62 (*out = 0); overflow when saturated to the int64 range.
[[nodiscard]] status to_fixed(double x, unsigned frac_bits, int64_t* out) noexcept;

// Discrete Laplace scale for sensitivity `delta` grid units (B.1, D.1): t = t_num / t_den with
// t_den a power of two (2^16 unless t > 2^42) and t_num the smallest integer >= t_den * delta *
// (1 + 2^-40) / epsilon whose level delta * t_den / t_num passes the D.1 check; so
// epsilon_impl <= epsilon / (1 + 2^-40). invalid_argument for epsilon outside (0, 40], delta 0, or
// a scale above laplace_max_scale.
[[nodiscard]] status laplace_scale(uint64_t delta, double epsilon, uint64_t* t_num, uint64_t* t_den) noexcept;

// Duchi thresholds out of 2^32 (B.2): T_lo = ceil(2^32 / (e^eps + 1)), stepped up until
// ln(T_hi / T_lo) fits (D.1), and T_hi = 2^32 - T_lo. invalid_argument for epsilon outside (0, 40]
// or one so small that T_lo = T_hi (no estimator).
[[nodiscard]] status duchi_thresholds(double epsilon, uint64_t* t_lo, uint64_t* t_hi) noexcept;

// Blocks for values in [lo, hi] (reals, rounded to the grid of frac_bits <= 62 fraction bits, which
// must keep lo < hi), at level epsilon in (0, 40]. The result carries epsilon_impl <= epsilon;
// code is invalid_argument when the arguments or the derived block break a rule of
// docs/wire_format.md 3.3 (laplace: |lo|, |hi| <= 2^61 in fixed point and t <= 2^56; duchi:
// (hi - lo) * 2^(32 + f) <= 2^64, i.e. w + f + 1 <= 64 on [-1, 1]).
[[nodiscard]] derived_params make_laplace(double lo, double hi, unsigned frac_bits, double epsilon) noexcept;
// d coordinates in [lo, hi] each; L1 sensitivity d * Q grid units (d * Q <= 2^62).
[[nodiscard]] derived_params make_laplace_vector(uint32_t d, double lo, double hi, unsigned frac_bits,
                                                 double epsilon) noexcept;
[[nodiscard]] derived_params make_duchi(double lo, double hi, unsigned frac_bits, double epsilon) noexcept;

// ---- Grid facts of a valid numeric block, for device and server alike --------------------------

// The range a device clamps to, in fixed point: [interval_lo, interval_hi] for kent-refine,
// [clip_lo, clip_hi] otherwise.
struct value_range {
  int64_t lo = 0;
  int64_t hi = 0;
};

[[nodiscard]] constexpr value_range range_of(const params& p) noexcept {
  const bool interval = p.mech == mechanism::kent_refine;
  return {p.get_signed(interval ? field::interval_lo : field::clip_lo),
          p.get_signed(interval ? field::interval_hi : field::clip_hi)};
}

// Q = hi - lo grid steps (exact for any int64 ends: the difference is below 2^64).
[[nodiscard]] constexpr uint64_t range_width(const params& p) noexcept {
  const value_range r = range_of(p);
  return static_cast<uint64_t>(r.hi) - static_cast<uint64_t>(r.lo);
}

[[nodiscard]] constexpr int64_t clamp_to_range(const params& p, int64_t x) noexcept {
  const value_range r = range_of(p);
  return x < r.lo ? r.lo : x > r.hi ? r.hi : x;
}

// Whether the block's reports are laplace-vector reports: d = domain discrete Laplace coordinates
// (B.1 per coordinate). laplace-vector takes the d values from the caller; the other mean members
// with a fixed_vector payload compute them on the device from their own input (docs/mechanisms.md
// H.5) and share everything else: derivation, noise, aggregation, state.
[[nodiscard]] constexpr bool is_laplace_vector_block(const params& p) noexcept {
  return in_family(p.mech, mechanism_family::mean) && kind_of(p.mech) == payload_kind::fixed_vector;
}

// Delta in grid units: Q, or d * Q (L1) for laplace-vector blocks. Valid blocks keep it below 2^63.
[[nodiscard]] constexpr uint64_t sensitivity(const params& p) noexcept {
  const uint64_t q = range_width(p);
  return is_laplace_vector_block(p) ? q * p.get(field::domain) : q;
}

// Duchi's probability of b = 1 at x (clamped) is N / (2^w * Q) with the integer
// N = T_lo * Q + (T_hi - T_lo) * (x - lo) (B.2; on [-1, 1], Q = 2^(f+1) and this is B.2's
// N(x) = T_lo 2^(f+1) + (T_hi - T_lo)(x_q + 2^f)). Linear in x, so the extreme inputs decide the
// level: ln(T_hi / T_lo). Valid blocks keep T_hi * Q < 2^64.
[[nodiscard]] constexpr uint64_t duchi_threshold(const params& p, int64_t x) noexcept {
  const uint64_t q = range_width(p);
  const uint64_t t_hi = p.get(field::threshold_keep), t_lo = p.get(field::threshold_other);
  const uint64_t position = static_cast<uint64_t>(clamp_to_range(p, x)) - static_cast<uint64_t>(range_of(p).lo);
  return t_lo * q + (t_hi - t_lo) * position;
}

// 2^w * Q, the size of the uniform Duchi's threshold is compared with, modulo 2^64: 0 stands for
// 2^64 (then the uniform is one raw 64-bit word).
[[nodiscard]] constexpr uint64_t duchi_denominator(const params& p) noexcept {
  return range_width(p) << p.get(field::threshold_bits);
}

// ---- Memoized duchi (docs/mechanisms.md E.2, Ding, Kulkarni, Yekhanin 2017) ---------------------
//
// A duchi block with the two optional fields memo_grid = k and output_flip = Phi (always together).
// Each device rounds its value by alpha-point rounding to one of the k + 1 grid points
// lo + j s, s = Q / k grid units (k divides Q), keeps one permanent duchi bit per grid point, and
// flips the bit it reports with probability Phi / 2^32 < 1/2 (0: no flip). The permanent bits give
// the longitudinal level ln(T_hi / T_lo) (the plain duchi level); one report, its bit flipped, has
// the smaller level implemented_epsilon() returns (memoized_duchi_report_epsilon).

// Largest k: a device's grid indices 0..k are memo_seed inputs, and the enumeration of E.2's tests
// stays practical below it.
inline constexpr uint64_t memo_grid_max = uint64_t{1} << 24;

// make_duchi's block with memo_grid = k and output_flip = round(flip * 2^32) for a flip
// probability in [0, 1/2). invalid_argument when make_duchi fails, k is 0, above memo_grid_max or
// does not divide Q = (hi - lo) 2^f, or flip is outside [0, 1/2) (or rounds to 2^31).
[[nodiscard]] derived_params make_memoized_duchi(double lo, double hi, unsigned frac_bits, double epsilon,
                                                 uint32_t grid, double flip) noexcept;

// Whether a (valid) block is a memoized duchi block. Its levels: implemented_epsilon() is one
// report's, ln((Phi 2^32 + (2^32 - 2 Phi) T_hi) / (Phi 2^32 + (2^32 - 2 Phi) T_lo)), the composite of
// duchi and the flip; longitudinal_epsilon() is ln(T_hi / T_lo), the level of all reports of a
// device whose rounded value stays one grid point, however many (the permanent bit is all they
// reveal). Each further grid point a device visits spends it once more (E.2).
[[nodiscard]] constexpr bool is_memoized_mean(const params& p) noexcept { return p.has(field::memo_grid); }

// s = Q / k: grid units between two memo grid points of a valid memoized block.
[[nodiscard]] constexpr uint64_t memo_grid_step(const params& p) noexcept {
  return range_width(p) / p.get(field::memo_grid);
}

// Alpha-point rounding (E.2): x clamped, at position x - lo = j s + r (0 <= r < s), goes to grid
// point j + 1 when r + alpha >= s, else to j, for the device's alpha in [0, s). Averaged over the s
// values of alpha the grid point's position is exactly x - lo. Returns the grid index in [0, k].
[[nodiscard]] constexpr uint32_t memo_grid_index(const params& p, int64_t x, uint64_t alpha) noexcept {
  const uint64_t s = memo_grid_step(p);
  const uint64_t position = static_cast<uint64_t>(clamp_to_range(p, x)) - static_cast<uint64_t>(range_of(p).lo);
  const uint64_t r = position % s;
  return static_cast<uint32_t>(position / s + (r + alpha >= s ? 1 : 0));  // r + alpha < 2 s <= 2^33
}

// The fixed-point value of grid point j.
[[nodiscard]] constexpr int64_t memo_grid_point(const params& p, uint32_t j) noexcept {
  return static_cast<int64_t>(static_cast<uint64_t>(range_of(p).lo) + j * memo_grid_step(p));
}

}  // namespace ldp::wire

#endif
