// Device side of `kway-marginals` (docs/mechanisms.md H.5, Wang et al. Alg 6): a record of p bits
// (uint64_t mask, bit j = attribute j) becomes the N' conjunction indicators 1[S subset of supp x],
// 1 <= |S| <= k, in the order of wire/marginals.h (docs/wire_format.md 3.14), each 0 or 2^f on the
// grid of [0, 1], randomized as laplace-vector coordinates by the vector context (vector_mean.h).
//
// Every one of the N' indicators is computed the same way whatever x is (one AND and one compare
// per set), so the time does not depend on the record (security_model.md 5). No heap, no floating
// point; the workspace is the vector context's (N' int64 values).
#ifndef LDP_DEVICE_KWAY_MARGINALS_H
#define LDP_DEVICE_KWAY_MARGINALS_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/device/vector_mean.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/marginals.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace ldp::device {

// The indicators of `record` for a valid kway-marginals block into out (exactly domain values):
// 2^f where S is inside the record's ones, 0 elsewhere. false (out untouched) when the record has
// a bit at or above p, or out has the wrong size.
[[nodiscard]] inline bool conjunction_features(const wire::params& p, uint64_t record, span<int64_t> out) noexcept {
  const auto attributes = static_cast<uint32_t>(p.get(wire::field::vector_dim));
  const auto k = static_cast<uint32_t>(p.get(wire::field::marginal_order));
  if (out.size() != p.get(wire::field::domain)) return false;
  if (attributes < 64 && (record >> attributes) != 0) return false;
  const int64_t one = int64_t{1} << p.get(wire::field::frac_bits);
  const uint64_t missing = ~record;
  std::size_t at = 0;
  for (uint32_t s = 1; s <= k; ++s) {
    uint64_t set = wire::first_conjunction(s);
    for (uint64_t left = wire::binomial(attributes, s); left > 0; --left, set = wire::next_conjunction(set)) {
      out[at++] = (set & missing) == 0 ? one : 0;
    }
  }
  return true;
}

// The report fields of `record` (see above); invalid_argument, nothing drawn, for a context of
// another block or a record with bits at or above p.
template <class Rng>
status kway_marginals_fields(vector_mean_context& c, uint64_t record, Rng& rng, wire::report* r) noexcept {
  if (c.parameters().mech != wire::mechanism::kway_marginals) {
    *r = wire::report{};
    return status::invalid_argument;
  }
  return c.mapped_fields([&](span<int64_t> out) { return conjunction_features(c.parameters(), record, out); }, rng, r);
}

// The report or payload of `record` (out: max_output_size(p, f) bytes always suffice).
[[nodiscard]] inline status randomize_kway_marginals(vector_mean_context& c, uint64_t record, random::drbg& rng,
                                                     span<unsigned char> out, framing f,
                                                     std::size_t* written) noexcept {
  return emit(
      c.parameters(), c.fingerprint(), [&](wire::report* r) { return kway_marginals_fields(c, record, rng, r); }, f,
      out, written);
}

}  // namespace ldp::device

#endif
