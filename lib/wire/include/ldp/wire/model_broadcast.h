// The model broadcast (docs/wire_format.md 10, docs/mechanisms.md I.0): what a training server sends
// its devices each round, the model's kind and shape, the round number and the weights, closed by a
// CRC32C. Its digest, SipHash-2-4 under the key "ldpkit model v01", is what the round names: a device
// given the digest refuses any other broadcast (a stale round's model, or a forged one) with
// parameter_mismatch, as it refuses a window list (central_params.h).
//
// Decoding follows docs/security_model.md: the header is checked (and the total length computed from
// it and compared with the bytes held) before a caller allocates anything for the weights, so what it
// allocates is bounded by the input's size; the weights are decoded into the caller's buffer.
#ifndef LDP_WIRE_MODEL_BROADCAST_H
#define LDP_WIRE_MODEL_BROADCAST_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/model.h"

namespace ldp::wire {

// How the weights are stored: IEEE-754 binary32 or binary64, little-endian.
enum class weight_format : uint8_t { f32 = 1, f64 = 2 };

struct model_header {
  model_shape shape;
  weight_format format = weight_format::f64;
  uint64_t round = 0;
};

inline constexpr unsigned char model_broadcast_magic[4] = {'L', 'D', 'P', 'M'};
inline constexpr uint8_t model_broadcast_version = 1;
inline constexpr std::size_t model_broadcast_header_size = 24;  // magic .. round; the CRC32C follows the weights

// The shape limits of wire_format.md 10: 1 <= p <= 2^24; classes = 1 for linear and logistic, 2 <= C <=
// 2^16 for softmax; d = rows (p + 1) <= 2^26 (so every byte count fits 32 bits, and a flat index of
// the sparse gradient fits a u32).
inline constexpr uint32_t model_max_features = uint32_t{1} << 24;
inline constexpr uint32_t model_max_classes = uint32_t{1} << 16;
inline constexpr uint64_t model_max_dim = uint64_t{1} << 26;

[[nodiscard]] bool model_shape_valid(const model_shape& s) noexcept;

// The broadcast's size in bytes, 24 + d w + 4 (w = 4 or 8); 0 when the shape or format is invalid.
[[nodiscard]] std::size_t model_broadcast_size(const model_header& h) noexcept;

// Writes the broadcast of theta (d entries; f32 rounds each to nearest). invalid_argument for an
// invalid header, theta of another size, or a weight that is not finite (or not finite as a float);
// buffer_too_small when out cannot hold model_broadcast_size(h).
[[nodiscard]] status encode_model_broadcast(const model_header& h, span<const double> theta, span<unsigned char> out,
                                            std::size_t* written) noexcept;

// Checks, in order: at least 28 bytes (wrong_length), magic (malformed_report), version
// (unsupported_version), reserved byte (reserved_bits_set), kind, format and shape
// (invalid_parameters), the total length (wrong_length), the CRC32C (checksum_mismatch); on ok fills
// *h. The weights are not read: decode_model_broadcast does.
[[nodiscard]] status peek_model_broadcast(span<const unsigned char> bytes, model_header* h) noexcept;

// peek, then the weights into theta[0, d) (buffer_too_small when theta is shorter), converted to T
// (binary64 weights round to nearest as float). out_of_range when a weight is not finite in T.
template <class T>
[[nodiscard]] status decode_model_broadcast(span<const unsigned char> bytes, model_header* h, span<T> theta) noexcept;

// SipHash-2-4 of the whole broadcast (CRC included) under the 16-byte ASCII key "ldpkit model v01".
[[nodiscard]] uint64_t model_broadcast_digest(span<const unsigned char> bytes) noexcept;

}  // namespace ldp::wire

#endif
