// The family registry: which aggregator family serves a mechanism (aggregator.cpp dispatches on it).
#ifndef LDP_SERVER_SRC_FAMILY_H
#define LDP_SERVER_SRC_FAMILY_H

#include <cstdint>
#include <memory>

#include "ldp/base/status.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/params.h"

namespace ldp::server::detail {

// ---- Families (aggregator.cpp dispatches create and deserialize on them) ----------------------
// A family serves some mechanisms. make() checks what validate() cannot and allocates (it may
// throw: the caller catches). body_size() is the exact length of the family's saved counts for n
// reports (false when it does not fit in 64 bits), computed from the block alone so that a saved
// state is length-checked before its block sizes any allocation.
using make_function = status (*)(const wire::params& p, std::unique_ptr<aggregator>* out);
// The grouped families (string discovery, distribution) hold a body of inner group states whose
// BLH/OLH bodies depend on how the n reports split over groups: their body_size() is an upper
// bound and read_body() checks the exact length group by group. estimate_all() lists one estimate
// per item or coordinate, which aggregator_bytes counts, unless lists_estimates is false (string
// discovery lists nothing).
struct family {
  make_function make;
  bool (*body_size)(const wire::params& p, uint64_t n, uint64_t* bytes);
  bool grouped = false;
  bool lists_estimates = true;
};

// The family serving m (from the mechanism table's family, wire/mechanism_table.h), or null.
[[nodiscard]] const family* family_of(wire::mechanism m) noexcept;

// Whether the family serving m is the one `make` creates: each aggregator's handles().
[[nodiscard]] bool served_by(wire::mechanism m, make_function make) noexcept;

// A family's typed create (frequency_aggregator::create, string_discovery_aggregator::create): another
// family's block is refused before anything is allocated for it (an invalid one with its validate()
// status); the family's own goes through aggregator::create, which validates it once and applies
// the memory ceiling. Family is the aggregator type `make` creates.
template <class Family>
[[nodiscard]] status create_as(const wire::params& p, make_function make, std::unique_ptr<Family>* out) {
  if (out == nullptr) return status::invalid_argument;
  out->reset();
  if (!served_by(p.mech, make)) {
    const status valid = wire::validate(p);
    return valid != status::ok ? valid : status::invalid_parameters;
  }
  std::unique_ptr<aggregator> any;
  const status s = aggregator::create(p, &any);
  if (s != status::ok) return s;
  out->reset(static_cast<Family*>(any.release()));
  return status::ok;
}

// The typed deserialize: aggregator::deserialize, then invalid_parameters for another family's state.
template <class Family>
[[nodiscard]] status deserialize_as(span<const unsigned char> bytes, make_function make, std::unique_ptr<Family>* out) {
  if (out == nullptr) return status::invalid_argument;
  out->reset();
  std::unique_ptr<aggregator> any;
  const status s = aggregator::deserialize(bytes, &any);
  if (s != status::ok) return s;
  if (!served_by(any->parameters().mech, make)) return status::invalid_parameters;
  out->reset(static_cast<Family*>(any.release()));
  return status::ok;
}

// frequency_aggregator.cpp
[[nodiscard]] status make_frequency_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool frequency_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);
// vector_mean.cpp
[[nodiscard]] status make_vector_mean_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool vector_mean_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);
// unit_vector.cpp
[[nodiscard]] status make_unit_vector_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool unit_vector_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);
// sparse_projection.cpp
[[nodiscard]] status make_sparse_projection_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool sparse_projection_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);
// winsorized.cpp
[[nodiscard]] status make_winsorized_bins_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool winsorized_bins_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);
[[nodiscard]] status make_winsorized_sums_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool winsorized_sums_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);

// string_discovery_state.cpp (its body size is group_state::body_size, group_state.h)
[[nodiscard]] status make_string_discovery_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);

// distribution_state.cpp
[[nodiscard]] status make_distribution_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool distribution_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);

// kent_support_state.cpp
[[nodiscard]] status make_kent_support_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool kent_support_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);

// public_coin_state.cpp
[[nodiscard]] status make_public_coin_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool public_coin_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);
// glm_state.cpp
[[nodiscard]] status make_glm_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool glm_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);

// mean_aggregator.cpp
[[nodiscard]] status make_mean_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out);
[[nodiscard]] bool mean_body_size(const wire::params& p, uint64_t n, uint64_t* bytes);

}  // namespace ldp::server::detail

#endif
