// The float32 Walsh-Hadamard transform, the randomized Hadamard rotation (int32 and float32) and its
// public sign vector (kernel_table.h; ldp/random/rotation.h; docs/mechanisms.md B.4 "Tests"): each
// against the dense definition, the algebraic identities (H H = d I, U orthogonal, the exact
// integer inverse, padding), and every compiled table against the scalar reference bit for bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ldp/random/chacha20.h"
#include "ldp/random/rotation.h"
#include "tables.h"

namespace {

using ldp::random::padded_dim;
using ldp::random::rotation_sign_words;
using ldp::random::rotation_signs;

// Random floats with a 24-bit mantissa, an exponent in [-8, 8] and a random sign: every butterfly
// rounds, and no sum comes near the subnormal range (where ARMv7 NEON flushes) or overflows.
std::vector<float> random_f32(ldp::random::drbg& rng, std::size_t n) {
  std::vector<float> out(n);
  for (auto& x : out) {
    const uint32_t w = rng.next_u32();
    const float mantissa = static_cast<float>(w & 0xffffffu) / 16777216.0f + 0.5f;
    const int exponent = static_cast<int>((w >> 24) % 17) - 8;
    x = std::ldexp((w >> 31) != 0 ? -mantissa : mantissa, exponent);
  }
  return out;
}

// Small integers in [-2^11, 2^11): every float transform of length <= 1024 is exact.
std::vector<float> small_int_f32(ldp::random::drbg& rng, std::size_t n) {
  std::vector<float> out(n);
  for (auto& x : out) x = static_cast<float>(static_cast<int32_t>(rng.next_u32() % 4096) - 2048);
  return out;
}

std::vector<int32_t> random_i32(ldp::random::drbg& rng, std::size_t n) {
  std::vector<int32_t> out(n);
  for (auto& x : out) x = static_cast<int32_t>(rng.next_u32());
  return out;
}

std::vector<uint32_t> random_signs(ldp::random::drbg& rng, std::size_t n) {
  std::vector<uint32_t> words(rotation_sign_words(static_cast<uint32_t>(n)));
  for (auto& w : words) w = rng.next_u32();
  return words;
}

bool negated(const std::vector<uint32_t>& signs, std::size_t i) { return ((signs[i / 32] >> (i % 32)) & 1u) != 0; }

int parity(std::size_t m) {
  int p = 0;
  for (; m != 0; m &= m - 1) p ^= 1;
  return p;
}

// out[r] = sum_y (-1)^popcount(r & y) omega_y in[y] in double: exact for integers below 2^53,
// within 2^-53 relative error (far below float's) for the random floats.
std::vector<double> dense_rotation(const std::vector<double>& in, const std::vector<uint32_t>* signs) {
  const std::size_t n = in.size();
  std::vector<double> out(n);
  for (std::size_t r = 0; r < n; ++r) {
    double acc = 0;
    for (std::size_t y = 0; y < n; ++y) {
      const double v = (signs != nullptr && negated(*signs, y)) ? -in[y] : in[y];
      acc += parity(r & y) != 0 ? -v : v;
    }
    out[r] = acc;
  }
  return out;
}

// The same mod 2^32.
std::vector<int32_t> dense_rotation_i32(const std::vector<int32_t>& in, const std::vector<uint32_t>* signs) {
  const std::size_t n = in.size();
  std::vector<int32_t> out(n);
  for (std::size_t r = 0; r < n; ++r) {
    uint32_t acc = 0;
    for (std::size_t y = 0; y < n; ++y) {
      uint32_t v = static_cast<uint32_t>(in[y]);
      if (signs != nullptr && negated(*signs, y)) v = 0u - v;
      acc = parity(r & y) != 0 ? acc - v : acc + v;
    }
    out[r] = static_cast<int32_t>(acc);
  }
  return out;
}

// H x in double by the textbook loop (for lengths where the dense product is too slow).
std::vector<double> fwht_double(std::vector<double> x) {
  for (std::size_t h = 1; h < x.size(); h *= 2) {
    for (std::size_t i = 0; i < x.size(); i += 2 * h) {
      for (std::size_t j = i; j < i + h; ++j) {
        const double a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
    }
  }
  return x;
}

std::vector<double> to_double(const std::vector<float>& x) { return {x.begin(), x.end()}; }

double norm2(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v * v;
  return std::sqrt(s);
}

double distance(const std::vector<float>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < b.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

// 2^(-log2n / 2) in double.
double exact_scale(unsigned log2n) {
  return std::ldexp(log2n % 2 != 0 ? std::sqrt(0.5) : 1.0, -static_cast<int>(log2n / 2));
}

// The scale of rotate_f32, recomputed: the float nearest 2^(-log2n / 2).
float expected_scale(unsigned log2n) { return static_cast<float>(exact_scale(log2n)); }

// Each output of a float transform of 2^L elements goes through L + 1 roundings (L levels and the
// scale), each a relative error <= u = 2^-24 of a vector whose norm the exact (orthogonal up to
// sqrt 2 per level) map preserves, so the computed vector is within ((1 + u)^(L+1) - 1) |x| of the
// exact one; (L + 2) u |x| bounds that for L <= 30.
double rounding_bound(unsigned log2n, double norm) { return (log2n + 2) * std::ldexp(1.0, -24) * norm; }

}  // namespace

TEST_CASE("fwht_f32 and rotate_f32 equal the dense Hadamard product, n = 1 .. 1024, every table") {
  auto rng = ldp::test::seeded_drbg("fwht f32 dense");
  for (unsigned log2n = 0; log2n <= 10; ++log2n) {
    CAPTURE(log2n);
    const std::size_t n = std::size_t{1} << log2n;
    // Small integers: the transform is exact, and the scale's product with an integer below 2^22
    // is exact in double, so the float result is that product rounded once.
    const auto x = small_int_f32(rng, n);
    const auto signs = random_signs(rng, n);
    const auto plain = dense_rotation(to_double(x), nullptr);
    const auto rotated = dense_rotation(to_double(x), &signs);
    const float scale = expected_scale(log2n);
    std::vector<float> want_plain(n), want_rotated(n);
    for (std::size_t i = 0; i < n; ++i) {
      want_plain[i] = static_cast<float>(plain[i]);
      want_rotated[i] = static_cast<float>(rotated[i] * static_cast<double>(scale));
    }
    // Random floats: within the rounding bound of the exact product.
    const auto xr = random_f32(rng, n);
    const auto exact = dense_rotation(to_double(xr), nullptr);
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = t->name;
      CAPTURE(name);
      auto got = x;
      t->fwht_f32(got.data(), log2n);
      CHECK(got == want_plain);
      got = x;
      t->rotate_f32(got.data(), signs.data(), log2n);
      CHECK(got == want_rotated);
      got = xr;
      t->fwht_f32(got.data(), log2n);
      CHECK(distance(got, exact) <= rounding_bound(log2n, norm2(exact)));
    }
  }
}

TEST_CASE("rotate_i32 equals H D x (mod 2^32), n = 1 .. 1024, every table") {
  auto rng = ldp::test::seeded_drbg("rotate i32 dense");
  for (unsigned log2n = 0; log2n <= 10; ++log2n) {
    CAPTURE(log2n);
    const std::size_t n = std::size_t{1} << log2n;
    const auto x = random_i32(rng, n);
    const auto signs = random_signs(rng, n);
    const auto want = dense_rotation_i32(x, &signs);
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = t->name;
      CAPTURE(name);
      auto got = x;
      t->rotate_i32(got.data(), signs.data(), log2n);
      CHECK(got == want);
    }
  }
}

