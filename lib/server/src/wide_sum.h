// An exact signed 128-bit sum of int64 values in two 64-bit limbs (portable: no __int128, which
// MSVC and 32-bit targets lack). With at most 2^62 reports (detail::max_reports) of any int64 the
// sum stays within 2^125, so adding never overflows; a saved sum is checked against what n int64
// values can reach before it is trusted.
#ifndef LDP_SERVER_SRC_WIDE_SUM_H
#define LDP_SERVER_SRC_WIDE_SUM_H

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/base/bits.h"

namespace ldp::server::detail {

struct wide_sum {
  uint64_t lo = 0;
  uint64_t hi = 0;  // two's complement over the 128 bits: value = hi * 2^64 + lo - [hi >= 2^63] 2^128

  static constexpr std::size_t bytes = 16;

  void add(int64_t v) noexcept {
    const uint64_t sum = lo + static_cast<uint64_t>(v);
    hi += (v < 0 ? ~uint64_t{0} : 0) + (sum < lo ? 1 : 0);
    lo = sum;
  }
  void add(const wide_sum& other) noexcept {
    const uint64_t sum = lo + other.lo;
    hi += other.hi + (sum < lo ? 1 : 0);
    lo = sum;
  }
  bool negative() const noexcept { return (hi >> 63) != 0; }
  // |value| as 128 bits (exact: the value is never -2^127 within the bounds above).
  wide_sum magnitude() const noexcept {
    if (!negative()) return *this;
    wide_sum m{~lo + 1, ~hi + (lo == 0 ? 1 : 0)};
    return m;
  }
  // The nearest-ish double (one rounding per limb, then one for the sum: relative error < 2^-51).
  double to_double() const noexcept {
    const wide_sum m = magnitude();
    const double v = std::ldexp(static_cast<double>(m.hi), 64) + static_cast<double>(m.lo);
    return negative() ? -v : v;
  }
  // Whether n int64 values can sum to this: -n 2^63 <= value <= n (2^63 - 1).
  bool reachable(uint64_t n) const noexcept {
    // n 2^63 in 128 bits, and n 2^63 - n for the positive side.
    const wide_sum low_bound{(n & 1) << 63, n >> 1};
    wide_sum high_bound = low_bound;
    high_bound.hi -= high_bound.lo < n ? 1 : 0;
    high_bound.lo -= n;
    const wide_sum m = magnitude();
    const wide_sum& bound = negative() ? low_bound : high_bound;
    return m.hi < bound.hi || (m.hi == bound.hi && m.lo <= bound.lo);
  }

  void write(std::vector<unsigned char>& out) const {
    unsigned char b[bytes];
    store_le64(b, lo);
    store_le64(b + 8, hi);
    out.insert(out.end(), b, b + bytes);
  }
  static wide_sum read(const unsigned char* in) noexcept { return {load_le64(in), load_le64(in + 8)}; }
};

}  // namespace ldp::server::detail

#endif
