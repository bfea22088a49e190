// The public sign vector D of the randomized Hadamard rotation (docs/mechanisms.md B.4 "Signs";
// docs/wire_format.md 3.5 "Rotation signs"), shared by devices and the server, and the padded
// dimension it acts on. The transform itself is the kernel table's rotate_i32 / rotate_f32.
#ifndef LDP_RANDOM_ROTATION_H
#define LDP_RANDOM_ROTATION_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/bits.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"

namespace ldp::random {

// The ChaCha20 nonce of the rotation-sign stream: the 12 ASCII bytes "ldp rotation".
inline constexpr unsigned char rotation_nonce[12] = {'l', 'd', 'p', ' ', 'r', 'o', 't', 'a', 't', 'i', 'o', 'n'};

// The padded dimension and its log2 (lib/base bits.h: the wire builders need them too).
using ldp::padded_dim;
using ldp::padded_log2;

// uint32_t words holding padded_dim sign bits: ceil(padded_dim / 32), at least 1.
inline constexpr std::size_t rotation_sign_words(uint32_t padded_dim) noexcept {
  return padded_dim <= 32 ? 1 : (std::size_t{padded_dim} + 31) / 32;
}

// Sign bit i (omega_i = -1 when set) for i < padded_dim is bit i of the ChaCha20 keystream (RFC
// 8439) with key `seed`, nonce rotation_nonce and block counter 0, 1, ...: word j of `words` is
// keystream bytes 4j .. 4j + 3 read little-endian, so bit i is bit i % 32 of word i / 32. The bits
// of the last word at positions >= padded_dim are 0. Writes rotation_sign_words(padded_dim) words
// (words past them are untouched). invalid_argument if padded_dim is 0 or not a power of two, or
// words is too small.
[[nodiscard]] status rotation_signs(const unsigned char seed[32], uint32_t padded_dim, span<uint32_t> words) noexcept;

}  // namespace ldp::random

#endif
