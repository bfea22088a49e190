// Bounds-checked byte cursors shared by the report, batch and state codecs. A reader never reads
// past its end: the first failure sticks in `error` and every later read returns 0.
#ifndef LDP_WIRE_SRC_CODEC_H
#define LDP_WIRE_SRC_CODEC_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"

namespace ldp::wire::detail {

struct writer {
  unsigned char* at;
  unsigned char* end;
  bool overflow = false;

  explicit writer(span<unsigned char> out) : at(out.data()), end(out.data() + out.size()) {}

  void put_le(uint64_t v, std::size_t bytes) {
    if (static_cast<std::size_t>(end - at) < bytes) {
      overflow = true;
      return;
    }
    for (std::size_t i = 0; i < bytes; ++i) *at++ = static_cast<unsigned char>(v >> (8 * i));
  }
  void put_bytes(span<const unsigned char> b) {
    if (static_cast<std::size_t>(end - at) < b.size()) {
      overflow = true;
      return;
    }
    for (unsigned char c : b) *at++ = c;
  }
  // LEB128: 7 bits per byte, least significant group first, high bit set on all but the last.
  void put_uvarint(uint64_t v) {
    while (v >= 0x80) {
      put_le((v & 0x7f) | 0x80, 1);
      v >>= 7;
    }
    put_le(v, 1);
  }
  // Zigzag maps 0, -1, 1, -2, ... to 0, 1, 2, 3, ... so small magnitudes stay short.
  void put_varint(int64_t v) {
    put_uvarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
};

struct reader {
  const unsigned char* at;
  const unsigned char* end;
  status error = status::ok;

  explicit reader(span<const unsigned char> in) : at(in.data()), end(in.data() + in.size()) {}

  std::size_t left() const { return static_cast<std::size_t>(end - at); }
  void fail(status s) {
    if (error == status::ok) error = s;
  }
  uint64_t get_le(std::size_t bytes) {
    if (error != status::ok) return 0;
    if (left() < bytes) {
      fail(status::wrong_length);
      return 0;
    }
    uint64_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i) v |= uint64_t{*at++} << (8 * i);
    return v;
  }
  span<const unsigned char> get_bytes(std::size_t n) {
    if (error != status::ok) return {};
    if (left() < n) {
      fail(status::wrong_length);
      return {};
    }
    const span<const unsigned char> out(at, n);
    at += n;
    return out;
  }
  // Canonical LEB128 only: at most 10 bytes, no trailing zero groups, nothing above bit 63.
  uint64_t get_uvarint() {
    uint64_t v = 0;
    for (int i = 0; i < 10; ++i) {
      const uint64_t b = get_le(1);
      if (error != status::ok) return 0;
      if (i == 9 && b > 1) break;
      v |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        if (b == 0 && i > 0) break;  // an overlong encoding
        return v;
      }
    }
    fail(status::malformed_report);
    return 0;
  }
  int64_t get_varint() {
    const uint64_t z = get_uvarint();
    return static_cast<int64_t>((z >> 1) ^ (0 - (z & 1)));
  }
};

// The 4-byte magic of a batch or state file.
inline bool is_magic(span<const unsigned char> got, const unsigned char (&want)[4]) {
  if (got.size() != 4) return false;
  for (int i = 0; i < 4; ++i) {
    if (got[i] != want[i]) return false;
  }
  return true;
}

}  // namespace ldp::wire::detail

#endif