TEST_CASE("rotation scale: 2^(-log2n / 2), the nearest float for odd log2n") {
  // U e_0 = s * (1, 1, ..., 1): the scale of every length the tests afford.
  for (unsigned log2n = 0; log2n <= 20; ++log2n) {
    CAPTURE(log2n);
    const std::size_t n = std::size_t{1} << log2n;
    const std::vector<uint32_t> signs(rotation_sign_words(static_cast<uint32_t>(n)), 0);
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = t->name;
      CAPTURE(name);
      std::vector<float> x(n, 0.0f);
      x[0] = 1.0f;
      t->rotate_f32(x.data(), signs.data(), log2n);
      CHECK(std::all_of(x.begin(), x.end(), [&](float v) { return v == expected_scale(log2n); }));
    }
  }
  CHECK(expected_scale(1) == 0x1.6a09e6p-1f);
}

TEST_CASE("rotate_f32 is orthogonal: the norm is kept and D s H inverts it, every table") {
  auto rng = ldp::test::seeded_drbg("rotate f32 orthogonal");
  for (unsigned log2n : {1u, 2u, 5u, 6u, 9u, 12u, 15u, 16u}) {
    CAPTURE(log2n);
    const std::size_t n = std::size_t{1} << log2n;
    const auto x = random_f32(rng, n);
    const auto signs = random_signs(rng, n);
    const double norm = norm2(to_double(x));
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = t->name;
      CAPTURE(name);
      auto y = x;
      t->rotate_f32(y.data(), signs.data(), log2n);
      // |Ux| = |x| up to the rounding bound (the scale of odd lengths adds a relative 2^-25).
      CHECK(std::fabs(norm2(to_double(y)) - norm) <= rounding_bound(log2n, norm));
      // x = D s H y, in double from the float y: error = U's rounding only.
      auto back = fwht_double(to_double(y));
      const double s = exact_scale(log2n);
      for (std::size_t i = 0; i < n; ++i) back[i] *= negated(signs, i) ? -s : s;
      std::vector<double> diff(n);
      for (std::size_t i = 0; i < n; ++i) diff[i] = back[i] - x[i];
      CHECK(norm2(diff) <= rounding_bound(log2n, norm));
    }
  }
}

