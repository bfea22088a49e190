#include "ldp/wire/batch.h"

#include <algorithm>

#include "codec.h"
#include "framing.h"
#include "ldp/wire/checksum.h"

namespace ldp::wire {

using detail::reader;
using detail::writer;

namespace {

// A chunk's CRC32C with the caller's function, or the portable one when it gives none.
uint32_t chunk_crc(crc32c_fn crc, span<const unsigned char> covered) noexcept {
  return crc != nullptr ? crc(0, covered.data(), covered.size()) : crc32c(covered);
}

}  // namespace

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
  tail.put_le(chunk_crc(crc_, out_.first(chunk_header_size + body_)), 4);
  return out_.first(size);
}

namespace detail {

status read_batch_prefix(span<const unsigned char> prefix, std::size_t* header_size) noexcept {
  reader in(prefix);
  const span<const unsigned char> magic = in.get_bytes(4);
  const uint64_t version = in.get_le(1);
  const uint64_t flags = in.get_le(1);
  const uint64_t block_size = in.get_le(2);
  if (in.error != status::ok) return in.error;
  if (!is_magic(magic, batch_magic)) return status::malformed_report;
  if (version != batch_version) return status::unsupported_version;
  if (flags != 0) return status::reserved_bits_set;
  *header_size = batch_header_size(static_cast<std::size_t>(block_size));
  return status::ok;
}

status read_batch_header(span<const unsigned char> header, params* p, uint64_t* fp) noexcept {
  const std::size_t block_size = header.size() - batch_header_size(0);
  const std::size_t covered = header.size() - 4;
  reader in(header.subspan(batch_prefix_size + block_size));
  const uint64_t got_fp = in.get_le(8);
  const uint64_t crc = in.get_le(4);
  if (crc != crc32c(header.first(covered))) return status::checksum_mismatch;
  params decoded;
  const status s = decode_params(header.subspan(batch_prefix_size, block_size), &decoded);
  if (s != status::ok) return s;
  if (got_fp != wire::fingerprint(decoded)) return status::parameter_mismatch;
  *p = decoded;
  *fp = got_fp;
  return status::ok;
}

status read_chunk_header(span<const unsigned char> head, uint32_t* records, std::size_t* size) noexcept {
  reader in(head);
  const uint64_t count = in.get_le(4);
  const uint64_t body_size = in.get_le(4);
  if (in.error != status::ok) return in.error;
  if (body_size > max_chunk_body) return status::malformed_report;
  *records = static_cast<uint32_t>(count);
  *size = chunk_header_size + static_cast<std::size_t>(body_size) + chunk_trailer_size;
  return status::ok;
}

status read_chunk(span<const unsigned char> chunk, crc32c_fn crc, chunk_view* out) noexcept {
  *out = chunk_view{};
  reader in(chunk);
  out->records = static_cast<uint32_t>(in.get_le(4));
  const uint64_t body_size = in.get_le(4);
  out->size = chunk.size();
  const span<const unsigned char> covered = chunk.first(chunk.size() - chunk_trailer_size);
  const uint32_t want = static_cast<uint32_t>(reader(chunk.subspan(covered.size())).get_le(4));
  if (want != chunk_crc(crc, covered)) return status::checksum_mismatch;
  if (out->records == 0) return body_size == 0 ? status::ok : status::malformed_report;
  out->body = covered.subspan(chunk_header_size);
  return status::ok;
}

}  // namespace detail

status batch_reader::open(span<const unsigned char> bytes, crc32c_fn chunk_crc) noexcept {
  done_ = true;
  crc_ = chunk_crc;
  if (bytes.size() < batch_prefix_size) return status::wrong_length;
  std::size_t header_size = 0;
  status s = detail::read_batch_prefix(bytes, &header_size);
  if (s != status::ok) return s;
  if (bytes.size() < header_size) return status::wrong_length;
  s = detail::read_batch_header(bytes.first(header_size), &params_, &fingerprint_);
  if (s != status::ok) return s;
  rest_ = bytes.subspan(header_size);
  done_ = false;
  return status::ok;
}

status batch_reader::next_chunk(chunk_view* out) noexcept {
  *out = chunk_view{};
  if (done_) return status::invalid_argument;
  uint32_t records = 0;
  std::size_t size = 0;
  // A header cut short is a truncated batch (no terminator); a chunk running past the input too.
  status s =
      rest_.size() < chunk_header_size ? status::wrong_length : detail::read_chunk_header(rest_, &records, &size);
  if (s == status::ok && rest_.size() < size) s = status::wrong_length;
  if (s != status::ok) {
    done_ = true;
    return s;
  }
  s = detail::read_chunk(rest_.first(size), crc_, out);
  rest_ = rest_.subspan(size);
  if (s == status::checksum_mismatch || out->records != 0) return s;
  done_ = true;  // the terminator
  if (s != status::ok) return s;
  return rest_.empty() ? status::ok : status::wrong_length;  // bytes after the terminator
}

