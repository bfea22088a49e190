#include "ldp/base/fixed_point.h"

#include <cmath>

namespace ldp {

q_result to_fixed(double x, int frac_bits, int64_t min_value, int64_t max_value, rounding mode) noexcept {
  if (std::isnan(x) || frac_bits < 0 || frac_bits > 62 || min_value > max_value) {
    return {0, status::invalid_argument};
  }
  // Scaling by a power of two is exact, so rounding happens once, below.
  const double scaled = std::ldexp(x, frac_bits);
  double r = 0.0;
  switch (mode) {
    case rounding::nearest_even: r = std::nearbyint(scaled); break;  // default FE_TONEAREST
    case rounding::floor: r = std::floor(scaled); break;
    case rounding::toward_zero: r = std::trunc(scaled); break;
  }
  // Compare in double before converting: out-of-range conversion to int64 is undefined.
  if (!(r >= static_cast<double>(min_value))) return {min_value, status::overflow};
  if (!(r <= static_cast<double>(max_value))) return {max_value, status::overflow};
  // Bounds near 2^63 are not exactly representable (INT64_MAX converts to 2^63): r = 2^63 passes
  // the test above but is out of range; below it the conversion is exact, then re-check.
  if (r >= 9223372036854775808.0) return {max_value, status::overflow};
  const int64_t v = static_cast<int64_t>(r);
  if (v < min_value) return {min_value, status::overflow};
  if (v > max_value) return {max_value, status::overflow};
  return {v, status::ok};
}

double from_fixed(int64_t value, int frac_bits) noexcept { return std::ldexp(static_cast<double>(value), -frac_bits); }

}  // namespace ldp
