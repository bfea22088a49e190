// The exact sums of int64 values of the mean and vector-mean families as ldp::i128 (portable: no
// __int128), and their saved form: 16 bytes, the low then the high limb, little-endian. With at most
// 2^62 reports (detail::max_reports) of any int64 a sum stays within 2^125, so adding never
// overflows; a saved sum is checked against what n int64 values can reach before it is trusted.
#ifndef LDP_SERVER_SRC_WIDE_SUM_H
#define LDP_SERVER_SRC_WIDE_SUM_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ldp/base/bits.h"
#include "ldp/base/int128.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"

namespace ldp::server::detail {

inline constexpr std::size_t wide_sum_bytes = 16;

// Whether n int64 values can sum to this: -n 2^63 <= sum <= n (2^63 - 1).
inline bool reachable(i128 sum, uint64_t n) noexcept {
  const u128 low_bound{n >> 1, (n & 1) << 63};     // n 2^63
  const u128 high_bound = low_bound - u128{0, n};  // n 2^63 - n
  return !((is_negative(sum) ? low_bound : high_bound) < magnitude(sum));
}

inline void put_wide_sum(std::vector<unsigned char>& out, i128 sum) {
  unsigned char b[wide_sum_bytes];
  store_le64(b, sum.lo);
  store_le64(b + 8, sum.hi);
  out.insert(out.end(), b, b + wide_sum_bytes);
}

inline i128 load_wide_sum(const unsigned char* in) noexcept { return {load_le64(in + 8), load_le64(in)}; }

// A state body of sums.size() wide sums, in order.
inline void put_wide_sums(std::vector<unsigned char>& out, const std::vector<i128>& sums) {
  out.reserve(out.size() + sums.size() * wide_sum_bytes);
  for (const i128& s : sums) put_wide_sum(out, s);
}

// Reads a body of sums.size() wide sums into sums: wrong_length for another length, malformed_report
// when fits(sum) is false for one of them (sums is then partly overwritten; the caller discards it).
template <class Fits>
status load_wide_sums(span<const unsigned char> body, std::vector<i128>& sums, Fits fits) {
  if (body.size() != sums.size() * wide_sum_bytes) return status::wrong_length;
  for (std::size_t j = 0; j < sums.size(); ++j) {
    sums[j] = load_wide_sum(body.data() + j * wide_sum_bytes);
    if (!fits(sums[j])) return status::malformed_report;
  }
  return status::ok;
}

}  // namespace ldp::server::detail

#endif
