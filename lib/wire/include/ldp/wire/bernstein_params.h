// Parameter blocks of Wang, Gaboardi, Smith and Xu's local Bernstein mechanism (docs/mechanisms.md
// H.1, docs/wire_format.md 3.11): a device evaluates its loss at the N = (k + 1)^p points of the
// public grid (wire/loss.h), quantizes the N values to the grid of f fraction bits on [0, 1] and
// sends them as a laplace-vector report (B.1 per coordinate: L1 sensitivity N Q, Q = 2^f).
#ifndef LDP_WIRE_BERNSTEIN_PARAMS_H
#define LDP_WIRE_BERNSTEIN_PARAMS_H

#include <cstdint>

#include "ldp/wire/loss.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// Largest N = (k + 1)^p: the report is N varints and the device evaluates N losses.
inline constexpr uint64_t bernstein_max_points = 65536;
// Largest f: the device rounds a Q62 loss to Q = 2^f with one 64-bit word of 62 - f >= 30 bits.
inline constexpr unsigned bernstein_max_frac_bits = 32;

// The block for p >= 1 features, the grid {0, 1/k, ..., 1}^p (k >= 1), the loss the devices
// evaluate (caller: a function the application supplies to the device), loss values on the grid of
// frac_bits <= 32 fraction bits, at level epsilon in (0, 40]. invalid_argument when N > 65536 or
// the block breaks another rule of docs/wire_format.md 3.3 (the discrete Laplace scale N 2^f /
// epsilon at most 2^56).
[[nodiscard]] derived_params make_bernstein(uint32_t p, uint32_t k, loss_kind loss, unsigned frac_bits,
                                            double epsilon) noexcept;

// The loss of a valid bernstein block.
[[nodiscard]] constexpr loss_kind loss_of(const params& p) noexcept {
  return static_cast<loss_kind>(p.get(field::loss));
}

}  // namespace ldp::wire

#endif
