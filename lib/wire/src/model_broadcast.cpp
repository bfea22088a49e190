#include "ldp/wire/model_broadcast.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "ldp/base/bits.h"
#include "ldp/wire/checksum.h"

namespace ldp::wire {

namespace {

constexpr unsigned char model_key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 'm',
                                         'o', 'd', 'e', 'l', ' ', 'v', '0', '1'};

constexpr std::size_t crc_size = 4;

bool is_weight_format(uint32_t v) { return v == 1 || v == 2; }

std::size_t weight_bytes(weight_format f) { return f == weight_format::f32 ? 4 : 8; }

// Bit copies between the IEEE-754 types and their little-endian integer images (the wire's byte
// order is fixed; a target's is not).
uint32_t float_bits(float v) {
  uint32_t u = 0;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

uint64_t double_bits(double v) {
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

double weight_at(const unsigned char* at, weight_format f) {
  if (f == weight_format::f32) {
    const uint32_t u = load_le32(at);
    float v = 0;
    std::memcpy(&v, &u, sizeof v);
    return v;
  }
  const uint64_t u = load_le64(at);
  double v = 0;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

// True when w is finite and converts to a finite T (a double past the float range would not: the
// conversion itself is undefined behaviour, so it is refused before it is made).
template <class T>
bool representable(double w) {
  return std::isfinite(w) && (sizeof(T) == sizeof(double) || std::fabs(w) <= std::numeric_limits<float>::max());
}

}  // namespace

bool model_shape_valid(const model_shape& s) noexcept {
  if (!is_model_kind(static_cast<uint32_t>(s.kind))) return false;
  if (s.features < 1 || s.features > model_max_features) return false;
  const bool classes_ok =
      s.kind == model_kind::softmax ? s.classes >= 2 && s.classes <= model_max_classes : s.classes == 1;
  return classes_ok && model_dim(s) <= model_max_dim;
}

std::size_t model_broadcast_size(const model_header& h) noexcept {
  if (!model_shape_valid(h.shape) || !is_weight_format(static_cast<uint32_t>(h.format))) return 0;
  return model_broadcast_header_size + static_cast<std::size_t>(model_dim(h.shape)) * weight_bytes(h.format) + crc_size;
}

status encode_model_broadcast(const model_header& h, span<const double> theta, span<unsigned char> out,
                              std::size_t* written) noexcept {
  *written = 0;
  const std::size_t size = model_broadcast_size(h);
  if (size == 0 || theta.size() != model_dim(h.shape)) return status::invalid_argument;
  for (double w : theta) {
    const bool finite = h.format == weight_format::f32 ? representable<float>(w) : representable<double>(w);
    if (!finite) return status::invalid_argument;
  }
  if (out.size() < size) return status::buffer_too_small;
  unsigned char* o = out.data();
  std::memcpy(o, model_broadcast_magic, 4);
  o[4] = model_broadcast_version;
  o[5] = static_cast<unsigned char>(h.shape.kind);
  o[6] = static_cast<unsigned char>(h.format);
  o[7] = 0;
  store_le32(o + 8, h.shape.features);
  store_le32(o + 12, h.shape.classes);
  store_le64(o + 16, h.round);
  o += model_broadcast_header_size;
  for (double w : theta) {
    if (h.format == weight_format::f32) {
      store_le32(o, float_bits(static_cast<float>(w)));
      o += 4;
    } else {
      store_le64(o, double_bits(w));
      o += 8;
    }
  }
  store_le32(o, crc32c(span<const unsigned char>(out.data(), size - crc_size)));
  *written = size;
  return status::ok;
}

status peek_model_broadcast(span<const unsigned char> bytes, model_header* h) noexcept {
  *h = model_header{};
  if (bytes.size() < model_broadcast_header_size + crc_size) return status::wrong_length;
  const unsigned char* b = bytes.data();
  if (std::memcmp(b, model_broadcast_magic, 4) != 0) return status::malformed_report;
  if (b[4] != model_broadcast_version) return status::unsupported_version;
  if (b[7] != 0) return status::reserved_bits_set;
  if (!is_model_kind(b[5]) || !is_weight_format(b[6])) return status::invalid_parameters;
  model_header got;
  got.shape = model_shape{static_cast<model_kind>(b[5]), load_le32(b + 8), load_le32(b + 12)};
  got.format = static_cast<weight_format>(b[6]);
  got.round = load_le64(b + 16);
  const std::size_t size = model_broadcast_size(got);
  if (size == 0) return status::invalid_parameters;
  if (bytes.size() != size) return status::wrong_length;
  if (crc32c(span<const unsigned char>(b, size - crc_size)) != load_le32(b + size - crc_size)) {
    return status::checksum_mismatch;
  }
  *h = got;
  return status::ok;
}

template <class T>
status decode_model_broadcast(span<const unsigned char> bytes, model_header* h, span<T> theta) noexcept {
  model_header got;
  if (const status s = peek_model_broadcast(bytes, &got); s != status::ok) {
    *h = got;
    return s;
  }
  *h = model_header{};
  const auto d = static_cast<std::size_t>(model_dim(got.shape));
  if (theta.size() < d) return status::buffer_too_small;
  const std::size_t width = weight_bytes(got.format);
  const unsigned char* at = bytes.data() + model_broadcast_header_size;
  for (std::size_t i = 0; i < d; ++i, at += width) {
    const double w = weight_at(at, got.format);
    if (!representable<T>(w)) return status::out_of_range;
    theta[i] = static_cast<T>(w);
  }
  *h = got;
  return status::ok;
}

template status decode_model_broadcast<float>(span<const unsigned char>, model_header*, span<float>) noexcept;
template status decode_model_broadcast<double>(span<const unsigned char>, model_header*, span<double>) noexcept;

uint64_t model_broadcast_digest(span<const unsigned char> bytes) noexcept { return siphash24(model_key, bytes); }

}  // namespace ldp::wire
