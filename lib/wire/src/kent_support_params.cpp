#include "ldp/wire/kent_support_params.h"

#include "derivation.h"
#include "ldp/base/bits.h"
#include "ldp/wire/mean_params.h"

namespace ldp::wire {
namespace {

uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

}  // namespace

derived_params make_kent_support(double alpha, const kent_support_shape& shape) noexcept {
  derived_params out;
  out.code = status::invalid_argument;
  uint64_t t_num = 0, t_den = 0;
  if (shape.sparsity == 0 || laplace_scale(2 * uint64_t{shape.sparsity}, alpha, &t_num, &t_den) != status::ok) {
    return out;
  }
  params p;
  p.mech = mechanism::kent_support;
  p.set(field::domain, shape.dimension).set(field::sparsity, shape.sparsity);
  p.set(field::frac_bits, shape.frac_bits).set_signed(field::clip_lo, shape.clip_lo);
  p.set_signed(field::clip_hi, shape.clip_hi).set(field::observations, shape.observations);
  p.set(field::scale_num, t_num).set(field::scale_den, t_den).set(field::vote_threshold, shape.threshold);
  return detail::finish(p);
}

kent_support_shape support_shape_of(const params& p) noexcept {
  kent_support_shape s;
  s.frac_bits = static_cast<unsigned>(p.get(field::frac_bits));
  s.clip_lo = p.get_signed(field::clip_lo);
  s.clip_hi = p.get_signed(field::clip_hi);
  s.observations = static_cast<uint32_t>(p.get(field::observations));
  s.dimension = static_cast<uint32_t>(p.get(field::domain));
  s.sparsity = static_cast<uint32_t>(p.get(field::sparsity));
  s.threshold = p.get(field::vote_threshold);
  return s;
}

bool detail::kent_support_rules_hold(const params& p) noexcept {
  // d <= 2^24 (the device's sign bits); the sum of T~ clamped observations of a coordinate and
  // tau T~ stay inside int64 (the device compares |sum_j| >= tau T~ exactly); 1 <= tau <= max|clip|.
  const uint64_t d = p.get(field::domain), tau = p.get(field::vote_threshold);
  const uint64_t lo = magnitude(p.get_signed(field::clip_lo)), hi = magnitude(p.get_signed(field::clip_hi));
  const uint64_t largest = lo > hi ? lo : hi;
  uint64_t bound = 0;
  if (d > kent_support_max_dim || tau < 1 || tau > largest) return false;
  return checked_mul(largest, p.get(field::observations), &bound) && bound <= uint64_t{INT64_MAX};
}

double detail::kent_support_epsilon(const params& p) noexcept {
  // Table D.1's discrete Laplace row with Delta = 2 s (the vote sum moves by at most 2 s).
  return static_cast<double>(2 * p.get(field::sparsity)) * static_cast<double>(p.get(field::scale_den)) /
         static_cast<double>(p.get(field::scale_num));
}

}  // namespace ldp::wire
