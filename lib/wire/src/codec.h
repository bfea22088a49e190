// The byte cursors of the report, batch and state codecs: the writer, and the reader, which is the
// public ldp/wire/byte_cursor.h (the server reads its state bodies with it too).
#ifndef LDP_WIRE_SRC_CODEC_H
#define LDP_WIRE_SRC_CODEC_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/byte_cursor.h"

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
  void put_varint(int64_t v) { put_uvarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
};

// The codecs read with the public cursor.
using reader = byte_reader;

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
