// The frequency-oracle family of aggregators (docs/mechanisms.md A.0-A.8): which blocks it serves, its
// saved counts, and the estimate entry points. The per-oracle parts live in grr.cpp, unary.cpp,
// local_hashing.cpp, fast_local_hashing.cpp, hadamard_response.cpp, sketch.cpp and dbitflip.cpp; ingestion, merge and the state header
// are common to every family (aggregator.cpp).
//
// The counts in a saved state (after the common part documented in aggregator.cpp), every integer
// little-endian:
//     grr        d x u64     h[v], reports equal to v                    (sum = n)
//     sue, oue,  d x u64     ones[v], reports whose bit v is 1           (each <= n)
//     kent-vote
//     blh, olh   while 12 n < 8 d (docs/wire_format.md 7.1, local_hashing.cpp):
//                n x 12      (seed u64, bucket u32) of every accepted report, sorted by seed then
//                            bucket (duplicates allowed; bucket < g)
//                otherwise:
//                d x u64     C_v, reports whose hash of v equals their bucket    (each <= n)
//     flh        k*g x u64   h[j g + y], reports of function j with bucket y, row-major    (sum = n)
//     hr         K x u64     h[y], reports equal to y                    (sum = n)
//     cms        k x u64     n_j, reports of row j                       (sum = n)
//                k*m x u64   ones[j][l], row-major: row-j reports whose bit l is 1 (each <= n_j)
//     dbitflip   d x u64     sampled[v], reports that sampled bucket v   (each <= n, sum = n s)
//                d x u64     ones[v], those whose bit for v is 1         (each <= sampled[v])
//     hcms       k x u64     n_j, as for cms
//                k*m x i64   sum[j][l], row-major: +1 per row-j report at column l with bit 1,
//                            -1 with bit 0 (sum over l of |sum[j][l]| <= n_j, and of sum[j][l]
//                            has the parity of n_j)
// The invariants in brackets are checked on load (malformed_report; a bucket >= g is out_of_range).
#include <algorithm>
#include <limits>
#include <new>
#include <numeric>

#include "estimation.h"
#include "factories.h"
#include "family.h"
#include "ldp/base/bits.h"

namespace ldp::server {

using wire::field;
using wire::frequency_oracle;
using wire::mechanism;

// Called for the blocks this family serves only (family_of): the oracles and the kent-vote (SUE).
bool detail::frequency_body_size(const wire::params& p, uint64_t n, uint64_t* out) {
  switch (wire::oracle_of(p.mech)) {
    case frequency_oracle::grr:
    case frequency_oracle::sue:
    case frequency_oracle::oue: return checked_mul(p.get(field::domain), 8, out);
    case frequency_oracle::blh:
    case frequency_oracle::olh: *out = local_hash_body_size(n, p.get(field::domain)); return true;
    case frequency_oracle::flh: return checked_mul(p.get(field::sketch_rows) * p.get(field::hash_range), 8, out);
    case frequency_oracle::hr: return checked_mul(wire::index_payload_bound(p), 8, out);
    case frequency_oracle::cms:
    case frequency_oracle::hcms: {
      const uint64_t k = p.get(field::sketch_rows), m = p.get(field::sketch_columns);
      uint64_t cells = 0;
      return checked_mul(k, m + 1, &cells) && checked_mul(cells, 8, out);
    }
    case frequency_oracle::dbitflip: return checked_mul(p.get(field::domain), 16, out);
  }
  return false;  // a value outside the enumeration
}

// The family's factory: aggregator::create has validated the block, found this family and checked
// the memory ceiling (docs/security_model.md "Memory contract"), and catches allocation failures.
status detail::make_frequency_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  std::unique_ptr<frequency_aggregator> f;
  status s = status::invalid_parameters;  // a value outside the enumeration
  switch (wire::oracle_of(p.mech)) {      // the kent-vote is counted as SUE (unary.cpp)
    case frequency_oracle::grr: s = make_grr_aggregator(p, &f); break;
    case frequency_oracle::sue:
    case frequency_oracle::oue: s = make_unary_aggregator(p, &f); break;
    case frequency_oracle::blh:
    case frequency_oracle::olh: s = make_local_hash_aggregator(p, &f); break;
    case frequency_oracle::flh: s = make_flh_aggregator(p, &f); break;
    case frequency_oracle::hr: s = make_hr_aggregator(p, &f); break;
    case frequency_oracle::cms:
    case frequency_oracle::hcms: s = make_sketch_aggregator(p, &f); break;
    case frequency_oracle::dbitflip: s = make_dbitflip_aggregator(p, &f); break;
  }
  *out = std::move(f);
  return s;
}

bool frequency_aggregator::handles(mechanism m) noexcept {
  return detail::served_by(m, detail::make_frequency_aggregator);
}

status frequency_aggregator::create(const wire::params& p, std::unique_ptr<frequency_aggregator>* out) {
  return detail::create_as(p, detail::make_frequency_aggregator, out);
}

status frequency_aggregator::deserialize(span<const unsigned char> bytes, std::unique_ptr<frequency_aggregator>* out) {
  return detail::deserialize_as(bytes, detail::make_frequency_aggregator, out);
}

std::vector<estimate> frequency_aggregator::estimate_impl(double z) const {
  std::vector<uint32_t> items(static_cast<std::size_t>(params_.get(field::domain)));
  std::iota(items.begin(), items.end(), uint32_t{0});
  return estimate_items_impl(items, z);
}

std::vector<estimate> frequency_aggregator::estimate_items(span<const uint32_t> items, double confidence) const {
  try {
    const uint64_t d = params_.get(field::domain);
    const double z = detail::confidence_z(confidence);
    const bool all_valid = std::all_of(items.begin(), items.end(), [d](uint32_t v) { return v < d; });
    if (all_valid) return estimate_items_impl(items, z);
    // Out-of-domain candidates get NaN in every field; the others are estimated as usual.
    std::vector<uint32_t> valid;
    for (uint32_t v : items) {
      if (v < d) valid.push_back(v);
    }
    const std::vector<estimate> found = estimate_items_impl(valid, z);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<estimate> out;
    out.reserve(items.size());
    std::size_t next = 0;
    for (uint32_t v : items) {
      if (v < d) {
        out.push_back(found[next++]);
      } else {
        out.push_back(estimate{v, nan, nan, nan, nan});
      }
    }
    return out;
  } catch (...) {
    return {};
  }
}

}  // namespace ldp::server
