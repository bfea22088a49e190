// The public per-report projections of ProjUnit and FastProjUnit (docs/mechanisms.md B.8,
// docs/wire_format.md 3.6 "Projection streams"), shared by devices and the server. Both are named by
// the report's 64-bit seed and computed with integer arithmetic only, so device and server agree bit
// for bit on every architecture and kernel table:
//   ProjUnit:     y = G x, G a k x d Rademacher matrix (entries +-1) from the seed; W = G / sqrt(k).
//   FastProjUnit: y = (H D x)_S, D the B.4 signs from the seed, H Sylvester's Hadamard matrix on
//                 d~ = padded_dim(d), S k distinct rows of [0, d~) from the seed; W = S H D / sqrt(k).
// Neither depends on x: the device draws the seed before it reads its input (B.8 "Privacy").
#ifndef LDP_RANDOM_PROJECTION_H
#define LDP_RANDOM_PROJECTION_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/random/chacha20.h"
#include "ldp/random/drbg.h"
#include "ldp/random/rotation.h"
#include "ldp/random/samplers.h"

namespace ldp::random {

// The ChaCha20 nonce of ProjUnit's matrix stream, "ldp projunit". FastProjUnit's signs are B.4's
// rotation_signs (nonce "ldp rotation") and its row sample the drbg (zero nonce), both under the same
// key, so the three streams are distinct.
inline constexpr unsigned char projection_nonce[12] = {'l', 'd', 'p', ' ', 'p', 'r', 'o', 'j', 'u', 'n', 'i', 't'};

// The ChaCha20 key (and drbg seed) of a report's projection: the 8 little-endian bytes of the seed,
// then 24 zero bytes.
void projection_key(uint64_t seed, unsigned char key[chacha20_key_size]) noexcept;

// uint32_t words of one row of G: ceil(d / 32). A row starts on a ChaCha20 block of its own:
// row j is keystream block j * projection_row_blocks(d) on, so rows are drawn in any order.
inline constexpr std::size_t projection_row_words(uint32_t d) noexcept { return (std::size_t{d} + 31) / 32; }
inline constexpr uint32_t projection_row_blocks(uint32_t d) noexcept { return (d + 511) / 512; }

// Row j of G into words (projection_row_words(d) of them): G_{j,i} = -1 when bit i % 32 of
// words[i / 32] is set, the keystream read little-endian (the last word's bits past d are unused).
// invalid_argument if words is too small or the counter would pass 2^32 - 1.
[[nodiscard]] status projection_row_signs(const kernels::table& k, const unsigned char key[chacha20_key_size],
                                          uint32_t d, uint32_t j, span<uint32_t> words) noexcept;

// y = G x for x of d = x.size() coordinates and k = y.size() rows, exactly: |y_j| <= ||x||_1 < 2^63. row is workspace of projection_row_words(d)
// words. invalid_argument as projection_row_signs.
[[nodiscard]] status rademacher_project(const kernels::table& k, const unsigned char key[chacha20_key_size],
                                        span<const int32_t> x, span<uint32_t> row, span<int64_t> y) noexcept;

// out = G^T q for q of k = q.size() values and out of d = out.size() coordinates, exactly
// (|out_i| <= ||q||_1). row as above.
[[nodiscard]] status rademacher_transpose(const kernels::table& k, const unsigned char key[chacha20_key_size],
                                          span<const int64_t> q, span<uint32_t> row, span<int64_t> out) noexcept;

// Calls visit(j, i) for the k rows i_0 < i_1 < ... < i_{k-1} of [0, n) that FastProjUnit samples,
// j = 0 .. k-1 in increasing order of i: selection sampling (Knuth, TAOCP vol. 2, 3.4.2 Algorithm S),
// row i taken with probability (k - taken) / (n - i) by one uniform_below on the drbg keyed by the
// projection key, so every k-subset is equally likely. Requires k <= n.
template <class Visit>
void for_each_sampled_row(const unsigned char key[chacha20_key_size], uint32_t n, uint32_t k, Visit&& visit) {
  drbg rows(key, kernels::scalar());
  uint32_t taken = 0;
  for (uint32_t i = 0; i < n && taken < k; ++i) {
    if (uniform_below(rows, n - i) < k - taken) visit(taken++, i);
  }
}

// FastProjUnit's y = (H D x)_S for x of d~ = x.size() (a power of two) int32 coordinates, zero-padded:
// x becomes H D x in place (k.rotate_i32, exact when ||x||_1 < 2^31: B.4 "Fixed point"), then y_j is
// its row i_j of for_each_sampled_row (k = y.size() <= d~). signs is workspace of
// rotation_sign_words(d~) words. invalid_argument for a bad size.
[[nodiscard]] status fast_project(const kernels::table& k, const unsigned char key[chacha20_key_size], span<int32_t> x,
                                  span<uint32_t> signs, span<int64_t> y) noexcept;

// out = D H S^T q for q of k values and out of d~ = out.size() >= k coordinates: q_j placed at row i_j,
// one fwht_i32 and the signs. Exact when ||q||_1 < 2^31 (every partial sum is then below 2^31).
[[nodiscard]] status fast_transpose(const kernels::table& k, const unsigned char key[chacha20_key_size],
                                    span<const int64_t> q, span<uint32_t> signs, span<int32_t> out) noexcept;

}  // namespace ldp::random

#endif
