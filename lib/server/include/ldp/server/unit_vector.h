// Server side of the unit-vector family, docs/mechanisms.md B.6 (`l2-ball`) and B.7 (`privunitg`):
// exact 128-bit sums S_i of the reported int16 coordinates, the unbiased mean x^_i = B S_i / (2^14 n) in
// real units (B = R * output_scale / 2^32, wire/unit_vector_params.h) and its per-coordinate variance
//     (spread - c_i^2) / n,   spread = B^2 (1/d + 2^-30) (l2-ball),
//                             spread = (B / 8)^2 (max(1, along) + 2^-22) (privunitg)
// (src/unit_vector.cpp derives them: l2-ball's E[u_i^2] = 1/d exactly, PrivUnitG's second moment of
// Z_i / sigma at most the cap's along v (B.7); the small terms bound the rounding to the int16 grid;
// c_i the estimate clipped to [-R, R] in place of the users' x_{u,i}; exact for identical users up to
// the rounding bound (l2-ball), else an upper bound up to the plug-in's noise). With no reports value
// and interval are NaN and the variance +inf.
//
// State: d signed 128-bit sums (16 bytes each, wide_sum.h layout), each within n (2^15 - 1).
#ifndef LDP_SERVER_UNIT_VECTOR_H
#define LDP_SERVER_UNIT_VECTOR_H

#include "ldp/wire/mechanism.h"
#include "ldp/wire/params.h"

namespace ldp::server {

// n Var(x^_i) + c_i^2 = B^2 (1/d + 2^-30), the coordinate-independent part of the variance above
// (real units), for estimates and for ranking the vector mechanisms.
[[nodiscard]] double unit_vector_spread(const wire::params& p) noexcept;

// n E||x^ - x||^2 + ||x||^2 for one user on the sphere, the sum over the coordinates of n E[x^_i^2]
// (real units): d spread for l2-ball, (B / 8)^2 (along + d - 1 + d 2^-22) for privunitg, whose
// per-coordinate spread bounds the one coordinate along v (B.7). For ranking the vector mechanisms.
[[nodiscard]] double unit_vector_total_spread(const wire::params& p) noexcept;

// Whether the unit-vector family serves m: l2-ball, privunitg.
[[nodiscard]] bool is_unit_vector_mechanism(wire::mechanism m) noexcept;

}  // namespace ldp::server

#endif
