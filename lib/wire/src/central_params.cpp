#include "ldp/wire/central_params.h"

#include "ldp/base/bits.h"

namespace ldp::wire {

bool sparse_vector_ranges_hold(const params& p) noexcept {
  const int64_t l = p.get_signed(field::clip_hi);
  if (l < 1 || p.get_signed(field::clip_lo) != -l) return false;
  uint64_t squared = 0, bound = 0;
  return checked_mul(static_cast<uint64_t>(l), static_cast<uint64_t>(l), &squared) &&
         checked_mul(squared, p.get(field::sparsity), &bound) && bound < (uint64_t{1} << 63);
}

status make_sparse_vector(uint32_t d, uint32_t s, unsigned frac_bits, int64_t radius_fixed,
                          params* out) noexcept {
  *out = params{};
  params p;
  p.mech = mechanism::sparse_vector;
  p.set(field::domain, d).set(field::sparsity, s).set(field::frac_bits, frac_bits);
  p.set_signed(field::clip_lo, radius_fixed < 1 ? 0 : -radius_fixed).set_signed(field::clip_hi, radius_fixed);
  if (validate(p) != status::ok) return status::invalid_argument;
  *out = p;
  return status::ok;
}

}  // namespace ldp::wire
