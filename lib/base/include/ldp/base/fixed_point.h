// Q-format fixed point (docs/mechanisms.md B.0): a real x is stored as the integer round(x * 2^F).
// Conversions state their rounding and saturate at the integer range; the caller learns of
// saturation through the returned status, so no value is clipped silently.
#ifndef LDP_BASE_FIXED_POINT_H
#define LDP_BASE_FIXED_POINT_H

#include <cstdint>

#include "ldp/base/status.h"

namespace ldp {

enum class rounding : uint8_t {
  nearest_even,  // round half to even: unbiased over many values, the default
  floor,         // toward minus infinity
  toward_zero,   // truncation
};

struct q_result {
  int64_t value;
  status code;  // ok; overflow when saturated; invalid_argument for NaN (value 0)
};

// x * 2^frac_bits rounded as asked, saturated to [min_value, max_value].
// frac_bits must lie in [0, 62]; other values give invalid_argument.
[[nodiscard]] q_result to_fixed(double x, int frac_bits, int64_t min_value, int64_t max_value,
                                rounding mode = rounding::nearest_even) noexcept;

// Convenience for the common int32 Q formats.
[[nodiscard]] inline q_result to_q32(double x, int frac_bits, rounding mode = rounding::nearest_even) noexcept {
  return to_fixed(x, frac_bits, INT32_MIN, INT32_MAX, mode);
}

// value / 2^frac_bits, exact whenever the result is representable as a double.
[[nodiscard]] double from_fixed(int64_t value, int frac_bits) noexcept;

// a + b saturated to the int64 range; *saturated (if given) is set when it happened.
[[nodiscard]] constexpr int64_t saturating_add(int64_t a, int64_t b, bool* saturated = nullptr) noexcept {
  const bool over = (b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b);
  if (saturated != nullptr) *saturated = over;
  if (!over) return a + b;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

}  // namespace ldp

#endif
