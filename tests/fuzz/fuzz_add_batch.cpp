// libFuzzer target for aggregator::add_batch on an untrusted batch (issue 21: a header sizes the
// aggregator; a damaged chunk's record count is untrusted). Input: a whole batch. Its header's
// block creates the aggregator under the fuzz ceiling (fuzz_server.h); the batch is then counted
// whole. Damaged chunks are counted as chunks (at most one per chunk header in the input), never
// as rejected reports, and the state reloads to the same bytes.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fuzz_server.h"

using ldp::status;
using ldp::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<unsigned char> bytes(data, data + size);  // exact bounds for AddressSanitizer
  ldp::wire::batch_reader reader;
  if (reader.open(bytes) != status::ok) return 0;
  std::unique_ptr<ldp::server::aggregator> a;
  if (ldp::server::aggregator::create(reader.parameters(), ldp::fuzz::limits, &a) != status::ok) return 0;
  const status s = a->add_batch(bytes);
  require(s != status::limit_exceeded && s != status::checksum_mismatch);
  require(a->damaged_chunks() <= size / (ldp::wire::chunk_header_size + ldp::wire::chunk_trailer_size));
  for (std::size_t i = 0; i < a->rejected().size(); ++i) {
    // A report is rejected at most once: the counters cannot pass the records the input can hold
    // (a record is at least two bytes), which a trusted damaged count would (2^31 from one bit).
    if (i != 0) require(a->rejected()[i] <= size);
  }
  ldp::fuzz::check_state(*a);
  return 0;
}
