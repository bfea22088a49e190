// libFuzzer target for streamed aggregation, the path of `ldp aggregate` (tools/ldp/batch_io.cpp's
// batch_stream::add_to, which needs a file: here the same steps on memory). Input: a whole batch,
// fed to wire::batch_stream_reader in pieces (their size from the first byte); each chunk it
// completes is counted through add_batch as this header + the chunk + a terminator. While the
// framing reads, the result must be the state of add_batch on the whole input, byte for byte: the
// stream loses and invents nothing. The reader's buffer and the aggregator's ceiling bound memory.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fuzz_server.h"

using ldp::status;
using ldp::fuzz::require;
using bytes = std::vector<unsigned char>;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bytes input(data, data + size);  // exact bounds for AddressSanitizer
  static bytes buffer(ldp::wire::batch_stream_buffer_size);
  ldp::wire::batch_stream_reader reader(buffer);
  const std::size_t piece = size == 0 ? 1 : input[0] % 64 + 1;
  bytes terminator(ldp::wire::chunk_header_size + ldp::wire::chunk_trailer_size);
  ldp::wire::chunk_writer end(terminator);
  require(end.finish().size() == terminator.size());

  std::unique_ptr<ldp::server::aggregator> streamed;
  status ending = status::ok;
  ldp::span<const unsigned char> rest(input);
  while (!reader.ended()) {
    const ldp::wire::batch_step step =
        rest.empty() ? reader.finish() : reader.feed(rest.first(piece < rest.size() ? piece : rest.size()));
    rest = rest.subspan(step.used);
    if (step.event == ldp::wire::batch_event::header) {
      if (step.result != status::ok) return 0;
      if (ldp::server::aggregator::create(reader.parameters(), ldp::fuzz::limits, &streamed) != status::ok) return 0;
      continue;
    }
    if (step.event != ldp::wire::batch_event::chunk && step.result == status::ok) continue;
    if (step.result != status::ok && step.result != status::checksum_mismatch) {
      ending = step.result;
      break;
    }
    if (reader.terminated()) continue;
    bytes one(reader.header().begin(), reader.header().end());
    one.insert(one.end(), reader.chunk_bytes().begin(), reader.chunk_bytes().end());
    one.insert(one.end(), terminator.begin(), terminator.end());
    require(streamed->add_batch(one) == status::ok);
  }
  if (streamed == nullptr) return 0;
  std::unique_ptr<ldp::server::aggregator> whole;
  require(ldp::server::aggregator::create(streamed->parameters(), ldp::fuzz::limits, &whole) == status::ok);
  const status s = whole->add_batch(input);
  require((s == status::ok) == (ending == status::ok));
  if (s == status::ok) require(whole->serialize() == streamed->serialize());
  ldp::fuzz::check_state(*streamed);
  return 0;
}
