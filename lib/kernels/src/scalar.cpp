// Scalar reference kernels (RFC 8439; docs/mechanisms.md D.1). Written for clarity and portability: these
// define the bytes every other table must reproduce, on every architecture and endianness.
#include "scalar.h"

#include <cstring>

#include "ldp/base/bits.h"
#include "ldp/base/siphash.h"

namespace ldp::kernels::detail {
namespace {

constexpr uint32_t sigma[4] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};

void quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) noexcept {
  a += b;
  d ^= a;
  d = rotl32(d, 16);
  c += d;
  b ^= c;
  b = rotl32(b, 12);
  a += b;
  d ^= a;
  d = rotl32(d, 8);
  c += d;
  b ^= c;
  b = rotl32(b, 7);
}

void chacha20_block(const uint32_t key[8], const uint32_t nonce[3], uint32_t counter, unsigned char out[64]) noexcept {
  uint32_t in[16] = {sigma[0], sigma[1], sigma[2], sigma[3], key[0],  key[1],   key[2],   key[3],
                     key[4],   key[5],   key[6],   key[7],   counter, nonce[0], nonce[1], nonce[2]};
  uint32_t x[16];
  for (int i = 0; i < 16; ++i) x[i] = in[i];
  for (int round = 0; round < 10; ++round) {
    quarter_round(x[0], x[4], x[8], x[12]);
    quarter_round(x[1], x[5], x[9], x[13]);
    quarter_round(x[2], x[6], x[10], x[14]);
    quarter_round(x[3], x[7], x[11], x[15]);
    quarter_round(x[0], x[5], x[10], x[15]);
    quarter_round(x[1], x[6], x[11], x[12]);
    quarter_round(x[2], x[7], x[8], x[13]);
    quarter_round(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; ++i) store_le32(out + 4 * i, x[i] + in[i]);
}

}  // namespace

void chacha20_blocks_scalar(const uint32_t key[8], const uint32_t nonce[3], uint32_t counter, unsigned char* out,
                            std::size_t nblocks) noexcept {
  for (std::size_t i = 0; i < nblocks; ++i) {
    chacha20_block(key, nonce, counter + static_cast<uint32_t>(i), out + 64 * i);
  }
}

std::size_t bernoulli_chunks_scalar(uint64_t* out, std::size_t nchunks, uint64_t threshold, unsigned bits,
                                    const unsigned char* rnd, std::size_t rnd_words, std::size_t* words_used) noexcept {
  constexpr int lanes_words = 4;
  std::size_t used = 0, done = 0;
  const uint64_t one = uint64_t{1} << bits;
  for (; done < nchunks; ++done, out += lanes_words) {
    if (threshold == 0 || threshold == one) {
      const uint64_t fill = threshold == 0 ? 0 : ~uint64_t{0};
      for (int k = 0; k < lanes_words; ++k) out[k] = fill;
      continue;
    }
    if (rnd_words - used < bits) break;
    uint64_t undecided[lanes_words] = {~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}};
    uint64_t result[lanes_words] = {0, 0, 0, 0};
    for (int digit = static_cast<int>(bits) - 1; digit >= 0; --digit) {
      // Lower digits of the threshold all zero: an undecided lane can no longer fall below it.
      if ((threshold & ((uint64_t{2} << digit) - 1)) == 0) break;
      const unsigned char* word = rnd + bernoulli_word_bytes * used++;
      const bool t = (threshold >> digit) & 1;
      uint64_t any = 0;
      for (int k = 0; k < lanes_words; ++k) {
        const uint64_t r = load_le64(word + 8 * k);
        if (t) {
          result[k] |= undecided[k] & ~r;  // digit 0 under a threshold digit 1: below, output 1
          undecided[k] &= r;
        } else {
          undecided[k] &= ~r;  // digit 1 over a threshold digit 0: above, output 0
        }
        any |= undecided[k];
      }
      if (any == 0) break;
    }
    for (int k = 0; k < lanes_words; ++k) out[k] = result[k];
  }
  *words_used = used;
  return done;
}

