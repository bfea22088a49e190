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

hash_key sketch_hash_key(const unsigned char hash_seed[seed_size], uint32_t row) noexcept {
  // Key: the seed's first 16 bytes; message: its last 16 bytes and the row number.
  unsigned char context[20];
  for (int i = 0; i < 16; ++i) context[i] = hash_seed[16 + i];
  store_le32(context + 16, row);
  return expand(hash_seed, context, sizeof context);
}

}  // namespace ldp::wire
