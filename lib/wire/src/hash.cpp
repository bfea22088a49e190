#include "ldp/wire/hash.h"

#include "ldp/base/bits.h"
#include "ldp/base/siphash.h"
#include "ldp/wire/checksum.h"

namespace ldp::wire {
namespace {

constexpr unsigned char report_key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 'o',
                                          'l', 'h', ' ', 'h', 'a', 's', 'h', '1'};
constexpr unsigned char dbitflip_key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 'd',
                                            'b', 'i', 't', 'f', 'l', 'i', 'p', '1'};

// Uniform integers from SipHash words of (seed, counter), counter advancing per word.
class sip_uniforms {
 public:
  explicit sip_uniforms(uint64_t seed) noexcept { store_le64(message_, seed); }

  // Uniform in [0, n), n >= 1: Lemire's multiply-shift, rejecting the low words below 2^64 mod n.
  uint64_t below(uint64_t n) noexcept {
    const uint64_t reject = (0 - n) % n;
    for (;;) {
      store_le32(message_ + 8, counter_++);
      const u128 product = mul_64x64(siphash24(dbitflip_key, span<const unsigned char>(message_, sizeof message_)), n);
      if (product.lo >= reject) return product.hi;
    }
  }

 private:
  unsigned char message_[12] = {};
  uint32_t counter_ = 0;
};

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

void dbitflip_buckets(uint64_t seed, uint32_t k, uint32_t d, uint32_t* out) noexcept {
  sip_uniforms uniform(seed);
  uint32_t chosen = 0;
  for (uint32_t j = k - d; j < k; ++j) {
    const auto t = static_cast<uint32_t>(uniform.below(uint64_t{j} + 1));
    bool seen = false;
    for (uint32_t i = 0; i < chosen; ++i) seen = seen || out[i] == t;
    // Insertion into the sorted prefix; j exceeds every earlier choice, so it goes last.
    uint32_t value = seen ? j : t, at = chosen++;
    for (; at > 0 && out[at - 1] > value; --at) out[at] = out[at - 1];
    out[at] = value;
  }
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
