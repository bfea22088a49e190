// What the server-side fuzz targets share (fuzz_state, fuzz_create, fuzz_add_batch,
// fuzz_batch_stream): the trap that makes a broken property a finding, the memory ceiling they run
// the server under, and which states are cheap enough to estimate.
#ifndef LDP_TESTS_FUZZ_SERVER_H
#define LDP_TESTS_FUZZ_SERVER_H

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "ldp/server/aggregator.h"
#include "ldp/wire.h"

namespace ldp::fuzz {

inline void require(bool condition) {
  if (!condition) __builtin_trap();
}

// The targets create aggregators under this ceiling and libFuzzer runs with -rss_limit_mb=2048
// (scripts/test.sh): an aggregator, its serialization and a reloaded copy fit 3 x 256 MiB, so an
// RSS overrun means memory the contract does not allow (docs/security_model.md "Memory contract").
inline constexpr server::limits limits{uint64_t{256} << 20};

// Estimation is not run on every state that loads. Its cost is a function of the parameter block
// (d items of a sketch whatever its size, n x d hash evaluations for local hashing), and a block
// is what the operator configured or accepted: the server's own trusted state. deserialize() is
// the part that sees untrusted bytes, and it allocates nothing a block could size before checking
// the body is as long as the counts it claims. So a fuzzed block with d = 2^32 makes estimation
// legitimately slow, which would only make the fuzzer report timeouts that are not bugs.
inline constexpr uint64_t max_estimated_dimension = 4096;
inline constexpr uint64_t max_local_hashing_work = uint64_t{1} << 22;  // reports x items

inline bool cheap_to_estimate(const server::aggregator& a) {
  const wire::params& p = a.parameters();
  for (wire::field f : {wire::field::domain, wire::field::hadamard_dim, wire::field::vector_dim}) {
    if (p.get(f) > max_estimated_dimension) return false;
  }
  // A sketch hashes every item in every row: up to 65536 rows.
  if (p.get(wire::field::sketch_rows) * p.get(wire::field::domain) > max_local_hashing_work) return false;
  if (p.mech == wire::mechanism::blh || p.mech == wire::mechanism::olh) {
    return a.reports() <= max_local_hashing_work / std::max<uint64_t>(p.get(wire::field::domain), 1);
  }
  return true;
}

// What every aggregator must do whatever it was fed: its state reloads under the same ceiling to
// the same bytes (see the exception below), and (when cheap) it estimates.
inline void check_state(const server::aggregator& a) {
  const std::vector<unsigned char> state = a.serialize();
  require(!state.empty());
  std::unique_ptr<server::aggregator> back;
  if (server::aggregator::deserialize(state, limits, &back) == status::ok) {
    require(back->serialize() == state);
  } else {
    // Only a winsorized round-2 state saved before its window list arrived (set_windows) does not
    // load: its body has no list to count against.
    require(a.parameters().mech == wire::mechanism::winsorized_sums);
  }
  if (cheap_to_estimate(a)) static_cast<void>(a.estimate_all(0.95));
}

}  // namespace ldp::fuzz

#endif
