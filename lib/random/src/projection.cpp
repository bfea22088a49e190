// The public per-report projections (ldp/random/projection.h, docs/mechanisms.md B.8).
#include "ldp/random/projection.h"

#include <cstring>

#include "ldp/base/bits.h"

namespace ldp::random {
namespace {

// v, or -v when sign bit i of words is set: (v ^ m) - m with m all ones negates, without a branch.
int64_t apply_sign(span<const uint32_t> words, std::size_t i, int64_t v) noexcept {
  const int64_t m = -static_cast<int64_t>((words[i / 32] >> (i % 32)) & 1);
  return (v ^ m) - m;
}

// FastProjUnit's checks (n a power of two up to 2^30, k <= n) and its signs D for n.
status fast_signs(const unsigned char key[chacha20_key_size], std::size_t n, std::size_t k, span<uint32_t> signs) {
  if (n == 0 || (n & (n - 1)) != 0 || n > (std::size_t{1} << 30) || k > n) return status::invalid_argument;
  return rotation_signs(key, static_cast<uint32_t>(n), signs);
}

}  // namespace

void projection_key(uint64_t seed, unsigned char key[chacha20_key_size]) noexcept {
  std::memset(key, 0, chacha20_key_size);
  store_le64(key, seed);
}

status projection_row_signs(const kernels::table& k, const unsigned char key[chacha20_key_size], uint32_t d, uint32_t j,
                            span<uint32_t> words) noexcept {
  const std::size_t count = projection_row_words(d);
  const uint64_t first = uint64_t{j} * projection_row_blocks(d);
  if (words.size() < count || first + projection_row_blocks(d) > UINT32_MAX) return status::invalid_argument;
  // The keystream bytes land in the words themselves and are then read little-endian in place:
  // word w depends only on its own four bytes, so the conversion never reads a converted word.
  auto* bytes = reinterpret_cast<unsigned char*>(words.data());
  const status s =
      chacha20_keystream(k, key, projection_nonce, static_cast<uint32_t>(first), span<unsigned char>(bytes, 4 * count));
  if (s != status::ok) return s;
  for (std::size_t w = 0; w < count; ++w) words[w] = load_le32(bytes + 4 * w);
  return status::ok;
}

status rademacher_project(const kernels::table& k, const unsigned char key[chacha20_key_size], span<const int32_t> x,
                          span<uint32_t> row, span<int64_t> y) noexcept {
  const auto d = static_cast<uint32_t>(x.size());
  for (std::size_t j = 0; j < y.size(); ++j) {
    const status s = projection_row_signs(k, key, d, static_cast<uint32_t>(j), row);
    if (s != status::ok) return s;
    int64_t sum = 0;
    for (std::size_t i = 0; i < x.size(); ++i) sum += apply_sign(row, i, x[i]);
    y[j] = sum;
  }
  return status::ok;
}

status rademacher_transpose(const kernels::table& k, const unsigned char key[chacha20_key_size], span<const int64_t> q,
                            span<uint32_t> row, span<int64_t> out) noexcept {
  const auto d = static_cast<uint32_t>(out.size());
  for (int64_t& v : out) v = 0;
  for (std::size_t j = 0; j < q.size(); ++j) {
    const status s = projection_row_signs(k, key, d, static_cast<uint32_t>(j), row);
    if (s != status::ok) return s;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] += apply_sign(row, i, q[j]);
  }
  return status::ok;
}

status fast_project(const kernels::table& k, const unsigned char key[chacha20_key_size], span<int32_t> x,
                    span<uint32_t> signs, span<int64_t> y) noexcept {
  const status s = fast_signs(key, x.size(), y.size(), signs);
  if (s != status::ok) return s;
  const auto n = static_cast<uint32_t>(x.size());
  k.rotate_i32(x.data(), signs.data(), padded_log2(n));
  for_each_sampled_row(key, n, static_cast<uint32_t>(y.size()), [&](uint32_t j, uint32_t i) { y[j] = x[i]; });
  return status::ok;
}

status fast_transpose(const kernels::table& k, const unsigned char key[chacha20_key_size], span<const int64_t> q,
                      span<uint32_t> signs, span<int32_t> out) noexcept {
  const status s = fast_signs(key, out.size(), q.size(), signs);
  if (s != status::ok) return s;
  const auto n = static_cast<uint32_t>(out.size());
  for (int32_t& v : out) v = 0;
  // |q_j| < 2^31 (the caller's ||q||_1 bound), so the narrowing keeps the value.
  for_each_sampled_row(key, n, static_cast<uint32_t>(q.size()),
                       [&](uint32_t j, uint32_t i) { out[i] = static_cast<int32_t>(q[j]); });
  k.fwht_i32(out.data(), padded_log2(n));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int32_t>(apply_sign(signs, i, out[i]));
  return status::ok;
}

}  // namespace ldp::random
