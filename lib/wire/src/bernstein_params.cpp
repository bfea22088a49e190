#include "ldp/wire/bernstein_params.h"

#include "derivation.h"

namespace ldp::wire {

derived_params make_bernstein(uint32_t p, uint32_t k, loss_kind loss, unsigned frac_bits, double epsilon) noexcept {
  params block;
  block.mech = mechanism::bernstein;
  block.set(field::vector_dim, p).set(field::grid_size, k).set(field::loss, static_cast<uint32_t>(loss));
  const uint64_t n = grid_point_count(p, k);
  if (p == 0 || k == 0 || n == 0 || n > bernstein_max_points || frac_bits > bernstein_max_frac_bits) {
    derived_params out;
    out.code = status::invalid_argument;
    return out;
  }
  // The loss values of Assumption 1 lie in [0, 1]: the range is [0, Q] grid units.
  return detail::laplace_vector_block(block, static_cast<uint32_t>(n), 0.0, 1.0, frac_bits, epsilon);
}

bool detail::bernstein_rules_hold(const params& p) noexcept {
  const uint64_t dim = p.get(field::vector_dim), k = p.get(field::grid_size), f = p.get(field::frac_bits);
  if (dim < 1 || k < 1 || !is_loss_kind(static_cast<uint32_t>(p.get(field::loss))) || f > bernstein_max_frac_bits) {
    return false;
  }
  const uint64_t n = grid_point_count(static_cast<uint32_t>(dim), static_cast<uint32_t>(k));
  return n != 0 && n <= bernstein_max_points && p.get(field::domain) == n && p.get_signed(field::clip_lo) == 0 &&
         p.get_signed(field::clip_hi) == int64_t{1} << f;
}

}  // namespace ldp::wire
