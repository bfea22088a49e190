// lib/base: stable status codes, span, fixed-point conversion, integer helpers.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "ldp/base.h"
#include "ldp/random/drbg.h"

TEST_CASE("status numbers are stable and names are unique") {
  // These numbers are part of the C API and of saved state: changing one is a format break.
  CHECK(static_cast<int>(ldp::status::ok) == 0);
  CHECK(static_cast<int>(ldp::status::malformed_report) == 4);
  CHECK(static_cast<int>(ldp::status::entropy_failure) == 7);
  CHECK(static_cast<int>(ldp::status::unsupported) == 10);
  CHECK(static_cast<int>(ldp::status::invalid_parameters) == 15);
  std::set<std::string> names;
  for (int32_t i = 0; i < ldp::status_count; ++i) {
    const std::string name = ldp::status_name(static_cast<ldp::status>(i));
    CHECK_FALSE(name.empty());
    names.insert(name);
  }
  CHECK(names.size() == static_cast<std::size_t>(ldp::status_count));
  CHECK(std::string(ldp::status_name(static_cast<ldp::status>(999))).empty());
  CHECK(std::string(ldp::status_name(ldp::status::checksum_mismatch)) == "checksum_mismatch");
}

TEST_CASE("span views arrays, containers and sub-ranges") {
  int raw[5] = {1, 2, 3, 4, 5};
  ldp::span<int> s(raw);
  CHECK(s.size() == 5);
  CHECK(s.subspan(1, 3)[2] == 4);
  CHECK(s.first(2).size_bytes() == 2 * sizeof(int));
  std::vector<int> v{7, 8};
  ldp::span<const int> c(v);
  CHECK(c[1] == 8);
  ldp::span<const int> from_mutable = s;
  CHECK(from_mutable.data() == raw);
  std::array<int, 3> a{};
  CHECK(ldp::span<int>(a).size() == 3);
  CHECK(ldp::span<int>().empty());
}

TEST_CASE("to_fixed: rounding modes, saturation and NaN") {
  using ldp::rounding;
  CHECK(ldp::to_q32(0.75, 2).value == 3);
  CHECK(ldp::to_q32(2.5 / 4, 2).value == 2);  // 2.5 -> 2, ties to even
  CHECK(ldp::to_q32(3.5 / 4, 2).value == 4);  // 3.5 -> 4
  CHECK(ldp::to_q32(-2.5 / 4, 2).value == -2);
  CHECK(ldp::to_q32(-0.3, 0, rounding::floor).value == -1);
  CHECK(ldp::to_q32(-0.7, 0, rounding::toward_zero).value == 0);
  const auto big = ldp::to_q32(1e12, 0);
  CHECK(big.value == INT32_MAX);
  CHECK(big.code == ldp::status::overflow);
  const auto small = ldp::to_q32(-1e12, 0);
  CHECK(small.value == INT32_MIN);
  CHECK(small.code == ldp::status::overflow);
  CHECK(ldp::to_q32(std::nan(""), 4).code == ldp::status::invalid_argument);
  CHECK(ldp::to_q32(1.0, 63).code == ldp::status::invalid_argument);
  CHECK(ldp::to_fixed(1e300, 10, INT64_MIN, INT64_MAX).value == INT64_MAX);
  CHECK(ldp::to_fixed(5.0, 0, 0, 3).value == 3);
  CHECK(ldp::from_fixed(-3, 2) == -0.75);
  // Round trip of every Q15 value in [-1, 1).
  for (int32_t q = -32768; q < 32768; q += 7) {
    CHECK(ldp::to_q32(ldp::from_fixed(q, 15), 15).value == q);
  }
}

TEST_CASE("saturating_add reports saturation") {
  bool sat = false;
  CHECK(ldp::saturating_add(INT64_MAX - 1, 5, &sat) == INT64_MAX);
  CHECK(sat);
  CHECK(ldp::saturating_add(INT64_MIN + 1, -5, &sat) == INT64_MIN);
  CHECK(sat);
  CHECK(ldp::saturating_add(-4, 9, &sat) == 5);
  CHECK_FALSE(sat);
}

TEST_CASE("mul_64x64 and checked arithmetic") {
  unsigned char seed[32] = {42};
  ldp::random::drbg rng(seed);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t a = rng.next_u64() >> (i % 64), b = rng.next_u64() >> ((i / 64) % 64);
    const ldp::u128 p = ldp::mul_64x64(a, b);
    // Check against schoolbook arithmetic on 32-bit halves written independently.
    const uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    const uint64_t lo_lo = al * bl, cross1 = ah * bl, cross2 = al * bh, hi_hi = ah * bh;
    uint64_t lo = lo_lo, hi = hi_hi, carry = 0;
    for (uint64_t part : {cross1 << 32, cross2 << 32}) {
      const uint64_t before = lo;
      lo += part;
      carry += lo < before;
    }
    hi += (cross1 >> 32) + (cross2 >> 32) + carry;
    CHECK(p.lo == lo);
    CHECK(p.hi == hi);
  }
  uint64_t out = 0;
  CHECK(ldp::checked_mul(uint64_t{1} << 32, uint64_t{1} << 31, &out));
  CHECK_FALSE(ldp::checked_mul(uint64_t{1} << 32, uint64_t{1} << 32, &out));
  CHECK_FALSE(ldp::checked_add(~uint64_t{0}, 1, &out));
}

TEST_CASE("little-endian loads and stores are independent of the host") {
  unsigned char b[8];
  ldp::store_le64(b, 0x0807060504030201u);
  for (int i = 0; i < 8; ++i) CHECK(b[i] == i + 1);
  CHECK(ldp::load_le32(b) == 0x04030201u);
  CHECK(ldp::load_le64(b) == 0x0807060504030201u);
  CHECK(ldp::rotl32(0x80000001u, 1) == 3u);
  CHECK(ldp::rotl32(0x12345678u, 0) == 0x12345678u);
  unsigned char secret[16];
  std::memset(secret, 0xab, sizeof secret);
  ldp::secure_zero(secret, sizeof secret);
  for (unsigned char c : secret) CHECK(c == 0);
}

TEST_CASE("checked_add on int64: exact or refused at both ends") {
  int64_t out = 7;
  CHECK(ldp::checked_add(int64_t{-5}, int64_t{3}, &out));
  CHECK(out == -2);
  CHECK(ldp::checked_add(INT64_MAX, int64_t{-1}, &out));
  CHECK(out == INT64_MAX - 1);
  CHECK_FALSE(ldp::checked_add(INT64_MAX, int64_t{1}, &out));
  CHECK_FALSE(ldp::checked_add(INT64_MIN, int64_t{-1}, &out));
  CHECK(out == INT64_MAX - 1);  // untouched on refusal
  CHECK(ldp::checked_add(INT64_MIN, INT64_MAX, &out));
  CHECK(out == -1);
}
