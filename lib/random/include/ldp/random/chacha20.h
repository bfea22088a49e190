// ChaCha20 keystreams (RFC 8439, section 2.4 without the XOR), random access by block counter.
// Public randomness (rotation signs, hash keys, group assignment) is such a stream under a published
// seed, with a per-purpose nonce for domain separation (docs/mechanisms.md 0, "Randomness classes").
#ifndef LDP_RANDOM_CHACHA20_H
#define LDP_RANDOM_CHACHA20_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/kernels/kernel_table.h"

namespace ldp::random {

inline constexpr std::size_t chacha20_key_size = 32;
inline constexpr std::size_t chacha20_nonce_size = 12;
inline constexpr std::size_t chacha20_block_size = 64;

// Writes out.size() keystream bytes starting at block `first_block` (byte 64 * first_block of the
// stream). invalid_argument if the stream would pass block 2^32 - 1 (the counter never wraps).
[[nodiscard]] status chacha20_keystream(const kernels::table& k, const unsigned char key[chacha20_key_size],
                                        const unsigned char nonce[chacha20_nonce_size], uint32_t first_block,
                                        span<unsigned char> out) noexcept;

}  // namespace ldp::random

#endif
