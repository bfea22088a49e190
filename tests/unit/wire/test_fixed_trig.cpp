// The fixed-point cos and sin of Kent M5's features (ldp/wire/fixed_trig.h, docs/mechanisms.md C.1
// P5): against long double, exact octant symmetries, the phase of m x on the grid, the feature map,
// and a digest that pins the values on every target (this test runs under qemu too), so devices
// and the server compute the same features bit for bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ldp/wire/fixed_trig.h"

using ldp::wire::basis_feature;
using ldp::wire::fixed_cos;
using ldp::wire::fixed_sin;
using ldp::wire::turn_phase;

namespace {

const long double two_pi = 2 * std::acos(-1.0L);

// 2^30 cos(2 pi p / 2^32) and sin in long double (64-bit mantissa: errors near 2^-63 relative).
long double reference(uint32_t p, bool sine) {
  const long double a = two_pi * static_cast<long double>(p) / 4294967296.0L;
  return std::ldexp(sine ? std::sin(a) : std::cos(a), 30);
}

}  // namespace

TEST_CASE("fixed_cos and fixed_sin are within one Q30 unit of long double everywhere") {
  // 2^22 phases spread over the whole turn (a stride coprime to 2^32) plus every octant boundary
  // and its neighbours. The bound is one unit (2^-30); measured maximum 0.80 units. Fails (checked):
  // the sine's series one term short (2.6 units), the same method in signed Q31 (1.11 units).
  long double worst = 0;
  const auto check = [&](uint32_t p) {
    for (bool sine : {false, true}) {
      const long double err =
          std::fabs(static_cast<long double>(sine ? fixed_sin(p) : fixed_cos(p)) - reference(p, sine));
      worst = std::max(worst, err);
    }
  };
  for (uint64_t i = 0; i < (uint64_t{1} << 22); ++i) check(static_cast<uint32_t>(i * 2654435761u));
  for (uint64_t octant = 0; octant <= 8; ++octant) {
    for (int64_t delta = -3; delta <= 3; ++delta)
      check(static_cast<uint32_t>((octant << 29) + static_cast<uint64_t>(delta)));
  }
  MESSAGE("largest error in Q30 units: " << static_cast<double>(worst));
  CHECK(worst <= 1);
}

TEST_CASE("exact values and symmetries") {
  CHECK(fixed_cos(0) == int64_t{1} << 30);
  CHECK(fixed_sin(0) == 0);
  CHECK(fixed_sin(uint32_t{1} << 30) == int64_t{1} << 30);
  CHECK(fixed_cos(uint32_t{1} << 31) == -(int64_t{1} << 30));
  CHECK(fixed_cos(uint32_t{1} << 30) == 0);
  for (uint32_t p : {1u, 12345u, 0x1fffffffu, 0x20000000u, 0x3fffffffu, 0x7654321u, 0xdeadbeefu}) {
    CAPTURE(p);
    CHECK(fixed_cos(p) == fixed_cos(0u - p));   // even
    CHECK(fixed_sin(p) == -fixed_sin(0u - p));  // odd
    CHECK(fixed_cos(p + (1u << 31)) == -fixed_cos(p));
    CHECK(fixed_sin(p) == fixed_cos(p - (1u << 30)));
  }
}

TEST_CASE("turn_phase: m x mod 1 as a binary phase") {
  // f <= 32: exact. x = 0.25 (f = 16) is a quarter turn, times 3 three quarters, times 4 none.
  CHECK(turn_phase(1, int64_t{1} << 14, 16) == uint32_t{1} << 30);
  CHECK(turn_phase(3, int64_t{1} << 14, 16) == 3u << 30);
  CHECK(turn_phase(4, int64_t{1} << 14, 16) == 0);
  CHECK(turn_phase(1, 1, 32) == 1);
  CHECK(turn_phase(1, 1, 0) == 0);  // f = 0: the grid holds 0 and 1 only, both the angle 0
  // f > 32: rounded to 32 bits, the top wrapping to 0.
  CHECK(turn_phase(1, 3, 33) == 2);  // 1.5 rounds up
  CHECK(turn_phase(1, (int64_t{1} << 40) - 1, 40) == 0);
  // m x wraps modulo 2^64, a multiple of 2^f: still exact.
  CHECK(turn_phase(uint64_t{1} << 50, (int64_t{1} << 20) + 1, 20) == 0);
  CHECK(turn_phase((uint64_t{1} << 50) + 1, (int64_t{1} << 20) + 3, 20) == 3u << 12);
}

TEST_CASE("basis_feature: cos, sin of frequency j / 2 + 1, x clamped to [0, 1], periodic") {
  const unsigned f = 16;
  const int64_t x = 5 * (int64_t{1} << 12);  // 0.3125
  for (uint32_t j = 0; j < 8; ++j) {
    CAPTURE(j);
    const uint32_t phase = turn_phase(j / 2 + 1, x, f);
    CHECK(basis_feature(j, x, f) == (j % 2 == 0 ? fixed_cos(phase) : fixed_sin(phase)));
    CHECK(basis_feature(j, 0, f) == basis_feature(j, int64_t{1} << f, f));
    CHECK(basis_feature(j, -7, f) == basis_feature(j, 0, f));
    CHECK(basis_feature(j, (int64_t{1} << f) + 9, f) == basis_feature(j, int64_t{1} << f, f));
  }
  CHECK(basis_feature(0, int64_t{1} << 15, f) == -(int64_t{1} << 30));  // cos(2 pi 0.5)
  CHECK(basis_feature(3, int64_t{1} << 13, f) == int64_t{1} << 30);     // sin(2 pi 2 0.125)
}

TEST_CASE("a digest of 2^17 values pins fixed_cos and fixed_sin on every target") {
  // FNV-1a (64-bit) over the Q30 values at phases k 65537 (k < 2^16), cos then sin, each as its
  // 8 little-endian bytes. Any change to the arithmetic (or a target that computes it
  // differently) changes it.
  uint64_t digest = 14695981039346656037u;
  const auto mix = [&](int64_t v) {
    for (int b = 0; b < 8; ++b) {
      digest = (digest ^ ((static_cast<uint64_t>(v) >> (8 * b)) & 0xff)) * 1099511628211u;
    }
  };
  for (uint32_t k = 0; k < 65536; ++k) {
    mix(fixed_cos(k * 65537u));
    mix(fixed_sin(k * 65537u));
  }
  MESSAGE("digest " << digest);
  CHECK(digest == 2731029602014251366u);
}
