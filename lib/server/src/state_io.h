// Little-endian I/O of the state body (frequency_aggregator.cpp documents the layout; state_io.cpp).
// Bodies are read with wire::byte_reader (ldp/wire/byte_cursor.h), the codecs' cursor.
#ifndef LDP_SERVER_SRC_STATE_IO_H
#define LDP_SERVER_SRC_STATE_IO_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"

namespace ldp::server::detail {

void put_u16(std::vector<unsigned char>& out, uint16_t v);
void put_u32(std::vector<unsigned char>& out, uint32_t v);
void put_u64(std::vector<unsigned char>& out, uint64_t v);
void put_u64s(std::vector<unsigned char>& out, const std::vector<uint64_t>& values);

// Reads exactly values.size() u64 from `bytes` (wrong_length otherwise).
[[nodiscard]] status read_u64s(span<const unsigned char> bytes, std::vector<uint64_t>& values) noexcept;

// Cells of a count array as a size_t, or false when that many u64 do not fit in memory on this
// target (a 32-bit size_t, say).
[[nodiscard]] bool cell_count(uint64_t cells, std::size_t* out) noexcept;

}  // namespace ldp::server::detail

#endif
