// The parameter block (docs/wire_format.md, "Parameter block"): everything device and server must
// agree on, as the exact integers the device uses (thresholds, not probabilities), with one
// canonical encoding and a 64-bit fingerprint of it. Literal types and constexpr accessors, so
// firmware can hold a block in flash and size its buffers at compile time.
#ifndef LDP_WIRE_PARAMS_H
#define LDP_WIRE_PARAMS_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/field.h"
#include "ldp/wire/mechanism.h"

namespace ldp::wire {

struct params {
  mechanism mech = mechanism::none;
  field_set present = 0;               // bit t set when field t is present
  uint64_t value[field_max + 1] = {};  // integer fields; signed ones in two's complement
  unsigned char hash_seed[seed_size] = {};
  unsigned char rotation_seed[seed_size] = {};

  constexpr bool has(field f) const noexcept { return ((present >> static_cast<int>(f)) & 1u) != 0; }
  constexpr uint64_t get(field f) const noexcept { return value[static_cast<int>(f)]; }
  constexpr int64_t get_signed(field f) const noexcept { return static_cast<int64_t>(value[static_cast<int>(f)]); }
  constexpr params& set(field f, uint64_t v) noexcept {
    present |= field_bit(f);
    value[static_cast<int>(f)] = v;
    return *this;
  }
  constexpr params& set_signed(field f, int64_t v) noexcept { return set(f, static_cast<uint64_t>(v)); }
  constexpr params& set_seed(field f, const unsigned char seed[seed_size]) noexcept {
    present |= field_bit(f);
    unsigned char* target = f == field::hash_seed ? hash_seed : rotation_seed;
    for (std::size_t i = 0; i < seed_size; ++i) target[i] = seed[i];
    return *this;
  }
};

inline constexpr uint8_t params_version = 1;
// Version, mechanism, field count, then each field as tag + value: two seeds, the others at most
// 8 bytes wide.
inline constexpr std::size_t params_max_size = 3 + (field_max - 2) * (1 + 8) + 2 * (1 + seed_size);

// Checks a block against its mechanism: exactly the required fields, each in range
// (invalid_parameters), and a known mechanism (unknown_mechanism).
[[nodiscard]] status validate(const params& p) noexcept;

// The canonical encoding; validates first. *written receives the size.
[[nodiscard]] status encode_params(const params& p, span<unsigned char> out, std::size_t* written) noexcept;

// Strict decoding of exactly `bytes` (wrong_length when they hold more or less than one block).
[[nodiscard]] status decode_params(span<const unsigned char> bytes, params* out) noexcept;

// SipHash-2-4 of the canonical encoding under the key "ldpkit params v1"; 0 if p is invalid.
[[nodiscard]] uint64_t fingerprint(const params& p) noexcept;

}  // namespace ldp::wire

#endif
