// Bulk exact Bernoulli bits: fills a k-bit mask with independent Bernoulli(threshold / 2^bits) bits
// (docs/mechanisms.md A.3 and D.1; docs/performance.md 4) using the kernel table of the generator. Bits are
// packed little-endian by position: bit j is bit j % 64 of out[j / 64]; bits past nbits in the last
// word are zero. The running time depends on the random words and the threshold only, never on
// data, as long as every lane shares one threshold (unary encodings overwrite the true position
// afterwards).
#ifndef LDP_RANDOM_BERNOULLI_MASK_H
#define LDP_RANDOM_BERNOULLI_MASK_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"

namespace ldp::random {

// invalid_argument unless 1 <= bits <= 32 and threshold <= 2^bits; buffer_too_small unless out
// holds ceil(nbits / 64) words. Reads the generator's buffer in place: no stack buffer.
[[nodiscard]] status fill_bernoulli_mask(drbg& rng, span<uint64_t> out, std::size_t nbits, uint64_t threshold,
                                         unsigned bits = 32) noexcept;

}  // namespace ldp::random

#endif
