#include "ldp/random/chacha20.h"

#include "ldp/base/bits.h"

namespace ldp::random {

status chacha20_keystream(const kernels::table& k, const unsigned char key[chacha20_key_size],
                          const unsigned char nonce[chacha20_nonce_size], uint32_t first_block,
                          span<unsigned char> out) noexcept {
  const uint64_t blocks = (uint64_t{out.size()} + chacha20_block_size - 1) / chacha20_block_size;
  if (uint64_t{first_block} + blocks > (uint64_t{1} << 32)) return status::invalid_argument;
  uint32_t key_words[8], nonce_words[3];
  for (int i = 0; i < 8; ++i) key_words[i] = load_le32(key + 4 * i);
  for (int i = 0; i < 3; ++i) nonce_words[i] = load_le32(nonce + 4 * i);
  // Short requests run on the scalar table, where a wide one would compute a whole group and cut it
  // (the table's measured crossover, kernel_table.h).
  const std::size_t whole = out.size() / chacha20_block_size;
  kernels::chacha20_blocks_for(k, whole)(key_words, nonce_words, first_block, out.data(), whole);
  const std::size_t rest = out.size() - whole * chacha20_block_size;
  if (rest != 0) {
    unsigned char last[chacha20_block_size];
    kernels::chacha20_blocks_for(k, 1)(key_words, nonce_words, first_block + static_cast<uint32_t>(whole), last, 1);
    for (std::size_t i = 0; i < rest; ++i) out[whole * chacha20_block_size + i] = last[i];
    secure_zero(last, sizeof last);
  }
  secure_zero(key_words, sizeof key_words);
  return status::ok;
}

}  // namespace ldp::random
