// The header of saved aggregator state (docs/wire_format.md, "Aggregator state"): what any state
// file starts with, whatever the mechanism's body (defined by the server's aggregators). It binds
// the body to its parameters (fingerprint) and detects corruption (two CRC32C).
#ifndef LDP_WIRE_STATE_H
#define LDP_WIRE_STATE_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/mechanism.h"

namespace ldp::wire {

inline constexpr unsigned char state_magic[4] = {'L', 'D', 'P', 'S'};
inline constexpr uint8_t state_version = 1;
inline constexpr std::size_t state_header_size = 32;

struct state_header {
  mechanism mech = mechanism::none;
  uint64_t fingerprint = 0;
  uint64_t body_size = 0;
  uint32_t body_crc = 0;
};

// Writes the 32-byte header for `body`.
[[nodiscard]] status encode_state_header(mechanism m, uint64_t fingerprint, span<const unsigned char> body,
                                         span<unsigned char> out) noexcept;

// Checks a whole state file (header + body): magic (malformed_report), version, reserved bytes,
// mechanism, header CRC, body length (wrong_length) and body CRC, each with its own status.
[[nodiscard]] status decode_state(span<const unsigned char> file, state_header* out,
                                  span<const unsigned char>* body) noexcept;

}  // namespace ldp::wire

#endif