std::size_t batch_stream_reader::wanted() const noexcept {
  switch (stage_) {
    case stage::ended: return 0;
    case stage::trailer: return 1;
    case stage::prefix:
    case stage::header:
    case stage::chunk_header:
    case stage::chunk: break;
  }
  return need_ - have_;
}

batch_step batch_stream_reader::feed(span<const unsigned char> in) noexcept {
  batch_step step;
  if (stage_ == stage::ended) return step;
  if (stage_ == stage::trailer) {
    if (in.empty()) return step;
    step.used = 1;
    return stop(batch_event::end, status::wrong_length, step);  // bytes after the terminator
  }
  if (base() + need_ > buffer_.size()) {
    const bool header = stage_ == stage::prefix || stage_ == stage::header;
    return stop(header ? batch_event::header : batch_event::chunk, status::buffer_too_small, step);
  }
  const std::size_t take = in.size() < need_ - have_ ? in.size() : need_ - have_;
  unsigned char* at = buffer_.data() + base() + have_;
  for (std::size_t i = 0; i < take; ++i) at[i] = in[i];
  have_ += take;
  step.used = take;
  return have_ == need_ ? complete(step) : step;
}

batch_step batch_stream_reader::finish() noexcept {
  if (stage_ == stage::ended) return {};
  return stop(batch_event::end, stage_ == stage::trailer ? status::ok : status::wrong_length, {});
}

batch_step batch_stream_reader::complete(batch_step step) noexcept {
  const span<const unsigned char> piece(buffer_.data() + base(), need_);
  switch (stage_) {
    case stage::prefix: {
      std::size_t header_size = 0;
      const status s = detail::read_batch_prefix(piece, &header_size);
      if (s != status::ok) return stop(batch_event::header, s, step);
      return expect(stage::header, header_size, step);
    }
    case stage::header: {
      const status s = detail::read_batch_header(piece, &params_, &fingerprint_);
      if (s != status::ok) return stop(batch_event::header, s, step);
      header_size_ = need_;
      step.event = batch_event::header;
      next_chunk();
      return step;
    }
    case stage::chunk_header: {
      chunk_ = chunk_view{};
      std::size_t size = 0;
      const status s = detail::read_chunk_header(piece, &chunk_.records, &size);
      if (s != status::ok) {
        chunk_bytes_ = piece;
        return stop(batch_event::chunk, s, step);
      }
      chunk_.size = size;
      return expect(stage::chunk, size, step);
    }
    case stage::chunk: {
      step.event = batch_event::chunk;
      step.result = detail::read_chunk(piece, crc_, &chunk_);
      chunk_bytes_ = piece;
      if (step.result == status::checksum_mismatch || chunk_.records != 0) {
        next_chunk();
        return step;
      }
      terminated_ = step.result == status::ok;
      stage_ = terminated_ ? stage::trailer : stage::ended;  // else a terminator with a body
      return step;
    }
    case stage::trailer:
    case stage::ended: break;
  }
  return step;
}

batch_step batch_stream_reader::expect(stage rest, std::size_t size, batch_step step) noexcept {
  const batch_event event = rest == stage::header ? batch_event::header : batch_event::chunk;
  stage_ = rest;
  need_ = size;
  return base() + need_ > buffer_.size() ? stop(event, status::buffer_too_small, step) : step;
}

void batch_stream_reader::next_chunk() noexcept {
  stage_ = stage::chunk_header;
  have_ = 0;
  need_ = chunk_header_size;
}

batch_step batch_stream_reader::stop(batch_event event, status result, batch_step step) noexcept {
  stage_ = stage::ended;
  step.event = event;
  step.result = result;
  return step;
}

status record_cursor::next(span<const unsigned char>* payload) noexcept {
  *payload = {};
  if (left_ == 0) return rest_.empty() ? status::ok : status::wrong_length;
  reader in(rest_);
  const uint64_t size = in.get_uvarint();
  if (in.error != status::ok || size == 0 || size > in.left()) {
    lost_ = static_cast<uint32_t>(std::min<std::size_t>(left_, std::max<std::size_t>(rest_.size(), 1)));
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
