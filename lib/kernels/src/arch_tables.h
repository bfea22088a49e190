// Entry points and tables of the SIMD translation units (arch_<name>.cpp). Which of them exist is
// decided by CMake, which defines LDP_KERNELS_HAVE_<NAME> for each compiled unit.
#ifndef LDP_KERNELS_SRC_ARCH_TABLES_H
#define LDP_KERNELS_SRC_ARCH_TABLES_H

#include "ldp/kernels/kernel_table.h"

#define LDP_KERNELS_DECLARE(ID)                                                                                   \
  void chacha20_blocks_##ID(const uint32_t key[8], const uint32_t nonce[3], uint32_t counter, unsigned char* out, \
                            std::size_t nblocks) noexcept;                                                        \
  std::size_t bernoulli_chunks_##ID(uint64_t* out, std::size_t nchunks, uint64_t threshold, unsigned bits,        \
                                    const unsigned char* rnd, std::size_t rnd_words,                              \
                                    std::size_t* words_used) noexcept;                                            \
  void fwht_i32_##ID(int32_t* data, unsigned log2n) noexcept;                                                     \
  void fwht_f32_##ID(float* data, unsigned log2n) noexcept;                                                       \
  void rotate_i32_##ID(int32_t* data, const uint32_t* sign_words, unsigned log2n) noexcept;                       \
  void rotate_f32_##ID(float* data, const uint32_t* sign_words, unsigned log2n) noexcept;                         \
  void column_popcount_##ID(const unsigned char* reports, std::size_t n_reports, std::size_t stride,              \
                            std::size_t nbits, uint64_t* counts) noexcept;                                        \
  void olh_support_##ID(const uint64_t* a, const uint64_t* b, const uint32_t* bucket, std::size_t n_reports,      \
                        uint32_t g, const uint32_t* items, std::size_t n_items, uint64_t* support) noexcept;      \
  void sip_pairs_##ID(const uint64_t start[4], const uint64_t* seeds, std::size_t n, uint64_t* a,                 \
                      uint64_t* b) noexcept;                                                                      \
  extern const table ID##_table;

namespace ldp::kernels::detail {
uint32_t crc32c_sse42(uint32_t crc, const unsigned char* bytes, std::size_t size) noexcept;
uint32_t crc32c_vpclmul(uint32_t crc, const unsigned char* bytes, std::size_t size) noexcept;
LDP_KERNELS_DECLARE(sse2)
LDP_KERNELS_DECLARE(avx2)
LDP_KERNELS_DECLARE(avx512)
LDP_KERNELS_DECLARE(neon)
LDP_KERNELS_DECLARE(neon64)
}  // namespace ldp::kernels::detail

#undef LDP_KERNELS_DECLARE

#endif
