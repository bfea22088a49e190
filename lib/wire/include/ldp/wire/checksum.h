// Checksums of the wire format (docs/wire_format.md, "Checksums and fingerprints"): CRC32C
// (Castagnoli, as in iSCSI, ext4 and zstd's frame checksum alternative) over chunks and saved
// state, and SipHash-2-4 under a fixed public key for the 64-bit parameter fingerprint.
#ifndef LDP_WIRE_CHECKSUM_H
#define LDP_WIRE_CHECKSUM_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"

namespace ldp::wire {

// CRC32C, reflected polynomial 0x82F63B78, initial value and final XOR 0xFFFFFFFF. `crc` continues
// a running checksum: crc32c(b, crc32c(a)) == crc32c(a + b).
[[nodiscard]] uint32_t crc32c(span<const unsigned char> bytes, uint32_t crc = 0) noexcept;

// Another implementation of the same function (a hardware one: kernels::table::crc32c), which a
// batch reader may be given; same contract, with the running value first.
using crc32c_fn = uint32_t (*)(uint32_t crc, const unsigned char* bytes, std::size_t size);

// SipHash-2-4 (Aumasson, Bernstein 2012) with a 16-byte key, output as a little-endian uint64.
[[nodiscard]] uint64_t siphash24(const unsigned char key[16], span<const unsigned char> bytes) noexcept;

}  // namespace ldp::wire

#endif
