#include "ldp/wire/hash.h"

#include "ldp/base/bits.h"
#include "ldp/base/siphash.h"
#include "ldp/wire/checksum.h"

namespace ldp::wire {
namespace {

constexpr unsigned char report_key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 'o',
                                          'l', 'h', ' ', 'h', 'a', 's', 'h', '1'};

}  // namespace

void report_hash_start(uint64_t state[4]) noexcept {
  const sip_state s = sip_state::keyed(report_key);
  state[0] = s.v0;
  state[1] = s.v1;
  state[2] = s.v2;
  state[3] = s.v3;
}

hash_key report_hash_key(uint64_t seed) noexcept {
  uint64_t start[4];
  report_hash_start(start);
  hash_key k{};
  sip_pairs<void>(start, &seed, 1, &k.a, &k.b);
  return k;
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
