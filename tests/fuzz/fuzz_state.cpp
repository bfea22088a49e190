// libFuzzer target for saved aggregator state (docs/wire_format.md section 7; the body layout in
// lib/server/src/aggregator.cpp). Input: a state BODY. The harness puts a correct state header
// in front of it (mechanism and fingerprint of the parameter block the body starts with, body
// length and both CRC32C), so the fuzzer spends its time past the checksums, in the body's
// fields and the families' invariants. What loads must behave like a state the server wrote:
//   - serialize() gives back exactly the input;
//   - merging a copy into it is ok or overflow, never a crash, and the merged state loads again;
//   - estimate_all() runs (within the cost bound below);
//   - payloads and reports taken from the input's tail are ingested or rejected, and the state
//     still round-trips afterwards.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fuzz_server.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire.h"

namespace {

using ldp::status;
using ldp::fuzz::cheap_to_estimate;
using ldp::fuzz::require;
using ldp::server::aggregator;
using ldp::wire::mechanism;
using bytes = std::vector<unsigned char>;

bytes with_header(mechanism m, uint64_t fingerprint, const bytes& body) {
  bytes file(ldp::wire::state_header_size);
  require(ldp::wire::encode_state_header(m, fingerprint, body, file) == status::ok);
  file.insert(file.end(), body.begin(), body.end());
  return file;
}

std::unique_ptr<aggregator> load(const bytes& file) {
  std::unique_ptr<aggregator> a;
  require(aggregator::deserialize(file, &a) == status::ok && a != nullptr);
  return a;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bytes body(data, data + size);  // exact bounds for AddressSanitizer

  // The header names the block's mechanism and fingerprint. A block that does not decode gets
  // grr and fingerprint 0 (encode_state_header refuses mechanism 0): deserialize() then gets past
  // the header and must reject the block itself.
  mechanism m = mechanism::grr;
  uint64_t fp = 0;
  if (size >= 2) {
    const std::size_t block_size = data[0] | std::size_t{data[1]} << 8;
    ldp::wire::params p;
    if (size - 2 >= block_size &&
        ldp::wire::decode_params(ldp::span<const unsigned char>(data + 2, block_size), &p) == status::ok) {
      m = p.mech;
      fp = ldp::wire::fingerprint(p);
    }
  }
  const bytes file = with_header(m, fp, body);

  std::unique_ptr<aggregator> a;
  const status s = aggregator::deserialize(file, &a);
  if (s != status::ok) {
    require(a == nullptr);
    return 0;
  }
  require(a != nullptr && a->parameters().mech == m && a->fingerprint() == fp);
  require(a->serialize() == file);  // the body holds only canonical exact integers

  {
    std::unique_ptr<aggregator> twice = load(file);
    const status merged = twice->merge(*a);
    require(merged == status::ok || merged == status::overflow || merged == status::parameter_mismatch);
    if (merged == status::ok) {
      require(twice->reports() == 2 * a->reports());
      static_cast<void>(load(twice->serialize()));  // what the server writes, it reads back
    } else {
      require(twice->serialize() == file);  // a refused merge changes nothing
    }
  }

  if (cheap_to_estimate(*a)) static_cast<void>(a->estimate_all(0.95));

  // Ingestion after a load: the last few bytes as a payload (small payloads such as an index or a
  // value decode often) and as a full report (rejected unless it carries the header).
  for (std::size_t k = 1; k <= std::min<std::size_t>(size, 8); ++k) {
    const ldp::span<const unsigned char> tail(body.data() + size - k, k);
    static_cast<void>(a->add_payload(tail));
    static_cast<void>(a->add_report(tail));
  }
  const bytes after = a->serialize();
  require(load(after)->serialize() == after);
  return 0;
}
