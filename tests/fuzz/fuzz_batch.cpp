// libFuzzer target for the batch reader. Input: a whole batch. Reads it the way a server does:
// every chunk until the terminator or a status that ends the reading, skipping chunks whose
// checksum fails, and decodes every record of the good chunks with the batch's parameters.
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
    if (kind == payload_kind::fixed_vector) require(ldp::wire::read_vector(r, values) == status::ok);
    if (kind == payload_kind::sparse_pairs) {
      require(ldp::wire::read_sparse(p, r, indices, values) == status::ok);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<unsigned char> bytes(data, data + size);  // exact bounds for AddressSanitizer
  ldp::wire::batch_reader reader;
  if (reader.open(bytes) != status::ok) {
    require(reader.done());
    return 0;
  }
  require(reader.fingerprint() == ldp::wire::fingerprint(reader.parameters()));
  std::size_t consumed = 0;
  while (!reader.done()) {
    ldp::wire::chunk_view chunk;
    const status s = reader.next_chunk(&chunk);
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
  return 0;
}
