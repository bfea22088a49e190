// One factory per frequency-oracle family (frequency_aggregator.cpp dispatches on them).
#ifndef LDP_SERVER_SRC_FACTORIES_H
#define LDP_SERVER_SRC_FACTORIES_H

#include <cstdint>
#include <memory>

#include "ldp/base/status.h"
#include "ldp/server/frequency.h"
#include "ldp/wire/params.h"
#include "state_io.h"
#include "support_model.h"

namespace ldp::server::detail {

// Each checks what validate() cannot (a block whose estimator divides by zero is
// invalid_parameters; a state too large for this target is overflow), then allocates (which may
// throw: frequency_aggregator::create catches).

using aggregator_ptr = std::unique_ptr<frequency_aggregator>;

// The factory of an aggregator over `cells` support counts with the implemented pure model (GRR,
// SUE, OUE: d cells; HR: K cells; FLH: k g cells).
template <class Aggregator>
status make_pure_aggregator(const wire::params& p, uint64_t cells, aggregator_ptr* out) {
  const support_model model = pure_model(p);
  if (model.degenerate()) return status::invalid_parameters;
  std::size_t size = 0;
  if (!cell_count(cells, &size)) return status::overflow;
  *out = std::make_unique<Aggregator>(p, size, model);
  return status::ok;
}

[[nodiscard]] status make_grr_aggregator(const wire::params& p, aggregator_ptr* out);         // grr.cpp
[[nodiscard]] status make_unary_aggregator(const wire::params& p, aggregator_ptr* out);       // unary.cpp
[[nodiscard]] status make_local_hash_aggregator(const wire::params& p, aggregator_ptr* out);  // local_hashing.cpp
[[nodiscard]] status make_flh_aggregator(const wire::params& p, aggregator_ptr* out);         // fast_local_hashing.cpp
[[nodiscard]] status make_hr_aggregator(const wire::params& p, aggregator_ptr* out);          // hadamard_response.cpp
[[nodiscard]] status make_sketch_aggregator(const wire::params& p, aggregator_ptr* out);      // sketch.cpp
[[nodiscard]] status make_dbitflip_aggregator(const wire::params& p, aggregator_ptr* out);    // dbitflip.cpp

// The length of a BLH/OLH state body for n reports over d items (local_hashing.cpp): 12 n bytes for
// the sorted list while that is shorter than the 8 d bytes of the counts, otherwise 8 d
// (docs/wire_format.md 7.1). Never wraps.
[[nodiscard]] uint64_t local_hash_body_size(uint64_t n, uint64_t d) noexcept;

}  // namespace ldp::server::detail

#endif
