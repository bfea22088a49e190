// Mechanism identifiers and payload kinds (docs/wire_format.md, "Mechanisms"). The numbers are part
// of the format: never renumber or reuse one. MECHANISMS.md names the mechanisms.
#ifndef LDP_WIRE_MECHANISM_H
#define LDP_WIRE_MECHANISM_H

#include <cstdint>

namespace ldp::wire {

enum class mechanism : uint8_t {
  none = 0,
  grr = 1,             // A.1 k-RR
  sue = 2,             // A.2 basic one-time RAPPOR
  oue = 3,             // A.3
  blh = 4,             // A.4 binary local hashing
  olh = 5,             // A.4 optimized local hashing
  hr = 6,              // A.5 Hadamard response
  cms = 7,             // A.6 count-mean sketch
  hcms = 8,            // A.6 Hadamard count-mean sketch
  kent_vote = 9,       // C.1 P1, round 1 of the user-level protocols
  laplace = 16,        // B.1 discrete Laplace on a fixed-point grid, one value
  laplace_vector = 17, // B.1 per coordinate, L1 sensitivity
  duchi = 18,          // B.2 one-bit mean
  vector_duchi = 19,   // B.5 rotation, coordinate sampling, one bit
  vector_laplace = 20, // B.5 rotation, coordinate sampling, discrete Laplace
  sparse_projection = 21,  // C.3 device side: at most s index/value pairs
  kent_refine = 22,    // C.1 P2, round 2 of the user-level protocols
  winsorized_bins = 23,  // C.2 round 1: the bins of a user's rotated mean (Levy et al.)
  winsorized_sums = 24,  // C.2 round 2: the rotated mean clipped to the broadcast windows
};

// The shape of a report's payload; several mechanisms share one. The first five are the frequency
// oracles' (params.cpp relies on the order).
enum class payload_kind : uint8_t {
  index,             // one value in [0, n): GRR (n = d), HR (n = K)
  unary_bits,        // d packed bits: SUE, OUE, kent_vote
  hash_bucket,       // 64-bit seed + bucket in [0, g): BLH, OLH
  sketch_row,        // row in [0, k) + m packed bits: CMS
  sketch_cell,       // row in [0, k), column in [0, m), sign bit: HCMS
  fixed_value,       // one zigzag varint: laplace, kent_refine
  fixed_vector,      // d zigzag varints: laplace_vector, winsorized_bins and _sums (d = d~)
  bit,               // one bit: duchi
  coordinate_bit,    // coordinate in [0, K) + bit: vector_duchi
  coordinate_value,  // coordinate in [0, K) + zigzag varint: vector_laplace
  sparse_pairs,      // count <= s, then strictly increasing index + value pairs: sparse_projection
};

// False for `none` and for numbers this build does not know.
[[nodiscard]] constexpr bool is_known(mechanism m) noexcept {
  const auto v = static_cast<uint8_t>(m);
  return (v >= 1 && v <= 9) || (v >= 16 && v <= 24);
}

// The payload of a known mechanism (index for unknown ones, which nothing decodes).
[[nodiscard]] constexpr payload_kind kind_of(mechanism m) noexcept {
  switch (m) {
    case mechanism::sue:
    case mechanism::oue:
    case mechanism::kent_vote: return payload_kind::unary_bits;
    case mechanism::blh:
    case mechanism::olh: return payload_kind::hash_bucket;
    case mechanism::cms: return payload_kind::sketch_row;
    case mechanism::hcms: return payload_kind::sketch_cell;
    case mechanism::laplace:
    case mechanism::kent_refine: return payload_kind::fixed_value;
    case mechanism::laplace_vector:
    case mechanism::winsorized_bins:
    case mechanism::winsorized_sums: return payload_kind::fixed_vector;
    case mechanism::duchi: return payload_kind::bit;
    case mechanism::vector_duchi: return payload_kind::coordinate_bit;
    case mechanism::vector_laplace: return payload_kind::coordinate_value;
    case mechanism::sparse_projection: return payload_kind::sparse_pairs;
    default: return payload_kind::index;  // grr, hr
  }
}

// "grr", "sue", ..., as the command-line tool spells them; "" for unknown values.
[[nodiscard]] const char* mechanism_name(mechanism m) noexcept;

}  // namespace ldp::wire

#endif
