// The built-in losses and the Bernstein grid of the Wang-Gaboardi-Smith-Xu learners
// (docs/mechanisms.md H.0, docs/wire_format.md 3.11). Defined once in wire so that a device and the
// server evaluate the same loss at the same grid point bit for bit: only IEEE-754 +, -, *, / and
// det_exp/det_log (wire is compiled with -ffp-contract=off).
//
// The paper's Assumption 1 asks for a loss in [0, 1] on the parameter set C = [0, 1]^p; it leaves the
// map from a model to C to the user. ldpkit's map (H.0): theta = 2 w - 1 in [-1, 1]^p, features x in
// [0, 1]^p, margin m = <theta, x> in [-p, p], and each loss divided by its maximum over that domain,
// so that the normalization is tight (the maximum 1 is attained).
#ifndef LDP_WIRE_LOSS_H
#define LDP_WIRE_LOSS_H

#include <cstdint>

namespace ldp::wire {

// Field 45 (loss) of a block. caller: the device evaluates a function the application supplies
// (device::loss_fn); loss_value has no formula for it.
enum class loss_kind : uint32_t { caller = 0, squared = 1, logistic = 2, hinge = 3 };

// True for the values field 45 may hold.
[[nodiscard]] constexpr bool is_loss_kind(uint32_t v) noexcept { return v <= 3; }

// The loss at parameters w in [0, 1]^p for one example (x in [0, 1]^p, label y), in [0, 1]:
//   squared   (m - y)^2 / (p + 1)^2            y in [0, 1]
//   logistic  ln(1 + e^{-s m}) / ln(1 + e^p)   y in {0, 1}, s = 2 y - 1
//   hinge     max(0, 1 - s m) / (1 + p)        y in {0, 1}, s = 2 y - 1
// w, x and y are clamped to [0, 1] first (so the result is always in [0, 1]); a NaN among them, a
// p of 0 or kind caller give NaN.
[[nodiscard]] double loss_value(loss_kind kind, const double* w, const double* x, uint32_t p, double y) noexcept;

// (k + 1)^p, the number of grid points, or 0 when it exceeds 2^32 (no block can hold such a grid).
[[nodiscard]] uint64_t grid_point_count(uint32_t p, uint32_t k) noexcept;

// Grid point l of the (k + 1)^p grid: l = sum_j v_j (k + 1)^j (axis 0 fastest), w_j = v_j / k.
// Writes p values into w; l must be below grid_point_count(p, k) and k >= 1.
void grid_point(uint32_t p, uint32_t k, uint64_t l, double* w) noexcept;

}  // namespace ldp::wire

#endif
