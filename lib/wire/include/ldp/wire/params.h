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
#include "ldp/wire/mechanism.h"

namespace ldp::wire {

// Field tags, in canonical (increasing) order. The tag fixes the width of the value.
enum class field : uint8_t {
  domain = 1,           // u32  d: items, cells, or vector dimension
  threshold_bits = 2,   // u8   w: thresholds are out of 2^w, 1 <= w <= 63
  threshold_keep = 3,   // u64  T_p (GRR/HR/OLH/SUE keep, OUE true-bit, Duchi T_hi)
  threshold_other = 4,  // u64  T_q (SUE/OUE other bits, CMS/HCMS flip, Duchi T_lo)
  hash_range = 5,       // u32  g (BLH, OLH)
  sketch_rows = 6,      // u32  k (CMS, HCMS)
  sketch_columns = 7,   // u32  m (CMS, HCMS)
  hadamard_dim = 8,     // u32  K (HR) or padded dimension d~ (vector mechanisms), a power of two
  frac_bits = 9,        // u8   fixed-point fraction bits of values, <= 62
  clip_lo = 10,         // i64  lower end of the value range, in fixed point
  clip_hi = 11,         // i64  upper end of the value range, in fixed point
  scale_num = 12,       // u64  discrete Laplace scale t = scale_num / scale_den, in grid units
  scale_den = 13,       // u64
  sparsity = 14,        // u32  s, the most non-zeros a sparse report holds
  round = 15,           // u8   round of a user-level protocol (1 or 2)
  interval_lo = 16,     // i64  broadcast interval [L, U] of round 2, in fixed point
  interval_hi = 17,     // i64
  observations = 18,    // u32  observation cap T~ of a user-level protocol
  hash_seed = 19,       // 32 bytes: public seed of hash families (CMS, HCMS)
  rotation_seed = 20,   // 32 bytes: public seed of the rotation signs D (vector mechanisms)
  radius = 21,          // i64  L2 radius R of vector mean estimation, in fixed point (R * 2^f)
  vector_dim = 22,      // u32  d of a user-level protocol on vectors (Kent M2, M3)
  fold_coordinate = 23, // u32  the coordinate j a Kent M2/M3 fold votes on and refines
  bin_range = 25,       // u64  B: winsorized bins cover [-B, B] of a rotated coordinate (unnormalized grid units)
  bin_half_width = 26,  // u64  tau: winsorized bins are 2 tau wide
  window_half_width = 27,  // u64  w: a round-2 window is [midpoint - w, midpoint + w]
  window_digest = 28,   // u64  SipHash of the broadcast window list (central_params.h)
};

inline constexpr int field_max = 28;
inline constexpr std::size_t seed_size = 32;

// Bytes of a field's value in the encoding.
[[nodiscard]] constexpr std::size_t field_width(field f) noexcept {
  switch (f) {
    case field::threshold_bits:
    case field::frac_bits:
    case field::round: return 1;
    case field::threshold_keep:
    case field::threshold_other:
    case field::clip_lo:
    case field::clip_hi:
    case field::scale_num:
    case field::scale_den:
    case field::interval_lo:
    case field::interval_hi:
    case field::radius:
    case field::bin_range:
    case field::bin_half_width:
    case field::window_half_width:
    case field::window_digest: return 8;
    case field::hash_seed:
    case field::rotation_seed: return seed_size;
    default: return 4;
  }
}

struct params {
  mechanism mech = mechanism::none;
  uint32_t present = 0;                  // bit t set when field t is present
  uint64_t value[field_max + 1] = {};    // integer fields; signed ones in two's complement
  unsigned char hash_seed[seed_size] = {};
  unsigned char rotation_seed[seed_size] = {};

  constexpr bool has(field f) const noexcept { return (present >> static_cast<int>(f)) & 1u; }
  constexpr uint64_t get(field f) const noexcept { return value[static_cast<int>(f)]; }
  constexpr int64_t get_signed(field f) const noexcept {
    return static_cast<int64_t>(value[static_cast<int>(f)]);
  }
  constexpr params& set(field f, uint64_t v) noexcept {
    present |= 1u << static_cast<int>(f);
    value[static_cast<int>(f)] = v;
    return *this;
  }
  constexpr params& set_signed(field f, int64_t v) noexcept { return set(f, static_cast<uint64_t>(v)); }
  constexpr params& set_seed(field f, const unsigned char seed[seed_size]) noexcept {
    present |= 1u << static_cast<int>(f);
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
