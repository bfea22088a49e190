// Rotation signs from the public seed (docs/mechanisms.md B.4; docs/wire_format.md 3.5).
#include "ldp/random/rotation.h"

#include "ldp/base/bits.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/random/chacha20.h"

namespace ldp::random {

status rotation_signs(const unsigned char seed[32], uint32_t padded_dim, span<uint32_t> words) noexcept {
  if (padded_dim == 0 || (padded_dim & (padded_dim - 1)) != 0) return status::invalid_argument;
  const std::size_t count = rotation_sign_words(padded_dim);
  if (words.size() < count) return status::invalid_argument;
  // The keystream goes through a small stack buffer, read little-endian: the bytes, not the host's
  // word order, define the signs. Public randomness, so nothing needs wiping.
  constexpr std::size_t chunk_blocks = 4;
  constexpr std::size_t chunk_words = chunk_blocks * chacha20_block_size / 4;
  unsigned char buffer[chunk_blocks * chacha20_block_size];
  const kernels::table& k = kernels::native();
  for (std::size_t first = 0; first < count; first += chunk_words) {
    const std::size_t n = count - first < chunk_words ? count - first : chunk_words;
    const auto block = static_cast<uint32_t>(first / (chacha20_block_size / 4));
    const status s = chacha20_keystream(k, seed, rotation_nonce, block, span<unsigned char>(buffer, 4 * n));
    if (s != status::ok) return s;
    for (std::size_t j = 0; j < n; ++j) words[first + j] = load_le32(buffer + 4 * j);
  }
  if (padded_dim < 32) words[0] &= (uint32_t{1} << padded_dim) - 1;
  return status::ok;
}

}  // namespace ldp::random
