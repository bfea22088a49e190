#include "ldp/wire/batch.h"

#include "codec.h"
#include "ldp/wire/checksum.h"

namespace ldp::wire {

using detail::reader;
using detail::writer;

status encode_batch_header(const params& p, span<unsigned char> out, std::size_t* written) noexcept {
  *written = 0;
  unsigned char block[params_max_size];
  std::size_t block_size = 0;
  const status s = encode_params(p, block, &block_size);
  if (s != status::ok) return s;
  writer w(out);
  w.put_bytes(batch_magic);
  w.put_le(batch_version, 1);
  w.put_le(0, 1);  // flags, reserved
  w.put_le(block_size, 2);
  w.put_bytes(span<const unsigned char>(block, block_size));
  w.put_le(fingerprint(p), 8);
  if (w.overflow) return status::buffer_too_small;
  const std::size_t size = static_cast<std::size_t>(w.at - out.data());
  w.put_le(crc32c(out.first(size)), 4);
  if (w.overflow) return status::buffer_too_small;
  *written = size + 4;
  return status::ok;
}

std::size_t record_prefix(std::size_t payload_size, unsigned char out[10]) noexcept {
  writer w{span<unsigned char>(out, 10)};
  w.put_uvarint(payload_size);
  return static_cast<std::size_t>(w.at - out);
}

status chunk_writer::add(span<const unsigned char> payload) noexcept {
  if (payload.empty()) return status::invalid_argument;
  unsigned char prefix[10];
  const std::size_t prefix_size = record_prefix(payload.size(), prefix);
  const std::size_t body = body_ + prefix_size + payload.size();
  if (body > max_chunk_body) return status::invalid_argument;
  if (out_.size() < chunk_header_size + body + chunk_trailer_size) return status::buffer_too_small;
  writer w(out_.subspan(chunk_header_size + body_));
  w.put_bytes(span<const unsigned char>(prefix, prefix_size));
  w.put_bytes(payload);
  body_ = body;
  ++records_;
  return status::ok;
}

span<const unsigned char> chunk_writer::finish() noexcept {
  const std::size_t size = chunk_header_size + body_ + chunk_trailer_size;
  if (out_.size() < size) return {};
  writer w(out_);
  w.put_le(records_, 4);
  w.put_le(body_, 4);
  writer tail(out_.subspan(chunk_header_size + body_));
  tail.put_le(crc32c(out_.first(chunk_header_size + body_)), 4);
  return out_.first(size);
}

status batch_reader::open(span<const unsigned char> bytes, crc32c_fn chunk_crc) noexcept {
  done_ = true;
  crc_ = chunk_crc;
  reader in(bytes);
  const span<const unsigned char> magic = in.get_bytes(4);
  const uint64_t version = in.get_le(1);
  const uint64_t flags = in.get_le(1);
  const uint64_t block_size = in.get_le(2);
  if (in.error != status::ok) return in.error;
  if (!detail::is_magic(magic, batch_magic)) return status::malformed_report;
  if (version != batch_version) return status::unsupported_version;
  if (flags != 0) return status::reserved_bits_set;
  const span<const unsigned char> block = in.get_bytes(static_cast<std::size_t>(block_size));
  const uint64_t fp = in.get_le(8);
  const std::size_t covered = static_cast<std::size_t>(in.at - bytes.data());
  const uint64_t crc = in.get_le(4);
  if (in.error != status::ok) return in.error;
  if (crc != crc32c(bytes.first(covered))) return status::checksum_mismatch;
  params p;
  const status s = decode_params(block, &p);
  if (s != status::ok) return s;
  if (fp != wire::fingerprint(p)) return status::parameter_mismatch;
  params_ = p;
  fingerprint_ = fp;
  rest_ = bytes.subspan(covered + 4);
  done_ = false;
  return status::ok;
}

status batch_reader::next_chunk(chunk_view* out) noexcept {
  *out = chunk_view{};
  if (done_) return status::invalid_argument;
  reader in(rest_);
  const uint64_t records = in.get_le(4);
  const uint64_t body_size = in.get_le(4);
  if (in.error != status::ok) {
    done_ = true;
    return in.error;  // a truncated batch: no terminator
  }
  if (body_size > max_chunk_body) {
    done_ = true;
    return status::malformed_report;
  }
  const std::size_t size = chunk_header_size + static_cast<std::size_t>(body_size) + chunk_trailer_size;
  if (rest_.size() < size) {
    done_ = true;
    return status::wrong_length;
  }
  out->records = static_cast<uint32_t>(records);
  out->size = size;
  const span<const unsigned char> covered = rest_.first(size - chunk_trailer_size);
  const uint32_t crc = static_cast<uint32_t>(reader(rest_.subspan(covered.size())).get_le(4));
  rest_ = rest_.subspan(size);
  const uint32_t actual = crc_ != nullptr ? crc_(0, covered.data(), covered.size()) : crc32c(covered);
  if (crc != actual) return status::checksum_mismatch;
  if (records == 0) {
    done_ = true;
    if (body_size != 0) return status::malformed_report;
    if (!rest_.empty()) return status::wrong_length;  // bytes after the terminator
    return status::ok;
  }
  out->body = covered.subspan(chunk_header_size);
  return status::ok;
}

status record_cursor::next(span<const unsigned char>* payload) noexcept {
  *payload = {};
  if (left_ == 0) return rest_.empty() ? status::ok : status::wrong_length;
  reader in(rest_);
  const uint64_t size = in.get_uvarint();
  if (in.error != status::ok || size == 0 || size > in.left()) {
    left_ = 0;
    rest_ = {};
    return status::malformed_report;
  }
  *payload = span<const unsigned char>(in.at, static_cast<std::size_t>(size));
  rest_ = span<const unsigned char>(in.at + size, in.left() - static_cast<std::size_t>(size));
  --left_;
  return status::ok;
}

}  // namespace ldp::wire
