#include "ldp/random/drbg.h"

#include <cstring>

#include "ldp/base/bits.h"

namespace ldp::random {
namespace {

constexpr uint32_t zero_nonce[3] = {0, 0, 0};

void load_key(const unsigned char key[drbg::seed_size], uint32_t words[8]) noexcept {
  for (int i = 0; i < 8; ++i) words[i] = load_le32(key + 4 * i);
}

}  // namespace

drbg::drbg(const unsigned char seed[seed_size], const kernels::table& k) noexcept
    : kernels_(&k) {
  std::memcpy(key_, seed, seed_size);
}

status drbg::from_entropy(entropy_fn source, void* context, drbg* out,
                          const kernels::table& k) noexcept {
  unsigned char seed[seed_size];
  if (source == nullptr || source(context, seed, seed_size) != status::ok) {
    secure_zero(seed, seed_size);
    return status::entropy_failure;
  }
  out->kernels_ = &k;
  std::memcpy(out->key_, seed, seed_size);
  secure_zero(out->buffer_, sizeof(out->buffer_));
  out->position_ = sizeof(out->buffer_);
  secure_zero(seed, seed_size);
  return status::ok;
}

drbg::~drbg() {
  secure_zero(key_, sizeof key_);
  secure_zero(buffer_, sizeof buffer_);
}

void drbg::refill() noexcept {
  unsigned char block[refill_blocks * 64];
  uint32_t key_words[8];
  load_key(key_, key_words);
  kernels_->chacha20_blocks(key_words, zero_nonce, 0, block, refill_blocks);
  std::memcpy(key_, block, seed_size);
  std::memcpy(buffer_, block + seed_size, sizeof buffer_);
  position_ = 0;
  secure_zero(block, sizeof block);
  secure_zero(key_words, sizeof key_words);
}

void drbg::fill(unsigned char* out, std::size_t size) noexcept {
  const std::size_t buffered = sizeof(buffer_) - position_;
  const std::size_t first = size < buffered ? size : buffered;
  std::memcpy(out, buffer_ + position_, first);
  std::memset(buffer_ + position_, 0, first);
  position_ += first;
  out += first;
  size -= first;
  // Large requests bypass the buffer: block 0 under the current key becomes the next key and
  // blocks 1, 2, ... go straight to the caller (at most 2^20 blocks per key).
  constexpr std::size_t max_blocks = std::size_t{1} << 20;
  while (size >= sizeof(buffer_)) {
    std::size_t blocks = size / 64;
    if (blocks > max_blocks) blocks = max_blocks;
    uint32_t key_words[8];
    load_key(key_, key_words);
    unsigned char next[64];
    kernels_->chacha20_blocks(key_words, zero_nonce, 0, next, 1);
    kernels_->chacha20_blocks(key_words, zero_nonce, 1, out, blocks);
    std::memcpy(key_, next, seed_size);
    secure_zero(next, sizeof next);
    secure_zero(key_words, sizeof key_words);
    out += 64 * blocks;
    size -= 64 * blocks;
  }
  if (size != 0) {
    refill();
    std::memcpy(out, buffer_, size);
    std::memset(buffer_, 0, size);
    position_ = size;
  }
}

// Word draws read straight from the buffer; a member store is never dead, so a plain memset wipes.
uint32_t drbg::next_u32() noexcept {
  if (sizeof(buffer_) - position_ < 4) refill();
  const uint32_t v = load_le32(buffer_ + position_);
  std::memset(buffer_ + position_, 0, 4);
  position_ += 4;
  return v;
}

uint64_t drbg::next_u64() noexcept {
  if (sizeof(buffer_) - position_ < 8) refill();
  const uint64_t v = load_le64(buffer_ + position_);
  std::memset(buffer_ + position_, 0, 8);
  position_ += 8;
  return v;
}

}  // namespace ldp::random
