// The scalar reference kernels, callable from the SIMD translation units for their tails. They are
// ordinary (non-inline) functions compiled without architecture flags, so no vector code can leak
// into callers that run on older CPUs.
#ifndef LDP_KERNELS_SRC_SCALAR_H
#define LDP_KERNELS_SRC_SCALAR_H

#include "ldp/kernels/kernel_table.h"

namespace ldp::kernels::detail {

void chacha20_blocks_scalar(const uint32_t key[8], const uint32_t nonce[3], uint32_t counter, unsigned char* out,
                            std::size_t nblocks) noexcept;

std::size_t bernoulli_chunks_scalar(uint64_t* out, std::size_t nchunks, uint64_t threshold, unsigned bits,
                                    const unsigned char* rnd, std::size_t rnd_words, std::size_t* words_used) noexcept;

void fwht_i32_scalar(int32_t* data, unsigned log2n) noexcept;
void fwht_f32_scalar(float* data, unsigned log2n) noexcept;
void rotate_i32_scalar(int32_t* data, const uint32_t* sign_words, unsigned log2n) noexcept;
void rotate_f32_scalar(float* data, const uint32_t* sign_words, unsigned log2n) noexcept;

// The scale factor of rotate_f32 (kernel_table.h): 2^(-log2n / 2), rounded to float for odd log2n.
float rotation_scale(unsigned log2n) noexcept;

void column_popcount_scalar(const unsigned char* reports, std::size_t n_reports, std::size_t stride, std::size_t nbits,
                            uint64_t* counts) noexcept;

void olh_support_scalar(const uint64_t* a, const uint64_t* b, const uint32_t* bucket, std::size_t n_reports, uint32_t g,
                        const uint32_t* items, std::size_t n_items, uint64_t* support) noexcept;

void sip_pairs_scalar(const uint64_t start[4], const uint64_t* seeds, std::size_t n, uint64_t* a, uint64_t* b) noexcept;

}  // namespace ldp::kernels::detail

#endif
