// Fixed-point cos and sin (ldp/wire/fixed_trig.h states the method and its error).
#include "ldp/wire/fixed_trig.h"

#include <initializer_list>

namespace ldp::wire {
namespace {

constexpr uint64_t one_q32 = uint64_t{1} << 32;
constexpr uint64_t two_pi_q32 = 26986075409u;  // round(2 pi 2^32)
constexpr uint32_t quarter = uint32_t{1} << 30;
constexpr uint32_t eighth = uint32_t{1} << 29;

// a b / 2^32 rounded, for a < 2^32 and b <= 2^32 (the product stays below 2^64).
uint64_t mul_q32(uint64_t a, uint64_t b) { return (a * b + (uint64_t{1} << 31)) >> 32; }

// 1 - x2 t / k rounded, one Horner step of the Taylor series (x2 t / k < 1).
uint64_t step(uint64_t x2, uint64_t t, uint64_t k) { return one_q32 - (mul_q32(x2, t) + k / 2) / k; }

// theta = u 2 pi / 2^32 for u in [0, 2^29] (theta in [0, pi/4]), in Q32 (u 2 pi 2^32 < 2^64).
uint64_t angle_q32(uint32_t u) { return (u * two_pi_q32 + (uint64_t{1} << 31)) >> 32; }

// Q32 cos and sin of theta = u 2 pi / 2^32 in [0, pi/4].
uint64_t cos_q32(uint32_t u) {
  const uint64_t theta = angle_q32(u);
  const uint64_t x2 = mul_q32(theta, theta);
  uint64_t t = one_q32;
  for (uint64_t k : {132, 90, 56, 30, 12, 2}) t = step(x2, t, k);  // (2i - 1) 2i for i = 6 .. 1
  return t;
}
uint64_t sin_q32(uint32_t u) {
  const uint64_t theta = angle_q32(u);
  const uint64_t x2 = mul_q32(theta, theta);
  uint64_t t = one_q32;
  for (uint64_t k : {110, 72, 42, 20, 6}) t = step(x2, t, k);  // 2i (2i + 1) for i = 5 .. 1
  return mul_q32(theta, t);
}

// Q32 to Q30, rounded half up (exact symmetry: the sign is applied afterwards).
int64_t to_q30(uint64_t v) { return static_cast<int64_t>((v + 2) >> 2); }

// cos and sin of the angle u of a quadrant, u in [0, 2^30]: past the octant, cos u = sin(2^30 - u).
int64_t quadrant_cos(uint32_t u) { return to_q30(u <= eighth ? cos_q32(u) : sin_q32(quarter - u)); }
int64_t quadrant_sin(uint32_t u) { return to_q30(u <= eighth ? sin_q32(u) : cos_q32(quarter - u)); }

}  // namespace

int64_t fixed_cos(uint32_t phase) noexcept {
  const uint32_t u = phase & (quarter - 1);
  switch (phase >> 30) {
    case 0: return quadrant_cos(u);
    case 1: return -quadrant_sin(u);
    case 2: return -quadrant_cos(u);
    default: return quadrant_sin(u);
  }
}

int64_t fixed_sin(uint32_t phase) noexcept { return fixed_cos(phase - quarter); }

uint32_t turn_phase(uint64_t m, int64_t x, unsigned frac_bits) noexcept {
  const uint64_t mask = frac_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << frac_bits) - 1;
  const uint64_t residue = (m * static_cast<uint64_t>(x)) & mask;  // m x mod 2^f
  if (frac_bits <= 32) return static_cast<uint32_t>(residue << (32 - frac_bits));
  const unsigned drop = frac_bits - 32;
  return static_cast<uint32_t>((residue + (uint64_t{1} << (drop - 1))) >> drop);  // 2^32 wraps to 0
}

int64_t basis_feature(uint32_t j, int64_t x, unsigned frac_bits) noexcept {
  const int64_t top = int64_t{1} << frac_bits;
  const int64_t clamped = x < 0 ? 0 : x > top ? top : x;
  const uint32_t phase = turn_phase(uint64_t{j / 2} + 1, clamped, frac_bits);
  return j % 2 == 0 ? fixed_cos(phase) : fixed_sin(phase);
}

}  // namespace ldp::wire
