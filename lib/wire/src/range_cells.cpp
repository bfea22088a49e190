#include "ldp/wire/range_cells.h"

#include "ldp/base/int128.h"

namespace ldp::wire {

uint32_t range_cell(const params& p, int64_t x) noexcept {
  const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
  const uint64_t cells = p.get(field::domain);
  if (x >= hi) return static_cast<uint32_t>(cells - 1);  // the last cell is closed
  const uint64_t offset = x <= lo ? 0 : static_cast<uint64_t>(x) - static_cast<uint64_t>(lo);
  const uint64_t width = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  uint64_t remainder = 0;
  // offset < width, so the quotient is below N.
  return static_cast<uint32_t>(div_rem(mul_64x64(offset, cells), width, &remainder));
}

int64_t range_cell_edge(const params& p, uint64_t k) noexcept {
  const uint64_t cells = p.get(field::domain);
  const uint64_t width =
      static_cast<uint64_t>(p.get_signed(field::clip_hi)) - static_cast<uint64_t>(p.get_signed(field::clip_lo));
  if (k >= cells) return p.get_signed(field::clip_hi);
  uint64_t remainder = 0;
  uint64_t step = div_rem(mul_64x64(k, width), cells, &remainder);  // k < N: quotient below W
  if (remainder != 0) ++step;
  return static_cast<int64_t>(static_cast<uint64_t>(p.get_signed(field::clip_lo)) + step);
}

}  // namespace ldp::wire