TEST_CASE("rotate_i32 has an exact inverse: D H (H D x) = n x (mod 2^32), every table") {
  auto rng = ldp::test::seeded_drbg("rotate i32 inverse");
  for (unsigned log2n : {0u, 1u, 4u, 5u, 7u, 11u, 13u, 17u}) {
    CAPTURE(log2n);
    const std::size_t n = std::size_t{1} << log2n;
    const auto x = random_i32(rng, n);
    const auto signs = random_signs(rng, n);
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = t->name;
      CAPTURE(name);
      auto y = x;
      t->rotate_i32(y.data(), signs.data(), log2n);
      t->fwht_i32(y.data(), log2n);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        uint32_t v = static_cast<uint32_t>(y[i]);
        if (negated(signs, i)) v = 0u - v;
        bad += v != static_cast<uint32_t>(x[i]) * static_cast<uint32_t>(n);
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("rotate_i32 equals rotate_f32 times 2^(log2n / 2) for even log2n (exact inputs)") {
  auto rng = ldp::test::seeded_drbg("rotate int equals float");
  for (unsigned log2n : {2u, 6u, 10u, 14u}) {
    CAPTURE(log2n);
    const std::size_t n = std::size_t{1} << log2n;
    std::vector<int32_t> xi(n);
    for (auto& v : xi) v = static_cast<int32_t>(rng.next_u32() % 1024) - 512;  // sums below 2^24
    std::vector<float> xf(xi.begin(), xi.end());
    const auto signs = random_signs(rng, n);
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = t->name;
      CAPTURE(name);
      auto yi = xi;
      auto yf = xf;
      t->rotate_i32(yi.data(), signs.data(), log2n);
      t->rotate_f32(yf.data(), signs.data(), log2n);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double scaled = std::ldexp(static_cast<double>(yf[i]), static_cast<int>(log2n / 2));
        bad += static_cast<double>(yi[i]) != scaled;
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("fwht_f32, rotate_f32, rotate_i32: every table equals the scalar reference bit for bit") {
  auto rng = ldp::test::seeded_drbg("rotation tables");
  const auto tables = ldp::test::runnable_tables();
  std::vector<unsigned> sizes;
  for (unsigned l = 0; l <= 16; ++l) sizes.push_back(l);
  sizes.push_back(20);  // three levels of the depth-first recursion
  for (unsigned log2n : sizes) {
    CAPTURE(log2n);
    const std::size_t n = std::size_t{1} << log2n;
    const auto xf = random_f32(rng, n + 1);
    const auto xi = random_i32(rng, n + 1);
    const auto signs = random_signs(rng, n);
    auto want_fwht = xf, want_rot = xf;
    auto want_i32 = xi;
    ldp::kernels::scalar().fwht_f32(want_fwht.data(), log2n);
    ldp::kernels::scalar().rotate_f32(want_rot.data(), signs.data(), log2n);
    ldp::kernels::scalar().rotate_i32(want_i32.data(), signs.data(), log2n);
    CHECK(want_fwht[n] == xf[n]);  // nothing written past the end
    CHECK(want_rot[n] == xf[n]);
    CHECK(want_i32[n] == xi[n]);
    for (const auto* t : tables) {
      const std::string name = t->name;
      CAPTURE(name);
      // Bit patterns, so that -0 and +0 differ. Inputs start one float past a 64-byte boundary
      // of nothing in particular: no alignment is assumed.
      const auto same_bits = [&](const std::vector<float>& a, const std::vector<float>& b, std::size_t offset) {
        return std::memcmp(a.data(), b.data() + offset, n * sizeof(float)) == 0;
      };
      std::vector<float> f(xf.begin(), xf.end());
      f.insert(f.begin(), 1.5f);
      t->fwht_f32(f.data() + 1, log2n);
      CHECK(same_bits(want_fwht, f, 1));
      CHECK(f[0] == 1.5f);
      f.assign(xf.begin(), xf.end());
      f.insert(f.begin(), 1.5f);
      t->rotate_f32(f.data() + 1, signs.data(), log2n);
      CHECK(same_bits(want_rot, f, 1));
      std::vector<int32_t> i(xi.begin(), xi.end());
      t->rotate_i32(i.data(), signs.data(), log2n);
      CHECK(i == want_i32);
    }
  }
}

TEST_CASE("padding round trip: zero-pad d to 2^ceil(log2 d), rotate, invert, truncate") {
  auto rng = ldp::test::seeded_drbg("rotation padding");
  unsigned char seed[32];
  ldp::test::seed_from_name("rotation padding seed", seed);
  for (uint32_t d : {1u, 3u, 31u, 33u, 100u, 1000u, 1025u, 70000u}) {
    CAPTURE(d);
    const uint32_t dp = padded_dim(d);
    const unsigned log2n = ldp::random::padded_log2(d);
    REQUIRE(dp == (uint32_t{1} << log2n));
    REQUIRE(dp >= d);
    REQUIRE(dp < 2 * d + (d == 1 ? 1u : 0u));
    std::vector<uint32_t> signs(rotation_sign_words(dp));
    REQUIRE(rotation_signs(seed, dp, signs) == ldp::status::ok);
    std::vector<int32_t> xi(dp, 0);
    for (uint32_t i = 0; i < d; ++i) xi[i] = static_cast<int32_t>(rng.next_u32() % 2001) - 1000;
    std::vector<float> xf(xi.begin(), xi.end());
    for (const auto* t : ldp::test::runnable_tables()) {
      const std::string name = t->name;
      CAPTURE(name);
      // Integers: D H (H D x) = dp x exactly.
      auto yi = xi;
      t->rotate_i32(yi.data(), signs.data(), log2n);
      t->fwht_i32(yi.data(), log2n);
      std::size_t bad = 0;
      for (uint32_t i = 0; i < dp; ++i) {
        const int64_t v = negated(signs, i) ? -int64_t{yi[i]} : int64_t{yi[i]};
        bad += v != int64_t{xi[i]} * dp;  // the padding comes back as zeros
      }
      CHECK(bad == 0);
      // Floats: x = D (s H (U x)) with U's rounding error, the padding within it of zero.
      auto yf = xf;
      t->rotate_f32(yf.data(), signs.data(), log2n);
      t->fwht_f32(yf.data(), log2n);
      const double s = exact_scale(log2n);
      std::vector<double> diff(dp);
      for (uint32_t i = 0; i < dp; ++i) {
        diff[i] = (negated(signs, i) ? -s : s) * yf[i] - xf[i];
      }
      CHECK(norm2(diff) <= 2 * rounding_bound(log2n, norm2(to_double(xf))));
    }
  }
}

TEST_CASE("a wrong seed shows: inverting with another seed's D leaves a large error") {
  auto rng = ldp::test::seeded_drbg("rotation wrong seed");
  unsigned char seed_a[32], seed_b[32];
  ldp::test::seed_from_name("rotation seed a", seed_a);
  ldp::test::seed_from_name("rotation seed b", seed_b);
  const uint32_t dp = 1024;
  const unsigned log2n = 10;
  std::vector<uint32_t> da(rotation_sign_words(dp)), db(rotation_sign_words(dp));
  REQUIRE(rotation_signs(seed_a, dp, ldp::span<uint32_t>(da)) == ldp::status::ok);
  REQUIRE(rotation_signs(seed_b, dp, ldp::span<uint32_t>(db)) == ldp::status::ok);
  const auto x = random_f32(rng, dp);
  const double norm = norm2(to_double(x));
  auto y = x;
  const auto& t = ldp::kernels::scalar();
  t.rotate_f32(y.data(), da.data(), log2n);
  t.fwht_f32(y.data(), log2n);  // s H U_a x = D_a x * 2^5
  const auto error_with = [&](const std::vector<uint32_t>& d) {
    std::vector<double> diff(dp);
    for (uint32_t i = 0; i < dp; ++i) diff[i] = (negated(d, i) ? -y[i] : y[i]) / 32.0 - x[i];
    return norm2(diff);
  };
  // The right D inverts within rounding; the wrong one negates the coordinates where the two sign
  // vectors differ (about half: an error near sqrt(2) |x|, deterministic for these seeds).
  CHECK(error_with(da) <= 2 * rounding_bound(log2n, norm));
  CHECK(error_with(db) > 0.5 * norm);
}

TEST_CASE("rotation signs: golden ChaCha20 words, nonce \"ldp rotation\"") {
  // Key 00 01 .. 1f, nonce "ldp rotation", counter 0: keystream words (little-endian) computed
  // with OpenSSL (`openssl enc -chacha20`, IV = 00000000 || nonce) and Python's cryptography.
  unsigned char seed[32];
  for (int i = 0; i < 32; ++i) seed[i] = static_cast<unsigned char>(i);
  std::vector<uint32_t> words(rotation_sign_words(4096) + 1, 0xdeadbeefu);
  REQUIRE(words.size() == 129);
  REQUIRE(rotation_signs(seed, 4096, ldp::span<uint32_t>(words)) == ldp::status::ok);
  CHECK(words[0] == 0xc19a4875u);
  CHECK(words[1] == 0x3629a9c4u);
  CHECK(words[2] == 0xca487977u);
  CHECK(words[3] == 0xf43e2aadu);
  CHECK(words[15] == 0xb6417dbdu);
  CHECK(words[16] == 0xe318df6cu);  // block 1
  CHECK(words[63] == 0x92fc22a6u);
  CHECK(words[64] == 0x2042458au);  // block 4
  CHECK(words[79] == 0xb9981ed2u);
  CHECK(words[128] == 0xdeadbeefu);  // past rotation_sign_words: untouched

  // The same stream for every length; short lengths keep only their bits.
  uint32_t one = 0;
  REQUIRE(rotation_signs(seed, 1, ldp::span<uint32_t>(&one, 1)) == ldp::status::ok);
  CHECK(one == 0x1u);
  REQUIRE(rotation_signs(seed, 16, ldp::span<uint32_t>(&one, 1)) == ldp::status::ok);
  CHECK(one == 0x4875u);
  REQUIRE(rotation_signs(seed, 32, ldp::span<uint32_t>(&one, 1)) == ldp::status::ok);
  CHECK(one == 0xc19a4875u);
  std::vector<uint32_t> longer(rotation_sign_words(1u << 16));
  REQUIRE(rotation_signs(seed, 1u << 16, ldp::span<uint32_t>(longer)) == ldp::status::ok);
  CHECK(std::equal(words.begin(), words.begin() + 80, longer.begin()));

  // And it is chacha20_keystream under that nonce, read little-endian, on every table.
  for (const auto* t : ldp::test::runnable_tables()) {
    unsigned char bytes[320];
    REQUIRE(ldp::random::chacha20_keystream(*t, seed, ldp::random::rotation_nonce, 0,
                                            ldp::span<unsigned char>(bytes)) == ldp::status::ok);
    for (int j = 0; j < 80; ++j) {
      const uint32_t w = uint32_t(bytes[4 * j]) | uint32_t(bytes[4 * j + 1]) << 8 | uint32_t(bytes[4 * j + 2]) << 16 |
                         uint32_t(bytes[4 * j + 3]) << 24;
      CHECK(w == words[static_cast<std::size_t>(j)]);
    }
  }
}

TEST_CASE("rotation signs: arguments") {
  unsigned char seed[32] = {};
  uint32_t words[4] = {};
  CHECK(rotation_signs(seed, 0, ldp::span<uint32_t>(words)) == ldp::status::invalid_argument);
  CHECK(rotation_signs(seed, 96, ldp::span<uint32_t>(words)) == ldp::status::invalid_argument);
  CHECK(rotation_signs(seed, 256, ldp::span<uint32_t>(words)) == ldp::status::invalid_argument);
  CHECK(rotation_signs(seed, 128, ldp::span<uint32_t>(words)) == ldp::status::ok);
  CHECK(rotation_signs(seed, 1, ldp::span<uint32_t>()) == ldp::status::invalid_argument);

  CHECK(rotation_sign_words(1) == 1);
  CHECK(rotation_sign_words(32) == 1);
  CHECK(rotation_sign_words(64) == 2);
  CHECK(rotation_sign_words(1u << 30) == (std::size_t{1} << 25));
  static_assert(padded_dim(1) == 1);
  static_assert(padded_dim(2) == 2);
  static_assert(padded_dim(3) == 4);
  static_assert(padded_dim(1000) == 1024);
  static_assert(padded_dim(1024) == 1024);
  static_assert(padded_dim(1025) == 2048);
  static_assert(padded_dim(uint32_t{1} << 31) == uint32_t{1} << 31);
  static_assert(padded_dim((uint32_t{1} << 31) + 1) == 0);
  static_assert(padded_dim(0) == 0);
  static_assert(ldp::random::padded_log2(1) == 0);
  static_assert(ldp::random::padded_log2(3) == 2);
  static_assert(ldp::random::padded_log2(1u << 20) == 20);
}
