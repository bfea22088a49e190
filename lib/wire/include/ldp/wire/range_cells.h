// Cells that split a block's value range evenly in fixed point, so device and server agree on the
// cell of every grid point: the kent-vote's cells (docs/mechanisms.md C.1) and the distribution
// family's buckets (G.0). The block holds domain = N cells and the range [clip_lo, clip_hi].
//
// With W = hi - lo, cell k holds the grid points x with k W <= (x - lo) N < (k + 1) W, the last cell
// also holds hi; its ends are edge(k) = lo + ceil(k W / N) and edge(k + 1) (exclusive, but for the
// last cell). As real intervals the cells are [lo + k W / N, lo + (k + 1) W / N), all of width W / N.
#ifndef LDP_WIRE_RANGE_CELLS_H
#define LDP_WIRE_RANGE_CELLS_H

#include <cstdint>

#include "ldp/wire/params.h"

namespace ldp::wire {

// The cell of a fixed-point value, which is clamped to [clip_lo, clip_hi] first.
[[nodiscard]] uint32_t range_cell(const params& p, int64_t x) noexcept;

// edge(k) = clip_lo + ceil(k W / N) for k <= N: the first grid point of cell k; edge(N) = clip_hi.
[[nodiscard]] int64_t range_cell_edge(const params& p, uint64_t k) noexcept;

}  // namespace ldp::wire

#endif
