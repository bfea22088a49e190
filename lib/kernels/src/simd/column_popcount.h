// Column popcount (kernel_table.h; docs/performance.md 7): a carry-save positional population count.
//
// One register holds W bytes = 8W bit positions of a report. Per column register, the running
// count of every position is kept bit-sliced: 16 * ctr + 8 * eights + 4 * fours + 2 * twos + ones,
// where ones..eights are bit planes and ctr[b] holds, in byte c, the sixteens of position 8c + b.
// Sixteen reports are added with a Harley-Seal tree of 15 carry-save adders (5 logic operations
// each); its sixteens plane is spread into ctr[0..7] with a 16-bit shift and a 0x0101 mask per bit.
// ctr is flushed into the 64-bit counts at most every 255 groups, before a byte can wrap.
//
// Reports are taken in blocks of about 16 KiB, so a block read for the first column register is
// still in L1 for the others. A bit vector that is not a multiple of W bytes ends with a register
// that overlaps the one before it (it flushes only positions not yet counted); one shorter than W bytes,
// and the last partial group of 16 reports, are copied into a zero-padded buffer. Only the bytes
// [0, ceil(nbits / 8)) of a report are ever read.
#ifndef LDP_KERNELS_SRC_SIMD_COLUMN_POPCOUNT_H
#define LDP_KERNELS_SRC_SIMD_COLUMN_POPCOUNT_H

#include "common.h"

