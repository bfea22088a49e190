#include "ldp/wire/det_math.h"

#include <cmath>
#include <limits>

namespace ldp::wire {
namespace {

// ln 2 split so that n * ln2_hi is exact for |n| < 2^11 (Cody-Waite reduction).
constexpr double ln2_hi = 0.693147180369123816490;     // 0x3fe62e42fee00000
constexpr double ln2_lo = 1.90821492927058770002e-10;  // ln 2 - ln2_hi
constexpr double sqrt_half = 0.70710678118654752440;

}  // namespace

double det_exp(double x) noexcept {
  if (x != x) return x;
  if (x > 709.0) return std::numeric_limits<double>::infinity();
  if (x < -745.0) return 0.0;
  // x = n ln2 + r with |r| <= ln2 / 2, then e^x = 2^n e^r.
  const double k = x * 1.4426950408889634074;
  const int n = static_cast<int>(k < 0 ? k - 0.5 : k + 0.5);
  const double r = (x - n * ln2_hi) - n * ln2_lo;
  // Taylor series of e^r, summed from the small terms up; 20 terms reach 1e-22 for |r| <= 0.35.
  double sum = 1.0;
  for (int i = 20; i >= 1; --i) sum = 1.0 + sum * r / i;
  return std::ldexp(sum, n);
}

double det_log(double x) noexcept {
  if (x != x || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (x == std::numeric_limits<double>::infinity()) return x;
  // x = m 2^e with m in [sqrt(1/2), sqrt(2)); frexp and ldexp are exact.
  int e = 0;
  double m = std::frexp(x, &e);  // m in [0.5, 1)
  if (m < sqrt_half) {
    m *= 2;
    --e;
  }
  // ln m = 2 atanh(s), s = (m - 1)/(m + 1), |s| <= 0.1716: the odd series converges fast.
  const double s = (m - 1) / (m + 1), s2 = s * s;
  double series = 0;
  for (int i = 31; i >= 1; i -= 2) series = 1.0 / i + s2 * series;
  return (e * ln2_lo + 2 * s * series) + e * ln2_hi;
}

}  // namespace ldp::wire
