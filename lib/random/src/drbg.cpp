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

drbg::drbg(const unsigned char seed[seed_size], const kernels::table& k) noexcept : kernels_(&k) {
  std::memcpy(key_, seed, seed_size);
}

status drbg::from_entropy(entropy_fn source, void* context, drbg* out, const kernels::table& k) noexcept {
  unsigned char seed[seed_size];
  if (source == nullptr || source(context, seed, seed_size) != status::ok) {
    secure_zero(seed, seed_size);
    return status::entropy_failure;
  }
  out->kernels_ = &k;
  std::memcpy(out->key_, seed, seed_size);
  secure_zero(out->buffer_, sizeof(out->buffer_));
  out->begin_ = out->end_ = 0;
  secure_zero(seed, seed_size);
  return status::ok;
}

drbg::~drbg() {
  secure_zero(key_, sizeof key_);
  secure_zero(buffer_, sizeof buffer_);
}

void drbg::next_unit(unsigned char* out) noexcept {
  uint32_t key_words[8];
  load_key(key_, key_words);
  // A unit is always unit_blocks blocks (the key must go at once), so this is the table's choice at that
  // size: the wide table wherever its crossover is at most a unit.
  kernels::chacha20_blocks_for(*kernels_, unit_blocks)(key_words, zero_nonce, 0, out, unit_blocks);
  secure_zero(key_words, sizeof key_words);
  std::memcpy(key_, out + unit_output, seed_size);
}

// Moves the unread bytes to the front and appends as many whole units as fit. Each unit is written
// where the previous one's key bytes were, so the output stays contiguous without copying it.
void drbg::top_up() noexcept {
  const std::size_t unread = end_ - begin_;
  std::memmove(buffer_, buffer_ + begin_, unread);
  begin_ = 0;
  end_ = unread;
  while (end_ + unit_blocks * 64 <= buffer_size) {
    next_unit(buffer_ + end_);
    end_ += unit_output;
  }
  std::memset(buffer_ + end_, 0, seed_size);  // the last key's bytes
}

void drbg::fill(unsigned char* out, std::size_t size) noexcept {
  if (size == 0) return;  // out may be null for an empty request (memcpy must not see it)
  const std::size_t buffered = end_ - begin_;
  const std::size_t first = size < buffered ? size : buffered;
  std::memcpy(out, buffer_ + begin_, first);
  consume(first);
  out += first;
  size -= first;
  // Large requests take whole units straight into the caller's memory. A unit's key bytes land at
  // the front of what is still to be written (at least 32 bytes remain), and are overwritten.
  while (size >= unit_blocks * 64) {
    next_unit(out);
    out += unit_output;
    size -= unit_output;
  }
  if (size != 0) {
    top_up();
    std::memcpy(out, buffer_ + begin_, size);
    consume(size);
  }
}

span<const unsigned char> drbg::peek(std::size_t min_bytes) noexcept {
  if (end_ - begin_ < min_bytes) top_up();
  return {buffer_ + begin_, end_ - begin_};
}

}  // namespace ldp::random
