// libFuzzer target for the batch reader. Input: a whole batch. Reads it the way a server does:
// every chunk until the terminator or a status that ends the reading, skipping chunks whose
// checksum fails, and decodes every record of the good chunks with the batch's parameters. Then
// feeds it to the streaming reader in pieces (their size taken from the input's first byte),
// which must meet the same chunks and end on the same status.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ldp/wire.h"

namespace {

using ldp::status;
using ldp::wire::payload_kind;

void require(bool condition) {
  if (!condition) __builtin_trap();
}

void decode_records(const ldp::wire::params& p, const ldp::wire::chunk_view& chunk) {
  ldp::wire::record_cursor cursor(chunk);
  const payload_kind kind = ldp::wire::kind_of(p.mech);
  for (;;) {
    ldp::span<const unsigned char> payload;
    const uint32_t before = cursor.remaining();
    if (cursor.next(&payload) != status::ok || payload.empty()) return;
    require(cursor.remaining() == before - 1);
    require(payload.data() >= chunk.body.data() &&
            payload.data() + payload.size() <= chunk.body.data() + chunk.body.size());
    ldp::wire::report r;
    if (ldp::wire::decode_payload(p, payload, &r) != status::ok) continue;
    std::vector<int64_t> values(r.count);
    std::vector<uint32_t> indices(r.count);
    if (ldp::wire::is_vector_payload(kind)) {
      require(ldp::wire::read_vector(r, values) == status::ok);
    }
    if (kind == payload_kind::sparse_pairs) {
      require(ldp::wire::read_sparse(p, r, indices, values) == status::ok);
    }
  }
}

// The statuses of the chunks the streaming reader meets, and the one that ends its reading.
std::vector<status> stream_statuses(const std::vector<unsigned char>& bytes) {
  static std::vector<unsigned char> buffer(ldp::wire::batch_stream_buffer_size);
  ldp::wire::batch_stream_reader reader(buffer);
  const std::size_t piece = bytes.empty() ? 1 : bytes[0] % 16 + 1;
  std::vector<status> out;
  ldp::span<const unsigned char> rest(bytes);
  while (!reader.ended()) {
    const ldp::wire::batch_step step =
        rest.empty() ? reader.finish() : reader.feed(rest.first(piece < rest.size() ? piece : rest.size()));
    rest = rest.subspan(step.used);
    if (step.event == ldp::wire::batch_event::chunk || step.result != status::ok) out.push_back(step.result);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<unsigned char> bytes(data, data + size);  // exact bounds for AddressSanitizer
  ldp::wire::batch_reader reader;
  const status opened = reader.open(bytes);
  std::vector<status> statuses;  // as stream_statuses() reports them
  if (opened != status::ok) {
    require(reader.done());
    require(stream_statuses(bytes) == std::vector<status>{opened});
    return 0;
  }
  require(reader.fingerprint() == ldp::wire::fingerprint(reader.parameters()));
  std::size_t consumed = 0;
  while (!reader.done()) {
    ldp::wire::chunk_view chunk;
    const status s = reader.next_chunk(&chunk);
    statuses.push_back(s);
    // Bytes after the terminator: the stream reader reads the terminator (ok), then meets them.
    if (s == status::wrong_length && chunk.size != 0) statuses.insert(statuses.end() - 1, status::ok);
    if (s == status::checksum_mismatch) {
      require(chunk.size >= ldp::wire::chunk_header_size + ldp::wire::chunk_trailer_size);
      consumed += chunk.size;
      continue;  // that chunk is lost, the next one can still be read
    }
    if (s != status::ok) {
      require(reader.done());  // wrong_length and malformed_report end the reading
      break;
    }
    consumed += chunk.size;
    if (chunk.records == 0) {
      require(reader.done());
      break;
    }
    decode_records(reader.parameters(), chunk);
  }
  require(consumed <= size);
  require(stream_statuses(bytes) == statuses);
  return 0;
}
