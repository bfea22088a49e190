// The hardware CRC32C of the kernel tables against the portable wire::crc32c (docs/wire_format.md
// section 6), at every length around the three-stream rounds, from unaligned starts, and continuing
// a running value.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "ldp/kernels/kernel_table.h"
#include "ldp/platform/cpu.h"
#include "ldp/wire/checksum.h"

namespace {

std::vector<unsigned char> pseudo_random_bytes(std::size_t n) {
  std::vector<unsigned char> out(n);
  uint64_t x = 0x9E3779B97F4A7C15u;
  for (unsigned char& b : out) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<unsigned char>(x >> 56);
  }
  return out;
}

}  // namespace

TEST_CASE("every hardware CRC32C equals the portable one") {
  const ldp::cpu_features cpu = ldp::platform::detect_cpu();
  const std::vector<unsigned char> data = pseudo_random_bytes(20000);
  int checked_tables = 0;
  for (const ldp::kernels::table* t : ldp::kernels::compiled()) {
    if (t->crc32c == nullptr || !ldp::kernels::supported(*t, cpu)) continue;
    CAPTURE(t->name);
    ++checked_tables;
    for (std::size_t offset : {0u, 1u, 5u}) {
      for (std::size_t size = 0; offset + size <= data.size(); size += 1 + size / 8) {
        const unsigned char* at = data.data() + offset;
        CHECK(t->crc32c(0, at, size) == ldp::wire::crc32c(ldp::span<const unsigned char>(at, size)));
      }
    }
    // A running value: the first part's CRC continues over the rest (3 KiB rounds straddled).
    const uint32_t first = t->crc32c(0, data.data(), 4000);
    CHECK(t->crc32c(first, data.data() + 4000, 9001) ==
          ldp::wire::crc32c(ldp::span<const unsigned char>(data.data(), 13001)));
    CHECK(t->crc32c(0, nullptr, 0) == 0);
  }
#if defined(__x86_64__) || defined(_M_X64)
  // x86-64 builds with SIMD compile the avx2 table, and this machine runs it.
  if (cpu.avx2 && ldp::kernels::compiled().size() > 1) CHECK(checked_tables > 0);
#endif
}
