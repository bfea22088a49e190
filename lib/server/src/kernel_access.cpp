// The server's kernel table (chosen once from the CPU's features) and the int32 FWHT on it.
#include "kernel_access.h"

#include "ldp/platform/cpu.h"

namespace ldp::server::detail {

const kernels::table& kernel_table() noexcept {
  static const kernels::table& table = kernels::select(platform::detect_cpu());
  return table;
}

bool fwht_fits_i32(std::size_t size, uint64_t bound) noexcept {
  return size <= (std::size_t{1} << 30) && bound < (uint64_t{1} << 31);
}

void fwht_i32(span<int32_t> x) noexcept {
  unsigned log2n = 0;
  while ((std::size_t{1} << log2n) < x.size()) ++log2n;
  kernel_table().fwht_i32(x.data(), log2n);
}

}  // namespace ldp::server::detail
