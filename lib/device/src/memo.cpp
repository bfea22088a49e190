#include "ldp/device/memo.h"

#include "ldp/base/bits.h"
#include "ldp/base/span.h"
#include "ldp/random/chacha20.h"

namespace ldp::device {

namespace {

// The first 32 bytes of one ChaCha20 block; the block counter never passes 2^32 - 1 here, so the
// keystream call cannot fail.
void first_half_block(const kernels::table& k, const unsigned char key[random::chacha20_key_size],
                      const unsigned char nonce[random::chacha20_nonce_size], uint32_t block,
                      unsigned char out[random::drbg::seed_size]) noexcept {
  unsigned char buffer[random::chacha20_block_size];
  const status s = random::chacha20_keystream(k, key, nonce, block, span<unsigned char>(buffer, sizeof buffer));
  (void)s;  // only a counter past 2^32 - 1 fails, and one block at `block` <= 2^32 - 1 never does
  for (std::size_t i = 0; i < random::drbg::seed_size; ++i) out[i] = buffer[i];
  secure_zero(buffer, sizeof buffer);
}

}  // namespace

void memo_seed(const kernels::table& k, const unsigned char secret[device_secret_size], memo_scope scope,
               memo_purpose purpose, uint32_t input, unsigned char out[random::drbg::seed_size]) noexcept {
  unsigned char scope_nonce[random::chacha20_nonce_size];
  store_le64(scope_nonce, scope.fingerprint);
  store_le32(scope_nonce + 8, scope.use_case);
  unsigned char subkey[random::chacha20_key_size];
  first_half_block(k, secret, scope_nonce, static_cast<uint32_t>(purpose), subkey);
  static constexpr unsigned char memo_nonce[random::chacha20_nonce_size] = {'l', 'd', 'p', ' ', 'm', 'e',
                                                                            'm', 'o', ' ', 'v', '1', 0};
  first_half_block(k, subkey, memo_nonce, input, out);
  secure_zero(subkey, sizeof subkey);
}

}  // namespace ldp::device
