// Little-endian I/O of the state body (state_io.h).
#include "state_io.h"

#include <limits>

#include "ldp/base/bits.h"

namespace ldp::server::detail {

void put_u16(std::vector<unsigned char>& out, uint16_t v) {
  out.push_back(static_cast<unsigned char>(v));
  out.push_back(static_cast<unsigned char>(v >> 8));
}

void put_u32(std::vector<unsigned char>& out, uint32_t v) {
  unsigned char b[4];
  store_le32(b, v);
  out.insert(out.end(), b, b + 4);
}

void put_u64(std::vector<unsigned char>& out, uint64_t v) {
  unsigned char b[8];
  store_le64(b, v);
  out.insert(out.end(), b, b + 8);
}

void put_u64s(std::vector<unsigned char>& out, const std::vector<uint64_t>& values) {
  out.reserve(out.size() + 8 * values.size());
  for (uint64_t v : values) put_u64(out, v);
}

status read_u64s(span<const unsigned char> bytes, std::vector<uint64_t>& values) noexcept {
  if (bytes.size() / 8 != values.size() || bytes.size() % 8 != 0) return status::wrong_length;
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = load_le64(bytes.data() + 8 * i);
  return status::ok;
}

bool cell_count(uint64_t cells, std::size_t* out) noexcept {
  // Twice the cells must fit: merging and decoding copy a count array.
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<std::size_t>::max() / 16);
  if (cells > limit) return false;
  *out = static_cast<std::size_t>(cells);
  return true;
}

}  // namespace ldp::server::detail
