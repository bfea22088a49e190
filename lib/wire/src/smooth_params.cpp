#include "ldp/wire/smooth_params.h"

#include "derivation.h"
#include "ldp/wire/chebyshev.h"

namespace ldp::wire {

uint64_t smooth_feature_count(uint64_t p, uint64_t t) noexcept {
  if (p == 0 || t == 0) return 0;
  uint64_t n = 1;
  for (uint64_t j = 0; j < p; ++j) {
    n *= t;  // n <= 2^16 and t <= 2^32 before the check: no overflow
    if (n > smooth_max_features || t > smooth_max_features) return 0;
  }
  return n;
}

derived_params make_smooth_queries(uint32_t p, uint32_t t, unsigned frac_bits, double epsilon) noexcept {
  params block;
  block.mech = mechanism::smooth_queries;
  block.set(field::vector_dim, p).set(field::degree, t);
  const uint64_t n = smooth_feature_count(p, t);
  if (n == 0 || t < 2 || frac_bits > chebyshev_max_frac_bits) {
    derived_params out;
    out.code = status::invalid_argument;
    return out;
  }
  return detail::laplace_vector_block(block, static_cast<uint32_t>(n), -1.0, 1.0, frac_bits, epsilon);
}

bool detail::smooth_rules_hold(const params& p) noexcept {
  const uint64_t f = p.get(field::frac_bits), t = p.get(field::degree);
  if (f > chebyshev_max_frac_bits || t < 2) return false;
  const uint64_t n = smooth_feature_count(p.get(field::vector_dim), t);
  const int64_t one = int64_t{1} << f;
  return n != 0 && p.get(field::domain) == n && p.get_signed(field::clip_lo) == -one &&
         p.get_signed(field::clip_hi) == one;
}

}  // namespace ldp::wire
