#include "batch_io.h"

#include "errors.h"
#include "ldp/base/bits.h"
#include "ldp/wire/report.h"

namespace ldp::tools {
namespace {

constexpr std::size_t fixed_header = 8;   // magic, version, flags, block length
constexpr std::size_t header_trailer = 12;  // fingerprint, CRC32C

}  // namespace

std::vector<unsigned char> batch_header(const wire::params& p) {
  std::vector<unsigned char> header(fixed_header + wire::params_max_size + header_trailer);
  std::size_t written = 0;
  const status s = wire::encode_batch_header(p, header, &written);
  if (s != status::ok) fail("internal: cannot encode the batch header: {}", describe(s));
  header.resize(written);
  return header;
}

std::vector<unsigned char> batch_terminator() {
  std::vector<unsigned char> bytes(wire::chunk_header_size + wire::chunk_trailer_size);
  wire::chunk_writer writer(bytes);
  const std::size_t size = writer.finish().size();
  bytes.resize(size);
  return bytes;
}

batch_aggregator::batch_aggregator(server::aggregator& agg, const wire::params& p)
    : agg_(agg), header_(batch_header(p)), terminator_(batch_terminator()) {}

void batch_aggregator::add(span<const unsigned char> chunks) {
  buffer_.assign(header_.begin(), header_.end());
  buffer_.insert(buffer_.end(), chunks.begin(), chunks.end());
  buffer_.insert(buffer_.end(), terminator_.begin(), terminator_.end());
  const status s = agg_.add_batch(buffer_);
  if (s != status::ok) fail("internal: simulated chunks did not aggregate: {}", describe(s));
}

batch_stream::batch_stream(input_file& in) : in_(in) {
  in_.read_append(fixed_header, buffer_);
  if (buffer_.size() == fixed_header) {
    const std::size_t block = static_cast<std::size_t>(buffer_[6]) | static_cast<std::size_t>(buffer_[7]) << 8;
    in_.read_append(block + header_trailer, buffer_);
  }
  wire::batch_reader reader;
  const status s = reader.open(buffer_);
  if (s != status::ok) fail("{} is not a readable batch: the header is {}", in_.path(), describe(s));
  header_size_ = buffer_.size();
  params_ = reader.parameters();
  fingerprint_ = reader.fingerprint();
}

bool batch_stream::next() {
  if (ended_) return false;
  buffer_.resize(header_size_);
  complete_ = terminator_ = false;
  ++chunks_;
  if (in_.read_append(wire::chunk_header_size, buffer_) < wire::chunk_header_size) {
    ended_ = true;  // truncated: the reader reports it
    return true;
  }
  const unsigned char* head = buffer_.data() + header_size_;
  const uint32_t records = load_le32(head), body = load_le32(head + 4);
  if (body > wire::max_chunk_body) {
    ended_ = true;  // malformed: the next chunk cannot be located
    return true;
  }
  const std::size_t rest = body + wire::chunk_trailer_size;
  complete_ = in_.read_append(rest, buffer_) == rest;
  terminator_ = records == 0 && body == 0;
  if (!complete_ || terminator_) {
    ended_ = true;
    if (complete_) in_.read_append(1, buffer_);  // anything after the terminator is an error
  }
  return true;
}

span<const unsigned char> batch_stream::as_batch() {
  if (complete_ && !terminator_) {
    buffer_.insert(buffer_.end(), terminator_bytes_.begin(), terminator_bytes_.end());
    complete_ = false;  // once
  }
  return buffer_;
}

}  // namespace ldp::tools
