#include "ldp/wire/state.h"

#include "codec.h"
#include "framing.h"
#include "ldp/wire/checksum.h"

namespace ldp::wire {

using detail::reader;
using detail::writer;

status encode_state_header(mechanism m, uint64_t fp, span<const unsigned char> body, span<unsigned char> out) noexcept {
  if (!is_known(m)) return status::unknown_mechanism;
  if (out.size() < state_header_size) return status::buffer_too_small;
  writer w(out);
  w.put_bytes(state_magic);
  w.put_le(state_version, 1);
  w.put_le(static_cast<uint8_t>(m), 1);
  w.put_le(0, 2);  // reserved
  w.put_le(fp, 8);
  w.put_le(body.size(), 8);
  w.put_le(crc32c(body), 4);
  w.put_le(crc32c(out.first(state_header_size - 4)), 4);
  return status::ok;
}

namespace detail {

status read_state_header(span<const unsigned char> header, state_header* out) noexcept {
  reader in(header);
  const span<const unsigned char> magic = in.get_bytes(4);
  const uint64_t version = in.get_le(1);
  const auto mech = static_cast<mechanism>(in.get_le(1));
  const uint64_t reserved = in.get_le(2);
  state_header h;
  h.fingerprint = in.get_le(8);
  h.body_size = in.get_le(8);
  h.body_crc = static_cast<uint32_t>(in.get_le(4));
  const uint64_t header_crc = in.get_le(4);
  if (in.error != status::ok) return in.error;
  if (!is_magic(magic, state_magic)) return status::malformed_report;
  if (version != state_version) return status::unsupported_version;
  if (reserved != 0) return status::reserved_bits_set;
  if (header_crc != crc32c(header.first(state_header_size - 4))) return status::checksum_mismatch;
  if (!is_known(mech)) return status::unknown_mechanism;
  h.mech = mech;
  *out = h;
  return status::ok;
}

}  // namespace detail

status decode_state(span<const unsigned char> file, state_header* out, span<const unsigned char>* body) noexcept {
  *out = state_header{};
  *body = {};
  state_header h;
  const status s = detail::read_state_header(file, &h);
  if (s != status::ok) return s;
  if (h.body_size != file.size() - state_header_size) return status::wrong_length;
  const span<const unsigned char> b = file.subspan(state_header_size);
  if (crc32c(b) != h.body_crc) return status::checksum_mismatch;
  *out = h;
  *body = b;
  return status::ok;
}

}  // namespace ldp::wire
