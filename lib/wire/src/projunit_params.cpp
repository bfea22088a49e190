// ProjUnit and FastProjUnit blocks (ldp/wire/projunit_params.h, docs/mechanisms.md B.8).
#include "ldp/wire/projunit_params.h"

#include "derivation.h"
#include "ldp/base/bits.h"
#include "ldp/wire/unit_vector_params.h"

namespace ldp::wire {
namespace {

derived_params make_projected(mechanism m, uint32_t d, uint32_t k, double radius, unsigned frac_bits, double epsilon) {
  if (k == 0) k = default_projection_dim(d);
  derived_params out = make_privunitg(k, radius, frac_bits, epsilon);
  if (out.code != status::ok || k > d || d > unit_vector_max_dim) {
    out = derived_params{};
    out.code = status::invalid_argument;
    return out;
  }
  params& p = out.block;
  p.mech = m;
  p.set(field::domain, d).set(field::projection_dim, k);
  const double scale = static_cast<double>(p.get(field::output_scale)) / projection_norm_mean(m, d, k);
  p.set(field::output_scale, static_cast<uint64_t>(scale + 0.5));
  out.code = validate(p) == status::ok ? status::ok : status::invalid_argument;
  out.epsilon_impl = implemented_epsilon(p);
  return out;
}

}  // namespace

double projection_norm_mean(mechanism m, uint32_t d, uint32_t k) noexcept {
  const double kk = static_cast<double>(k);
  if (m != mechanism::fastprojunit) return 1 - 1 / (4 * kk);
  const double n = static_cast<double>(padded_dim(d));
  return n == kk ? 1.0 : 1 - (n - kk) / (4 * kk * (n - 1));
}

derived_params make_projunit(uint32_t d, uint32_t k, double radius, unsigned frac_bits, double epsilon) noexcept {
  return make_projected(mechanism::projunit, d, k, radius, frac_bits, epsilon);
}

derived_params make_fastprojunit(uint32_t d, uint32_t k, double radius, unsigned frac_bits, double epsilon) noexcept {
  return make_projected(mechanism::fastprojunit, d, k, radius, frac_bits, epsilon);
}

bool detail::projection_rules_hold(const params& p) noexcept {
  const uint64_t k = p.get(field::projection_dim), d = p.get(field::domain);
  return k >= 1 && k <= d && (p.mech != mechanism::projunit || k * d <= projunit_max_work);
}

}  // namespace ldp::wire
