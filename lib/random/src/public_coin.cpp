// The public samples and the public partition (ldp/random/public_coin.h, docs/wire_format.md 3.12).
#include "ldp/random/public_coin.h"

#include "ldp/base/bits.h"
#include "ldp/base/siphash.h"
#include "ldp/random/samplers.h"

namespace ldp::random {
namespace {

constexpr unsigned char partition_nonce[chacha20_nonce_size] = {'l', 'd', 'p', ' ', 'p', 'a',
                                                                'r', 't', 'i', 't', 'i', 'o'};
constexpr int feistel_rounds = 6;

}  // namespace

public_stream::public_stream(const kernels::table& k, const unsigned char seed[chacha20_key_size], uint32_t user,
                             uint32_t string) noexcept
    : kernels_(&k), seed_(seed), nonce_{'l', 'd', 'p', 'y'}, block_{} {
  store_le32(nonce_ + 4, user);
  store_le32(nonce_ + 8, string);
}

uint32_t public_stream::next_u32() noexcept {
  if (used_ == chacha20_block_size) {
    // 2^32 blocks hold 2^36 words: a sampler never gets near (each rejection has probability < 1/2).
    (void)chacha20_keystream(*kernels_, seed_, nonce_, counter_++, span<unsigned char>(block_, chacha20_block_size));
    used_ = 0;
  }
  const uint32_t v = load_le32(block_ + used_);
  used_ += 4;
  return v;
}

int64_t public_sample(const kernels::table& k, const unsigned char seed[chacha20_key_size], uint64_t t_num,
                      uint64_t t_den, uint32_t user, uint32_t string) noexcept {
  public_stream stream(k, seed, user, string);
  return discrete_laplace(stream, t_num, t_den);
}

public_partition::public_partition(const kernels::table& k, const unsigned char seed[chacha20_key_size],
                                   uint32_t users) noexcept
    : users_(users == 0 ? 1 : users) {
  unsigned char block[chacha20_block_size];
  (void)chacha20_keystream(k, seed, partition_nonce, 0, span<unsigned char>(block, chacha20_block_size));
  for (std::size_t i = 0; i < sizeof key_; ++i) key_[i] = block[i];
  // The smallest h >= 1 with 4^h >= n, so the walk's domain holds fewer than 4 n values.
  while ((uint64_t{1} << (2 * half_bits_)) < users_) ++half_bits_;
}

uint64_t public_partition::permute(uint64_t x) const noexcept {
  const uint64_t mask = (uint64_t{1} << half_bits_) - 1;
  uint64_t left = x >> half_bits_, right = x & mask;
  for (int r = 0; r < feistel_rounds; ++r) {
    sip_state s = sip_state::keyed(key_);  // SipHash-2-4 of the 8 bytes le64(r 2^32 + right)
    s.absorb((uint64_t{static_cast<uint32_t>(r)} << 32) | right);
    s.absorb(uint64_t{8} << 56);
    const uint64_t mixed = left ^ (s.finish() & mask);
    left = right;
    right = mixed;
  }
  return (left << half_bits_) | right;
}

uint32_t public_partition::position(uint32_t user) const noexcept {
  // Cycle walking: the cycle of the permutation through user < n returns to [0, n), so this ends and
  // restricted to [0, n) it is a bijection (Black and Rogaway 2002).
  uint64_t x = user;
  do {
    x = permute(x);
  } while (x >= users_);
  return static_cast<uint32_t>(x);
}

}  // namespace ldp::random
