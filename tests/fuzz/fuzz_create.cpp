// libFuzzer target for aggregator::create from an untrusted parameter block (issue 21: a 51-byte
// batch header asked for 4 GB). Input: [u16 LE block length][block][tail], the report corpus's
// layout. A block that decodes is given to create() under the fuzz ceiling (fuzz_server.h), which
// must refuse with limit_exceeded exactly when aggregator_bytes() passes it, and otherwise take
// the tail as a report and as payloads, then serialize, reload and estimate.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fuzz_server.h"

using ldp::status;
using ldp::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::vector<unsigned char> bytes(data, data + size);  // exact bounds for AddressSanitizer
  const std::size_t block_size = std::min<std::size_t>(bytes[0] | std::size_t{bytes[1]} << 8, size - 2);
  ldp::wire::params p;
  if (ldp::wire::decode_params(ldp::span<const unsigned char>(bytes.data() + 2, block_size), &p) != status::ok)
    return 0;
  std::unique_ptr<ldp::server::aggregator> a;
  const status s = ldp::server::aggregator::create(p, ldp::fuzz::limits, &a);
  uint64_t need = 0;
  const status sized = ldp::server::aggregator_bytes(p, &need);
  const bool too_large = sized == status::overflow || (sized == status::ok && need > ldp::fuzz::limits.max_state_bytes);
  require((s == status::limit_exceeded) == (sized != status::invalid_parameters && sized != status::unknown_mechanism &&
                                            ldp::wire::validate(p) == status::ok && too_large));
  if (s != status::ok) {
    require(a == nullptr);
    return 0;
  }
  const ldp::span<const unsigned char> tail(bytes.data() + 2 + block_size, size - 2 - block_size);
  static_cast<void>(a->add_report(tail));
  for (std::size_t k = 1; k <= std::min<std::size_t>(tail.size(), 8); ++k) {
    static_cast<void>(a->add_payload(tail.subspan(tail.size() - k)));
  }
  require(a->damaged_chunks() == 0);  // reports are not chunks
  ldp::fuzz::check_state(*a);
  return 0;
}
