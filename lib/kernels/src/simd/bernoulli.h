// Bernoulli chunks (kernel_table.h) from the DRBG's words.
#ifndef LDP_KERNELS_SRC_SIMD_BERNOULLI_H
#define LDP_KERNELS_SRC_SIMD_BERNOULLI_H

#include "common.h"

namespace ldp::kernels::detail {

// The lane-parallel Bernoulli of kernel_table.h, 256 lanes as 256 / (64 * batch size) registers.
// x & ~r is written out: xsimd 8.1's bitwise_andnot(a, b) is ~a & b on x86 but a & ~b on NEON.
struct bernoulli_chunks_kernel {
  template <class Arch>
  std::size_t operator()(Arch, uint64_t* out, std::size_t nchunks, uint64_t threshold, unsigned bits,
                         const unsigned char* rnd, std::size_t rnd_words, std::size_t* words_used) const noexcept;
};

template <class Arch>
std::size_t bernoulli_chunks_kernel::operator()(Arch, uint64_t* out, std::size_t nchunks, uint64_t threshold,
                                                unsigned bits, const unsigned char* rnd, std::size_t rnd_words,
                                                std::size_t* words_used) const noexcept {
  using v = u64x<Arch>;
  constexpr std::size_t regs = 4 / v::size;
  static_assert(regs >= 1 && regs * v::size == 4, "a chunk is 256 bits");
  const uint64_t one = uint64_t{1} << bits;
  if (threshold == 0 || threshold == one) {
    const uint64_t fill = threshold == 0 ? 0 : ~uint64_t{0};
    for (std::size_t i = 0; i < 4 * nchunks; ++i) out[i] = fill;
    *words_used = 0;
    return nchunks;
  }
  // Digits at and below the lowest set bit of the threshold are never read.
  int lowest = 0;
  while (((threshold >> lowest) & 1) == 0) ++lowest;
  std::size_t used = 0, done = 0;
  for (; done < nchunks && rnd_words - used >= bits; ++done, out += 4) {
    v undecided[regs], result[regs];
    for (std::size_t k = 0; k < regs; ++k) {
      undecided[k] = v(~uint64_t{0});
      result[k] = v(uint64_t{0});
    }
    for (int digit = static_cast<int>(bits) - 1; digit >= lowest; --digit) {
      // Byte loads: the words come from the DRBG buffer at any offset (see the ChaCha20 store).
      const unsigned char* word = rnd + bernoulli_word_bytes * used++;
      const auto load = [word](std::size_t k) {
        return xsimd::bitwise_cast<v>(xsimd::batch<uint8_t, Arch>::load_unaligned(word + 8 * k * v::size));
      };
      v any(uint64_t{0});
      if ((threshold >> digit) & 1) {
        for (std::size_t k = 0; k < regs; ++k) {
          const v r = load(k);
          result[k] |= undecided[k] & ~r;
          undecided[k] &= r;
          any |= undecided[k];
        }
      } else {
        for (std::size_t k = 0; k < regs; ++k) {
          const v r = load(k);
          undecided[k] &= ~r;
          any |= undecided[k];
        }
      }
      if (xsimd::none(any != v(uint64_t{0}))) break;
    }
    for (std::size_t k = 0; k < regs; ++k) result[k].store_unaligned(out + k * v::size);
  }
  *words_used = used;
  return done;
}

}  // namespace ldp::kernels::detail

#define LDP_KERNELS_DEFINE_BERNOULLI(ARCH, ID)                                                                       \
  template std::size_t ldp::kernels::detail::bernoulli_chunks_kernel::operator()<ARCH>(                              \
      ARCH, uint64_t*, std::size_t, uint64_t, unsigned, const unsigned char*, std::size_t, std::size_t*)             \
      const noexcept;                                                                                                \
  std::size_t ldp::kernels::detail::bernoulli_chunks_##ID(uint64_t* out, std::size_t nchunks, uint64_t threshold,    \
                                                          unsigned bits, const unsigned char* rnd,                   \
                                                          std::size_t rnd_words, std::size_t* words_used) noexcept { \
    return bernoulli_chunks_kernel{}(ARCH{}, out, nchunks, threshold, bits, rnd, rnd_words, words_used);             \
  }

#endif
