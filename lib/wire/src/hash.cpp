#include "ldp/wire/hash.h"

#include "ldp/base/bits.h"
#include "ldp/wire/checksum.h"

namespace ldp::wire {
namespace {

constexpr unsigned char report_key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 'o',
                                          'l', 'h', ' ', 'h', 'a', 's', 'h', '1'};

// Two PRF outputs: message = context bytes, then 0 (for a) or 1 (for b).
hash_key expand(const unsigned char key[16], const unsigned char* context, std::size_t size) {
  unsigned char message[32];
  for (std::size_t i = 0; i < size; ++i) message[i] = context[i];
  message[size] = 0;
  const uint64_t a = siphash24(key, span<const unsigned char>(message, size + 1));
  message[size] = 1;
  const uint64_t b = siphash24(key, span<const unsigned char>(message, size + 1));
  return {a, b};
}

}  // namespace

hash_key report_hash_key(uint64_t seed) noexcept {
  unsigned char context[8];
  store_le64(context, seed);
  return expand(report_key, context, sizeof context);
}

sketch_hash::sketch_hash(const unsigned char hash_seed[seed_size]) noexcept {
  for (int i = 0; i < 16; ++i) {
    key_[i] = hash_seed[i];
    prefix_[i] = hash_seed[16 + i];
  }
}

uint32_t sketch_hash::operator()(uint32_t row, uint32_t value, uint32_t m) const noexcept {
  unsigned char message[24];
  for (int i = 0; i < 16; ++i) message[i] = prefix_[i];
  store_le32(message + 16, row);
  store_le32(message + 20, value);
  const uint64_t h = siphash24(key_, span<const unsigned char>(message, sizeof message)) >> 32;
  return static_cast<uint32_t>((h * m) >> 32);
}

flh_key flh_function(const unsigned char hash_seed[seed_size], uint32_t j) noexcept {
  unsigned char message[21];
  for (int i = 0; i < 16; ++i) message[i] = hash_seed[16 + i];
  store_le32(message + 16, j);
  uint64_t coefficient[3];
  for (unsigned char i = 0; i < 3; ++i) {
    message[20] = i;
    coefficient[i] = siphash24(hash_seed, span<const unsigned char>(message, sizeof message)) % flh_prime;
  }
  return {coefficient[0], coefficient[1], coefficient[2]};
}

}  // namespace ldp::wire