namespace ldp::kernels::detail {

template <class Arch>
using u8x = xsimd::batch<uint8_t, Arch>;
template <class Arch>
using u16x = xsimd::batch<uint16_t, Arch>;

template <class Arch>
struct popcount_state {
  u8x<Arch> ones, twos, fours, eights;
  u8x<Arch> ctr[8];
};

template <class Arch>
inline void popcount_clear(popcount_state<Arch>& s) noexcept {
  const u8x<Arch> zero(uint8_t{0});
  s.ones = s.twos = s.fours = s.eights = zero;
  for (int b = 0; b < 8; ++b) s.ctr[b] = zero;
}

// a + b + c = 2 * high + low, bitwise.
template <class Arch>
inline void popcount_csa(u8x<Arch>& high, u8x<Arch>& low, u8x<Arch> a, u8x<Arch> b, u8x<Arch> c) noexcept {
  const u8x<Arch> u = a ^ b;
  high = (a & b) | (u & c);
  low = u ^ c;
}

// Adds the 16 rows p, p + stride, ..., p + 15 * stride (W bytes each).
template <class Arch>
inline void popcount_add16(popcount_state<Arch>& s, const unsigned char* p, std::size_t stride) noexcept {
  using v = u8x<Arch>;
  using w = u16x<Arch>;
  const auto row = [p, stride](std::size_t k) { return v::load_unaligned(p + k * stride); };
  v twos_a, twos_b, fours_a, fours_b, eights_a, eights_b, sixteens;
  popcount_csa<Arch>(twos_a, s.ones, s.ones, row(0), row(1));
  popcount_csa<Arch>(twos_b, s.ones, s.ones, row(2), row(3));
  popcount_csa<Arch>(fours_a, s.twos, s.twos, twos_a, twos_b);
  popcount_csa<Arch>(twos_a, s.ones, s.ones, row(4), row(5));
  popcount_csa<Arch>(twos_b, s.ones, s.ones, row(6), row(7));
  popcount_csa<Arch>(fours_b, s.twos, s.twos, twos_a, twos_b);
  popcount_csa<Arch>(eights_a, s.fours, s.fours, fours_a, fours_b);
  popcount_csa<Arch>(twos_a, s.ones, s.ones, row(8), row(9));
  popcount_csa<Arch>(twos_b, s.ones, s.ones, row(10), row(11));
  popcount_csa<Arch>(fours_a, s.twos, s.twos, twos_a, twos_b);
  popcount_csa<Arch>(twos_a, s.ones, s.ones, row(12), row(13));
  popcount_csa<Arch>(twos_b, s.ones, s.ones, row(14), row(15));
  popcount_csa<Arch>(fours_b, s.twos, s.twos, twos_a, twos_b);
  popcount_csa<Arch>(eights_b, s.fours, s.fours, fours_a, fours_b);
  popcount_csa<Arch>(sixteens, s.eights, s.eights, eights_a, eights_b);
  // Byte c of ctr[b] += bit b of byte c of sixteens: shifting 16-bit lanes moves both bytes at
  // once, and the 0x0101 mask drops what crossed from the high byte into the low one.
  const w low_bits(uint16_t{0x0101});
  w t = xsimd::bitwise_cast<w>(sixteens);
  for (int b = 0; b < 8; ++b) {
    s.ctr[b] += xsimd::bitwise_cast<v>(t & low_bits);
    if (b < 7) t = t >> 1;
  }
}

// Transposes the 8 x 8 byte matrix whose row r is word r (byte i of a word is its i-th least
// significant): afterwards byte r of word i is the old byte i of word r. Three rounds of swaps of
// 1-, 2- and 4-byte blocks between word pairs. A template on Arch, as every function here, so that
// units built with different flags do not share one inline definition (docs/performance.md 9).
template <class Arch>
inline void transpose_8x8_bytes(uint64_t w[8]) noexcept {
  constexpr uint64_t masks[3] = {0x00FF00FF00FF00FFu, 0x0000FFFF0000FFFFu, 0x00000000FFFFFFFFu};
  for (unsigned round = 0; round < 3; ++round) {
    const unsigned step = 1u << round, shift = 8u * step;
    for (unsigned r = 0; r < 8; ++r) {
      if ((r & step) != 0) continue;
      const uint64_t t = ((w[r] >> shift) ^ w[r + step]) & masks[round];
      w[r + step] ^= t;
      w[r] ^= t << shift;
    }
  }
}

// Bit-sliced byte counters (plane[b] byte c counts position 8c + b) into position order:
// out[8c + b] = plane[b] byte c (x86 and ARM kernels are little-endian).
template <class Arch>
inline void popcount_positions(const u8x<Arch>* plane, uint8_t* out) noexcept {
  constexpr std::size_t width = u8x<Arch>::size;
  alignas(Arch::alignment()) uint8_t bytes[8][width];
  for (int b = 0; b < 8; ++b) plane[b].store_aligned(bytes[b]);
  for (std::size_t c = 0; c < width; c += 8) {
    uint64_t w[8];
    for (int b = 0; b < 8; ++b) std::memcpy(&w[b], bytes[b] + c, 8);
    transpose_8x8_bytes<Arch>(w);
    std::memcpy(out + 8 * c, w, sizeof w);
  }
}

// counts[8 * (off + c) + b] += 16 * ctr[b] byte c + units[b] byte c for positions in [first, nbits),
// then ctr = 0. A batch chunk of a few hundred reports is one call, which ends with this for every
// column register: the counters are put in position order first, so the additions run over
// contiguous memory (the compiler vectorizes them) rather than one position at a time (issue 19
// goal 7: the per-position loops took about 60 % of the kernel on OUE ingestion at d = 1024).
template <class Arch>
inline void popcount_flush(popcount_state<Arch>& s, const u8x<Arch>* units, std::size_t off, std::size_t first,
                           std::size_t nbits, uint64_t* counts) noexcept {
  constexpr std::size_t width = u8x<Arch>::size;
  uint8_t sixteens[8 * width];
  uint8_t ones[8 * width];
  popcount_positions<Arch>(s.ctr, sixteens);
  for (int b = 0; b < 8; ++b) s.ctr[b] = u8x<Arch>(uint8_t{0});
  if (units != nullptr) {
    popcount_positions<Arch>(units, ones);
  } else {
    std::memset(ones, 0, sizeof ones);
  }
  const std::size_t base = 8 * off;
  const std::size_t lo = first > base ? first - base : 0;
  const std::size_t hi = nbits - base < 8 * width ? nbits - base : 8 * width;
  uint64_t* out = counts + base;
  for (std::size_t pos = lo; pos < hi; ++pos) out[pos] += uint64_t{16} * sixteens[pos] + ones[pos];
}

// The last flush, with the four planes (at most 15 per position) spread by bit as the sixteens are.
template <class Arch>
inline void popcount_finish(popcount_state<Arch>& s, std::size_t off, std::size_t first, std::size_t nbits,
                            uint64_t* counts) noexcept {
  using v = u8x<Arch>;
  using w = u16x<Arch>;
  const w low_bits(uint16_t{0x0101});
  const v planes[4] = {s.ones, s.twos, s.fours, s.eights};
  v units[8];
  for (int b = 0; b < 8; ++b) units[b] = v(uint8_t{0});
  for (unsigned k = 0; k < 4; ++k) {
    w t = xsimd::bitwise_cast<w>(planes[k]);
    for (int b = 0; b < 8; ++b) {
      units[b] += xsimd::bitwise_cast<v>((t & low_bits) << k);  // plane k's bit b, times 2^k
      if (b < 7) t = t >> 1;
    }
  }
  popcount_flush<Arch>(s, units, off, first, nbits, counts);
}

struct column_popcount_kernel {
  template <class Arch>
  void operator()(Arch, const unsigned char* reports, std::size_t n_reports, std::size_t stride, std::size_t nbits,
                  uint64_t* counts) const noexcept;
};

template <class Arch>
void column_popcount_kernel::operator()(Arch, const unsigned char* reports, std::size_t n_reports, std::size_t stride,
                                        std::size_t nbits, uint64_t* counts) const noexcept {
  constexpr std::size_t width = u8x<Arch>::size;  // bytes per column register
  constexpr std::size_t max_groups = 255;         // flushes keep the byte counters below 256
  constexpr std::size_t super_regs = 16;          // column registers whose state is kept at once
  constexpr std::size_t block_bytes = 16384;      // report bytes per block (L1)
  if (n_reports == 0 || nbits == 0) return;
  const std::size_t nbytes = (nbits + 7) / 8;
  alignas(Arch::alignment()) unsigned char pad[16 * width];

  if (nbytes < width) {
    // Shorter than one register: every group goes through the zero-padded buffer.
    std::memset(pad, 0, sizeof pad);
    popcount_state<Arch> s;
    popcount_clear<Arch>(s);
    std::size_t pending = 0;
    for (std::size_t row = 0; row < n_reports; row += 16) {
      const std::size_t rows = n_reports - row < 16 ? n_reports - row : 16;
      for (std::size_t r = 0; r < rows; ++r) {
        std::memcpy(pad + r * width, reports + (row + r) * stride, nbytes);
      }
      for (std::size_t r = rows; r < 16; ++r) std::memset(pad + r * width, 0, nbytes);
      if (pending == max_groups) {
        popcount_flush<Arch>(s, nullptr, 0, 0, nbits, counts);
        pending = 0;
      }
      popcount_add16<Arch>(s, pad, width);
      ++pending;
    }
    popcount_finish<Arch>(s, 0, 0, nbits, counts);
    return;
  }

  // Column register q reads bytes [off, off + W), off = min(q * W, nbytes - W), and owns the
  // positions from 8 * q * W on.
  const std::size_t nregs = (nbytes + width - 1) / width;
  for (std::size_t q0 = 0; q0 < nregs; q0 += super_regs) {
    const std::size_t nq = nregs - q0 < super_regs ? nregs - q0 : super_regs;
    popcount_state<Arch> state[super_regs];
    std::size_t offs[super_regs];
    for (std::size_t q = 0; q < nq; ++q) {
      popcount_clear<Arch>(state[q]);
      const std::size_t off = (q0 + q) * width;
      offs[q] = off + width <= nbytes ? off : nbytes - width;
    }
    std::size_t block_groups = block_bytes / (16 * nq * width);
    if (block_groups == 0) block_groups = 1;
    const std::size_t block_rows = 16 * block_groups;
    std::size_t pending = 0;
    for (std::size_t row = 0; row < n_reports; row += block_rows) {
      const std::size_t rows = n_reports - row < block_rows ? n_reports - row : block_rows;
      const std::size_t full = rows / 16, part = rows % 16;
      const std::size_t groups = full + (part != 0 ? 1 : 0);
      if (pending + groups > max_groups) {
        for (std::size_t q = 0; q < nq; ++q) {
          popcount_flush<Arch>(state[q], nullptr, offs[q], 8 * (q0 + q) * width, nbits, counts);
        }
        pending = 0;
      }
      const unsigned char* block = reports + row * stride;
      for (std::size_t q = 0; q < nq; ++q) {
        popcount_state<Arch> s = state[q];
        const unsigned char* p = block + offs[q];
        for (std::size_t g = 0; g < full; ++g) popcount_add16<Arch>(s, p + 16 * g * stride, stride);
        if (part != 0) {
          const unsigned char* tail = p + 16 * full * stride;
          for (std::size_t r = 0; r < part; ++r) {
            std::memcpy(pad + r * width, tail + r * stride, width);
          }
          std::memset(pad + part * width, 0, (16 - part) * width);
          popcount_add16<Arch>(s, pad, width);
        }
        state[q] = s;
      }
      pending += groups;
    }
    for (std::size_t q = 0; q < nq; ++q) {
      popcount_finish<Arch>(state[q], offs[q], 8 * (q0 + q) * width, nbits, counts);
    }
  }
}

}  // namespace ldp::kernels::detail

#define LDP_KERNELS_DEFINE_COLUMN_POPCOUNT(ARCH, ID)                                                                  \
  template void ldp::kernels::detail::column_popcount_kernel::operator()<ARCH>(                                       \
      ARCH, const unsigned char*, std::size_t, std::size_t, std::size_t, uint64_t*) const noexcept;                   \
  void ldp::kernels::detail::column_popcount_##ID(const unsigned char* reports, std::size_t n_reports,                \
                                                  std::size_t stride, std::size_t nbits, uint64_t* counts) noexcept { \
    column_popcount_kernel{}(ARCH{}, reports, n_reports, stride, nbits, counts);                                      \
  }

#endif