// The FWHT of kernel_table.h, radix-2 and one level per pass, for T = uint32_t (every butterfly
// wraps modulo 2^32) and T = float. The rotation's extras ride on the outermost levels, so no
// element is read or written an extra time: the signs of D are applied as level 0 loads its pair
// (the first level of the order every table follows), the scale as the last level stores it.
namespace {

// Bit i of the sign words (1: negate). The negations are branch free: the bits are random, so a
// branch would be mispredicted half the time.
uint32_t sign_bit(const uint32_t* words, std::size_t i) noexcept { return (words[i / 32] >> (i % 32)) & 1u; }

uint32_t apply_sign(uint32_t v, uint32_t bit) noexcept {
  const uint32_t m = 0u - bit;
  return (v ^ m) - m;
}

float apply_sign(float v, uint32_t bit) noexcept {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  b ^= bit << 31;  // -v exactly: the sign bit
  std::memcpy(&v, &b, sizeof v);
  return v;
}

template <class T>
void hadamard_scalar(T* x, unsigned log2n, const uint32_t* signs, const T* scale) noexcept {
  const std::size_t n = std::size_t{1} << log2n;
  if (n == 1) {
    if (signs != nullptr) x[0] = apply_sign(x[0], sign_bit(signs, 0));
    if (scale != nullptr) x[0] = x[0] * *scale;
    return;
  }
  std::size_t h = 1;
  if (signs != nullptr) {
    for (std::size_t j = 0; j < n; j += 2) {
      const T a = apply_sign(x[j], sign_bit(signs, j));
      const T b = apply_sign(x[j + 1], sign_bit(signs, j + 1));
      x[j] = a + b;
      x[j + 1] = a - b;
    }
    h = 2;
  }
  const std::size_t last = scale != nullptr ? n / 2 : n;  // the scaled level, if any, comes after
  for (; h < last; h <<= 1) {
    for (std::size_t i = 0; i < n; i += 2 * h) {
      for (std::size_t j = i; j < i + h; ++j) {
        const T a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
    }
  }
  if (scale != nullptr) {
    const T s = *scale;
    if (h == n / 2) {
      for (std::size_t j = 0; j < h; ++j) {
        const T a = x[j], b = x[j + h];
        x[j] = (a + b) * s;
        x[j + h] = (a - b) * s;
      }
    } else {  // n == 2: the signed level 0 was also the last one
      x[0] = x[0] * s;
      x[1] = x[1] * s;
    }
  }
}

}  // namespace

// Byte by byte; a report's last, partial byte contributes only its bits below nbits.
void column_popcount_scalar(const unsigned char* reports, std::size_t n_reports, std::size_t stride, std::size_t nbits,
                            uint64_t* counts) noexcept {
  const std::size_t whole = nbits / 8, rest = nbits % 8;
  for (std::size_t i = 0; i < n_reports; ++i) {
    const unsigned char* row = reports + i * stride;
    for (std::size_t byte = 0; byte < whole; ++byte) {
      const unsigned v = row[byte];
      if (v == 0) continue;
      uint64_t* c = counts + 8 * byte;
      for (unsigned b = 0; b < 8; ++b) c[b] += (v >> b) & 1u;
    }
    if (rest != 0) {
      const unsigned v = row[whole];
      uint64_t* c = counts + 8 * whole;
      for (unsigned b = 0; b < rest; ++b) c[b] += (v >> b) & 1u;
    }
  }
}

// Reports in the outer loop, as a server without the table would write it.
void olh_support_scalar(const uint64_t* a, const uint64_t* b, const uint32_t* bucket, std::size_t n_reports, uint32_t g,
                        const uint32_t* items, std::size_t n_items, uint64_t* support) noexcept {
  for (std::size_t u = 0; u < n_reports; ++u) {
    const uint64_t ka = a[u], kb = b[u];
    const uint32_t y = bucket[u];
    for (std::size_t i = 0; i < n_items; ++i) {
      const uint64_t h = (ka * items[i] + kb) >> 32;
      if (static_cast<uint32_t>((h * g) >> 32) == y) ++support[i];
    }
  }
}

void sip_pairs_scalar(const uint64_t start[4], const uint64_t* seeds, std::size_t n, uint64_t* a,
                      uint64_t* b) noexcept {
  sip_pairs<void>(start, seeds, n, a, b);  // built with the baseline flags, as wire's copy is
}

float rotation_scale(unsigned log2n) noexcept {
  // 2^-(log2n / 2) is a power of two, built from its bits; an odd log2n adds the float nearest
  // 1/sqrt(2). log2n <= 30 keeps the exponent far from subnormal.
  const uint32_t exponent_bits = (127u - log2n / 2) << 23;
  float power;
  std::memcpy(&power, &exponent_bits, sizeof power);
  return (log2n % 2 != 0 ? 0x1.6a09e6p-1f : 1.0f) * power;
}

void fwht_i32_scalar(int32_t* data, unsigned log2n) noexcept {
  // uint32_t has int32_t's object representation and may alias it.
  hadamard_scalar<uint32_t>(reinterpret_cast<uint32_t*>(data), log2n, nullptr, nullptr);
}

void fwht_f32_scalar(float* data, unsigned log2n) noexcept { hadamard_scalar<float>(data, log2n, nullptr, nullptr); }

void rotate_i32_scalar(int32_t* data, const uint32_t* sign_words, unsigned log2n) noexcept {
  hadamard_scalar<uint32_t>(reinterpret_cast<uint32_t*>(data), log2n, sign_words, nullptr);
}

void rotate_f32_scalar(float* data, const uint32_t* sign_words, unsigned log2n) noexcept {
  const float scale = rotation_scale(log2n);
  hadamard_scalar<float>(data, log2n, sign_words, &scale);
}

}  // namespace ldp::kernels::detail

namespace ldp::kernels {

const table& scalar() noexcept {
  static constexpr table t{arch::scalar,
                           "scalar",
                           detail::chacha20_blocks_scalar,
                           1,
                           detail::bernoulli_chunks_scalar,
                           detail::fwht_i32_scalar,
                           detail::column_popcount_scalar,
                           detail::olh_support_scalar,
                           detail::fwht_f32_scalar,
                           detail::rotate_i32_scalar,
                           detail::rotate_f32_scalar,
                           nullptr,
                           detail::sip_pairs_scalar};
  return t;
}

}  // namespace ldp::kernels
