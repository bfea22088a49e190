// The server's SIMD kernel table, chosen once from the CPU's features (docs/performance.md), and the
// int32 FWHT on it (kernel_access.cpp).
#ifndef LDP_SERVER_SRC_KERNEL_ACCESS_H
#define LDP_SERVER_SRC_KERNEL_ACCESS_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/kernels/kernel_table.h"

namespace ldp::server::detail {

// The kernel table for this CPU, kernels::select(platform::detect_cpu()), chosen on first use.
[[nodiscard]] const kernels::table& kernel_table() noexcept;

// Whether an FWHT of `size` (a power of two) entries whose absolute values sum to at most `bound`
// is exact in the table's int32 fwht_i32 (arithmetic mod 2^32): every stage's entries are bounded
// by that sum, so bound < 2^31 suffices; the kernel takes up to 2^30 entries.
[[nodiscard]] bool fwht_fits_i32(std::size_t size, uint64_t bound) noexcept;

// kernel_table().fwht_i32 on x (size a power of two, at most 2^30).
void fwht_i32(span<int32_t> x) noexcept;

}  // namespace ldp::server::detail

#endif
