// The rules of the fixed headers (docs/wire_format.md sections 4, 6, 7), each in one place: the
// decoders, the in-memory batch_reader, the streaming batch_stream_reader and peek_header apply
// them to the pieces they hold, so none can disagree with another on a status.
#ifndef LDP_WIRE_SRC_FRAMING_H
#define LDP_WIRE_SRC_FRAMING_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/batch.h"
#include "ldp/wire/mechanism.h"
#include "ldp/wire/state.h"

namespace ldp::wire::detail {

// The report header (section 4): its length (wrong_length), version (unsupported_version) and
// mechanism (unknown_mechanism); then *mech and *fp.
[[nodiscard]] status read_report_header(span<const unsigned char> bytes, mechanism* mech, uint64_t* fp) noexcept;

// The 32 bytes of a state header (section 7): magic, version, reserved bytes, header CRC and
// mechanism, in this order, each with its status; *out gets the fields (ok only).
[[nodiscard]] status read_state_header(span<const unsigned char> header, state_header* out) noexcept;

// The first batch_prefix_size bytes: magic (malformed_report), version (unsupported_version),
// flags (reserved_bits_set); then *header_size, the size of the whole header.
[[nodiscard]] status read_batch_prefix(span<const unsigned char> prefix, std::size_t* header_size) noexcept;

// The whole header (exactly its size): CRC32C, parameter block (section 3), fingerprint.
[[nodiscard]] status read_batch_header(span<const unsigned char> header, params* p, uint64_t* fp) noexcept;

// The chunk_header_size bytes of a chunk header: its record count and whole size, or
// malformed_report for a body past max_chunk_body.
[[nodiscard]] status read_chunk_header(span<const unsigned char> head, uint32_t* records, std::size_t* size) noexcept;

// A whole chunk: *out gets its records and size, and its body when the CRC holds (then ok) and it
// is not the terminator. checksum_mismatch for a bad CRC, malformed_report for a terminator with a
// body. `crc` null means wire::crc32c.
[[nodiscard]] status read_chunk(span<const unsigned char> chunk, crc32c_fn crc, chunk_view* out) noexcept;

}  // namespace ldp::wire::detail

#endif
