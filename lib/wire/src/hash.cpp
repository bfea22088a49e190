#include "ldp/wire/hash.h"

#include "ldp/base/bits.h"
#include "ldp/wire/checksum.h"
#include "siphash.h"

namespace ldp::wire {
namespace {

constexpr unsigned char report_key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 'o',
                                          'l', 'h', ' ', 'h', 'a', 's', 'h', '1'};

}  // namespace

// SipHash-2-4 under report_key of the 9 bytes (seed LE, 0) for a and (seed LE, 1) for b: both
// messages start with the same word, absorbed once (14 rounds for the pair instead of 16).
void report_hash_keys(const uint64_t* seeds, std::size_t n, uint64_t* a, uint64_t* b) noexcept {
  const sip_state start = sip_state::keyed(report_key);
  constexpr uint64_t length = uint64_t{9} << 56;  // the last word: the 9th byte, the length on top
  for (std::size_t i = 0; i < n; ++i) {
    sip_state s = start;
    s.absorb(seeds[i]);
    sip_state t = s;
    s.absorb(length | 0);
    t.absorb(length | 1);
    a[i] = s.finish();
    b[i] = t.finish();
  }
}

hash_key report_hash_key(uint64_t seed) noexcept {
  hash_key k{};
  report_hash_keys(&seed, 1, &k.a, &k.b);
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

}  // namespace ldp::wire
