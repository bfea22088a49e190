// What a file or message is, from its fixed-size header alone (docs/wire_format.md sections 4, 6
// and 7): a tool reads the first bytes, asks peek_header, and then reads the rest with the decoder
// of that kind, without parsing any header by hand. The header is checked by the rules its decoder
// applies (the same statuses), so a header peek accepts is one the decoder accepts.
#ifndef LDP_WIRE_PEEK_H
#define LDP_WIRE_PEEK_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/mechanism.h"

namespace ldp::wire {

// A parameter block (section 3) starts like a report, with version 1 and a mechanism id, and
// carries no magic: peek_header reads it as a report. A caller expecting a block calls
// decode_params.
enum class file_kind : uint8_t {
  unknown,  // neither magic, nor a first byte of report version 1
  report,   // a first byte of report_version
  batch,    // "LDPB"
  state,    // "LDPS"
};

// Enough bytes to tell the kind and the size of any header: give peek_header at least this many
// (or the whole file when it is shorter), then header_size.
inline constexpr std::size_t peek_size = 8;

struct header_info {
  file_kind kind = file_kind::unknown;
  uint8_t version = 0;
  mechanism mech = mechanism::none;  // batch: the parameter block's
  uint64_t fingerprint = 0;
  std::size_t header_size = 0;  // the whole header: report 10, batch 20 + block, state 32
  uint64_t body_size = 0;       // state: the body after the header; batch: the parameter block
};

// Fills *out from the start of `bytes` (the rest may follow or not). out->kind is set as soon as
// the first bytes tell it, and out->header_size once known (batch: after peek_size bytes), also
// when the header is incomplete: then the status is wrong_length and a streaming caller reads up
// to header_size bytes and asks again. Every field is set when the status is ok. Statuses: as the
// kind's decoder (decode_report's header checks; batch_reader::open, which also decodes the
// parameter block; decode_state's header checks), malformed_report for file_kind::unknown.
[[nodiscard]] status peek_header(span<const unsigned char> bytes, header_info* out) noexcept;

}  // namespace ldp::wire

#endif
