#include "ldp/wire/user_level_params.h"

#include "ldp/base/int128.h"
#include "ldp/wire/mean_params.h"

namespace ldp::wire {
namespace {

derived_params finish(const params& p) {
  derived_params out;
  out.code = validate(p) == status::ok ? status::ok : status::invalid_argument;
  if (out.code == status::ok) {
    out.block = p;
    out.epsilon_impl = implemented_epsilon(p);
  }
  return out;
}

derived_params fail() {
  derived_params out;
  out.code = status::invalid_argument;
  return out;
}

void add_shape(params& p, const kent_shape& s) {
  p.set(field::frac_bits, s.frac_bits).set(field::observations, s.observations);
  p.set_signed(field::clip_lo, s.clip_lo).set_signed(field::clip_hi, s.clip_hi);
  if (s.vector_dim != 0) {
    p.set(field::vector_dim, s.vector_dim).set(field::fold_coordinate, s.fold_coordinate);
  }
  if (s.hadamard_dim != 0) p.set(field::hadamard_dim, s.hadamard_dim);
  if (s.rotation_seed != nullptr) p.set_seed(field::rotation_seed, s.rotation_seed);
  if (s.basis != 0) p.set(field::basis, s.basis);
}

}  // namespace

derived_params make_kent_vote(double alpha, uint32_t cells, const kent_shape& shape) noexcept {
  // The vote is SUE on the cells: one derivation of the thresholds for both (D.1).
  const derived_params sue = make_sue(alpha, cells);
  if (sue.code == status::invalid_parameters) return sue;  // an alpha the thresholds cannot implement
  if (sue.code != status::ok) return fail();
  params p;
  p.mech = mechanism::kent_vote;
  p.set(field::domain, cells).set(field::threshold_bits, sue.block.get(field::threshold_bits));
  p.set(field::threshold_keep, sue.block.get(field::threshold_keep));
  p.set(field::threshold_other, sue.block.get(field::threshold_other)).set(field::round, 1);
  add_shape(p, shape);
  return finish(p);
}

derived_params make_kent_refine(double alpha, int64_t interval_lo, int64_t interval_hi,
                                const kent_shape& shape) noexcept {
  if (interval_lo >= interval_hi) return fail();
  uint64_t t_num = 0, t_den = 0;
  const uint64_t delta = static_cast<uint64_t>(interval_hi) - static_cast<uint64_t>(interval_lo);
  if (laplace_scale(delta, alpha, &t_num, &t_den) != status::ok) return fail();
  params p;
  p.mech = mechanism::kent_refine;
  p.set(field::round, 2).set_signed(field::interval_lo, interval_lo);
  p.set_signed(field::interval_hi, interval_hi);
  p.set(field::scale_num, t_num).set(field::scale_den, t_den);
  add_shape(p, shape);
  return finish(p);
}

kent_shape shape_of(const params& p) noexcept {
  kent_shape s;
  s.frac_bits = static_cast<unsigned>(p.get(field::frac_bits));
  s.clip_lo = p.get_signed(field::clip_lo);
  s.clip_hi = p.get_signed(field::clip_hi);
  s.observations = static_cast<uint32_t>(p.get(field::observations));
  s.vector_dim = static_cast<uint32_t>(p.get(field::vector_dim));
  s.fold_coordinate = static_cast<uint32_t>(p.get(field::fold_coordinate));
  s.hadamard_dim = static_cast<uint32_t>(p.get(field::hadamard_dim));
  s.rotation_seed = p.has(field::rotation_seed) ? p.rotation_seed : nullptr;
  s.basis = static_cast<uint32_t>(p.get(field::basis));
  return s;
}

}  // namespace ldp::wire
