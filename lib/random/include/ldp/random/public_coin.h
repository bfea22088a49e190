// The public randomness of the public-coin learners (docs/mechanisms.md H.2, H.3; docs/wire_format.md
// 3.12), a function of the block's 32-byte hash_seed and the user index alone, so a device computes
// its own share in O(1) without heap and the server recomputes any user's:
// - the public samples y_{i,t}: discrete Laplace (B.1's exact sampler) read from the ChaCha20
//   keystream with key = the seed and nonce = "ldpy" || le32(i) || le32(t), block counter 0, 1, ...;
// - the partition of the n users into groups: a keyed bijection pi of [0, n) (a 6-round balanced
//   Feistel network on 2h bits, 4^h >= n, round function SipHash-2-4 under a key read from the
//   keystream with nonce "ldp partitio", and cycle walking back into [0, n)), and user i's group is
//   pi(i) mod G. Since pi is a bijection, group l holds floor(n / G) or floor(n / G) + 1 users.
#ifndef LDP_RANDOM_PUBLIC_COIN_H
#define LDP_RANDOM_PUBLIC_COIN_H

#include <cstddef>
#include <cstdint>

#include "ldp/kernels/kernel_table.h"
#include "ldp/random/chacha20.h"

namespace ldp::random {

// The keystream of one public sample as a generator (next_u32, next_u64) for samplers.h.
class public_stream {
 public:
  public_stream(const kernels::table& k, const unsigned char seed[chacha20_key_size], uint32_t user,
                uint32_t string) noexcept;
  uint32_t next_u32() noexcept;
  uint64_t next_u64() noexcept {
    const uint64_t lo = next_u32();
    return lo | (uint64_t{next_u32()} << 32);
  }

 private:
  const kernels::table* kernels_;
  const unsigned char* seed_;
  unsigned char nonce_[chacha20_nonce_size];
  unsigned char block_[chacha20_block_size];
  uint32_t counter_ = 0;
  std::size_t used_ = chacha20_block_size;
};

// y_{user, string}: discrete Laplace of scale t_num / t_den grid units (t_num, t_den >= 1).
[[nodiscard]] int64_t public_sample(const kernels::table& k, const unsigned char seed[chacha20_key_size],
                                    uint64_t t_num, uint64_t t_den, uint32_t user, uint32_t string) noexcept;

// The keyed bijection pi of [0, n), n >= 1. Holds 16 bytes of key; O(1) expected per position
// (the walk leaves [0, n) with probability below 3/4 per step).
class public_partition {
 public:
  public_partition() noexcept = default;  // the identity of [0, 1)
  public_partition(const kernels::table& k, const unsigned char seed[chacha20_key_size], uint32_t users) noexcept;
  [[nodiscard]] uint32_t position(uint32_t user) const noexcept;
  // pi(user) mod groups (groups >= 1).
  [[nodiscard]] uint32_t group(uint32_t user, uint32_t groups) const noexcept { return position(user) % groups; }

 private:
  [[nodiscard]] uint64_t permute(uint64_t x) const noexcept;
  unsigned char key_[16] = {};
  uint32_t users_ = 1;
  unsigned half_bits_ = 1;  // h
};

}  // namespace ldp::random

#endif
