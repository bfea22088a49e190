// The exact integer Walsh-Hadamard transform of the HR, HCMS and vector decoders (docs/mechanisms.md A.5, A.6, B.4).
#ifndef LDP_SERVER_SRC_INTEGER_FWHT_H
#define LDP_SERVER_SRC_INTEGER_FWHT_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"

namespace ldp::server::detail {

// In-place fast Walsh-Hadamard transform in Sylvester (natural) order: x <- H x with
// H[r, y] = (-1)^popcount(r & y), over any exact integer type with + and - (int64_t, or the 128-bit
// sums of vector-laplace). n must be a power of two. Exact as long as every partial sum fits (for
// int64, |x| summed over all entries below 2^63, which max_reports guarantees here).
template <class Int>
void fwht(Int* x, std::size_t n) noexcept {
  for (std::size_t h = 1; h < n; h <<= 1) {
    for (std::size_t i = 0; i < n; i += 2 * h) {
      for (std::size_t j = i; j < i + h; ++j) {
        const Int a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
    }
  }
}
inline void fwht(span<int64_t> x) noexcept { fwht(x.data(), x.size()); }

}  // namespace ldp::server::detail

#endif
