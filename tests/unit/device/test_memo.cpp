// memo_seed (docs/mechanisms.md, "Memoized randomness"): deterministic, the same on every kernel
// table, and different for every change of secret, scope, purpose or input.
#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <set>

#include "ldp/device/memo.h"
#include "tables.h"

namespace {

using seed_bytes = std::array<unsigned char, ldp::random::drbg::seed_size>;

seed_bytes seed_of(const ldp::kernels::table& k, unsigned char secret_byte, ldp::device::memo_scope scope,
                   ldp::device::memo_purpose purpose, uint32_t input) {
  unsigned char secret[ldp::device::device_secret_size] = {};
  secret[0] = secret_byte;
  seed_bytes out{};
  ldp::device::memo_seed(k, secret, scope, purpose, input, out.data());
  return out;
}

seed_bytes hex(const char* text) {
  seed_bytes out{};
  REQUIRE(std::strlen(text) == 2 * out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto nibble = [](char c) { return static_cast<unsigned char>(c <= '9' ? c - '0' : c - 'a' + 10); };
    out[i] = static_cast<unsigned char>(nibble(text[2 * i]) << 4 | nibble(text[2 * i + 1]));
  }
  return out;
}

}  // namespace

TEST_CASE("memo_seed is a pure function of its arguments, pinned on every table") {
  using ldp::device::memo_purpose;
  const ldp::device::memo_scope scope{7, 0x0123456789abcdefu};
  // The pinned bytes guard the derivation itself: a firmware update that changed them would give
  // every device fresh permanent responses, spending the longitudinal budget again. The value was
  // computed independently with Python's cryptography package (RFC 8439 ChaCha20).
  const seed_bytes reference = hex("5eb558f1e1378e11f2fd50a9b89ecd2469b81cf1eea56f0834649f2e2cf8d065");
  for (const auto* t : ldp::test::runnable_tables()) {
    CAPTURE(t->name);
    CHECK(seed_of(*t, 1, scope, memo_purpose::value, 42) == reference);
  }
}

TEST_CASE("memo_seed separates secrets, use cases, blocks, purposes and inputs") {
  using ldp::device::memo_purpose;
  const auto& k = ldp::kernels::scalar();
  std::set<seed_bytes> seen;
  const ldp::device::memo_scope scope{7, 0x0123456789abcdefu};
  seen.insert(seed_of(k, 1, scope, memo_purpose::value, 0));
  seen.insert(seed_of(k, 2, scope, memo_purpose::value, 0));
  seen.insert(seed_of(k, 1, {8, scope.fingerprint}, memo_purpose::value, 0));
  seen.insert(seed_of(k, 1, {7, scope.fingerprint ^ 1}, memo_purpose::value, 0));
  seen.insert(seed_of(k, 1, scope, memo_purpose::device, 0));
  for (uint32_t input = 1; input < 64; ++input) seen.insert(seed_of(k, 1, scope, memo_purpose::value, input));
  seen.insert(seed_of(k, 1, scope, memo_purpose::value, 0xffffffffu));
  CHECK(seen.size() == 5 + 63 + 1);
}
