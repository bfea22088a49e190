// CRC32C with the SSE4.2 crc32 instruction (docs/wire_format.md section 6: the chunk checksum),
// the `crc32c` entry of the avx2 table and the avx512 table's fallback (crc32c_vpclmul.cpp): every
// CPU with AVX2 has SSE4.2, and platform::detect_cpu requires it for the avx2 feature. Compiled
// with -msse4.2 alone, not as an xsimd kernel: xsimd 8.1 has no CRC operation.
//
// Three independent streams hide the instruction's 3-cycle latency (one crc32 issues per cycle);
// they are joined with the linear property of the CRC: for a register value c and n zero bytes,
// the shift is the product of c's polynomial with x^(8n) modulo P, computed here by a
// carry-less multiplication table built once (shift_table).
#include <nmmintrin.h>
#include <xmmintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "arch_tables.h"
#include "crc32c_poly.h"

namespace ldp::kernels::detail {
namespace {

// Bytes per stream per round (three streams per round). From memory, 4 KiB lanes measured 15-16
// GB/s against 10-11 for 1 and 2 KiB and 13 for 8 KiB (64 KiB chunks, AMD Zen 4).
constexpr std::size_t lane_bytes = 4096;

// Advancing a register over `lane_bytes` zero bytes is multiplication by a constant, linear over
// GF(2): a table per register byte makes it four lookups.
struct shift_table {
  uint32_t entry[4][256];
};

constexpr shift_table make_shift_table(std::size_t zero_bytes) {
  shift_table t{};
  const uint32_t k = crc32c_x_pow(8 * zero_bytes);
  for (int byte = 0; byte < 4; ++byte) {
    for (uint32_t v = 0; v < 256; ++v) t.entry[byte][v] = crc32c_multiply(v << (8 * byte), k);
  }
  return t;
}

constexpr shift_table shift_one = make_shift_table(lane_bytes);
constexpr shift_table shift_two = make_shift_table(2 * lane_bytes);

uint32_t shift(const shift_table& t, uint32_t c) {
  return t.entry[0][c & 0xffu] ^ t.entry[1][(c >> 8) & 0xffu] ^ t.entry[2][(c >> 16) & 0xffu] ^ t.entry[3][c >> 24];
}

uint64_t load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);  // x86 is little-endian, as the CRC's byte order wants
  return v;
}

}  // namespace

uint32_t crc32c_sse42(uint32_t crc, const unsigned char* bytes, std::size_t size) noexcept {
  uint64_t c0 = ~crc;
  c0 &= 0xffffffffu;
  while (size >= 3 * lane_bytes) {
    uint64_t c1 = 0, c2 = 0;
    const unsigned char* a = bytes;
    for (std::size_t i = 0; i < lane_bytes; i += 8) {
      if (i % 64 == 0) {
        // The next round's lines: three interleaved streams defeat the hardware prefetcher when
        // the data comes from memory (a batch read once); without this, 12 against 16 GB/s.
        // A prefetch past the end of the input is harmless (it never faults).
        for (std::size_t lane = 3; lane < 6; ++lane) {
          _mm_prefetch(reinterpret_cast<const char*>(a + lane * lane_bytes + i), _MM_HINT_T0);
        }
      }
      c0 = _mm_crc32_u64(c0, load64(a + i));
      c1 = _mm_crc32_u64(c1, load64(a + lane_bytes + i));
      c2 = _mm_crc32_u64(c2, load64(a + 2 * lane_bytes + i));
    }
    // The register after all three lanes: stream 0 shifted past lanes 1 and 2, stream 1 past lane 2.
    c0 = shift(shift_two, static_cast<uint32_t>(c0)) ^ shift(shift_one, static_cast<uint32_t>(c1)) ^
         static_cast<uint32_t>(c2);
    bytes += 3 * lane_bytes;
    size -= 3 * lane_bytes;
  }
  for (; size >= 8; size -= 8, bytes += 8) c0 = _mm_crc32_u64(c0, load64(bytes));
  auto c = static_cast<uint32_t>(c0);
  for (; size > 0; --size, ++bytes) c = _mm_crc32_u8(c, *bytes);
  return ~c;
}

}  // namespace ldp::kernels::detail
