// The one bounds-checked cursor over untrusted bytes, shared by the report, batch and state codecs
// (docs/wire_format.md: every integer little-endian, varints LEB128) and by the server's state bodies.
// It never reads past its end: the first failure sticks in `error` and every later read returns 0
// (or an empty span). Allocation- and exception-free, so device code may use it too.
#ifndef LDP_WIRE_BYTE_CURSOR_H
#define LDP_WIRE_BYTE_CURSOR_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"

namespace ldp::wire {

struct byte_reader {
  const unsigned char* at;
  const unsigned char* end;
  status error = status::ok;  // wrong_length on a read past the end, or what fail() recorded

  explicit byte_reader(span<const unsigned char> in) noexcept : at(in.data()), end(in.data() + in.size()) {}

  bool ok() const noexcept { return error == status::ok; }
  std::size_t left() const noexcept { return static_cast<std::size_t>(end - at); }
  // The bytes not read yet.
  span<const unsigned char> rest() const noexcept { return span<const unsigned char>(at, left()); }
  void fail(status s) noexcept {
    if (error == status::ok) error = s;
  }
  // An unsigned little-endian integer of `bytes` (at most 8) bytes.
  uint64_t get_le(std::size_t bytes) noexcept {
    if (error != status::ok) return 0;
    if (left() < bytes) {
      fail(status::wrong_length);
      return 0;
    }
    uint64_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i) v |= uint64_t{*at++} << (8 * i);
    return v;
  }
  span<const unsigned char> get_bytes(std::size_t n) noexcept {
    if (error != status::ok) return {};
    if (left() < n) {
      fail(status::wrong_length);
      return {};
    }
    const span<const unsigned char> out(at, n);
    at += n;
    return out;
  }
  // Canonical LEB128 only: at most 10 bytes, no trailing zero groups, nothing above bit 63
  // (malformed_report otherwise).
  uint64_t get_uvarint() noexcept {
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
  // Zigzag: 0, 1, 2, 3, ... map back to 0, -1, 1, -2, ...
  int64_t get_varint() noexcept {
    const uint64_t z = get_uvarint();
    return static_cast<int64_t>((z >> 1) ^ (0 - (z & 1)));
  }
};

}  // namespace ldp::wire

#endif
