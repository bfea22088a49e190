#include "batch_io.h"

#include <algorithm>

#include "errors.h"
#include "ldp/wire/report.h"
#include "ldp/wire/state.h"

namespace ldp::tools {
std::vector<unsigned char> batch_header(const wire::params& p) {
  std::vector<unsigned char> header(wire::batch_header_size(wire::params_max_size));
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

batch_stream::batch_stream(input_file& in)
    : in_(in),
      buffer_(new unsigned char[wire::batch_stream_buffer_size]),
      reader_(span<unsigned char>(buffer_.get(), wire::batch_stream_buffer_size)) {
  const wire::batch_step first = step();
  if (first.event != wire::batch_event::header || first.result != status::ok) {
    fail("{} is not a readable batch: the header is {}", in_.path(), describe(first.result));
  }
}

wire::batch_step batch_stream::step() {
  for (;;) {
    const std::size_t wanted = reader_.wanted();
    bytes_.clear();
    const std::size_t got = in_.read_append(wanted, bytes_);
    const wire::batch_step s = reader_.feed(bytes_);
    if (s.event != wire::batch_event::none) return s;
    if (got < wanted) return reader_.finish();
  }
}

bool batch_stream::next() {
  if (reader_.ended()) return false;
  if (!reader_.terminated()) ++chunks_;  // the chunk read next, or the one found missing
  const wire::batch_step s = step();
  status_ = s.result;
  return s.event == wire::batch_event::chunk || s.result != status::ok;
}

status batch_stream::add_to(server::aggregator& agg) {
  if (status_ != status::ok && status_ != status::checksum_mismatch) return status_;
  if (reader_.terminated()) return status::ok;
  const span<const unsigned char> header = reader_.header(), chunk = reader_.chunk_bytes();
  batch_.assign(header.begin(), header.end());
  batch_.insert(batch_.end(), chunk.begin(), chunk.end());
  batch_.insert(batch_.end(), terminator_.begin(), terminator_.end());
  return agg.add_batch(batch_);
}

void refuse_state_file(input_file& in) {
  std::vector<unsigned char> magic;
  in.read_append(4, magic);
  if (magic.size() == 4 && std::equal(magic.begin(), magic.end(), wire::state_magic)) {
    fail("{} is an aggregator state, not a batch: combine states with ldp merge", in.path());
  }
}

status count_batch(batch_stream& batch, server::aggregator& agg, const std::function<void(const batch_stream&)>& each) {
  while (batch.next()) {
    const status s = batch.add_to(agg);
    if (each) each(batch);
    if (s != status::ok) return s;
  }
  return status::ok;
}

}  // namespace ldp::tools
