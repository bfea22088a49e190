#include "ldp/wire/vector_params.h"

#include "ldp/base/bits.h"
#include "ldp/wire/det_math.h"
#include "ldp/wire/mean_params.h"

namespace ldp::wire {
namespace {

constexpr uint64_t max_padded_dim = uint64_t{1} << 30;  // hadamard_dim's limit (table 3)

bool rotation_fits(int64_t radius, uint64_t padded_dim) {
  if (radius < 1 || radius >= (int64_t{1} << 31)) return false;
  const auto squared = static_cast<uint64_t>(radius) * static_cast<uint64_t>(radius);
  uint64_t bound = 0;
  return checked_mul(squared, padded_dim, &bound) && bound < (uint64_t{1} << 62);
}

derived_params fail() {
  derived_params out;
  out.code = status::invalid_argument;
  return out;
}

// The scalar block `make` builds on [-r, r], turned into mechanism m with the rotation fields.
template <class Make>
derived_params vector_block(mechanism m, uint32_t d, double radius, unsigned frac_bits, double beta,
                            const unsigned char rotation_seed[seed_size], Make make) {
  if (d == 0 || d > max_padded_dim || frac_bits > 62 || rotation_seed == nullptr) return fail();
  const uint64_t padded = padded_dim(d);
  int64_t fixed_radius = 0;
  if (to_fixed(radius, frac_bits, &fixed_radius) != status::ok) return fail();
  if (!rotation_fits(fixed_radius, padded)) return fail();
  const int64_t r = vector_clip(fixed_radius, padded, beta);
  if (r < 1) return fail();
  // r < 2^31: exact as a double and after scaling, so the scalar builder's grid rounding returns it.
  const double real_r = static_cast<double>(r) / static_cast<double>(uint64_t{1} << frac_bits);
  derived_params out = make(-real_r, real_r);
  if (out.code != status::ok) return out;
  out.block.mech = m;
  out.block.set(field::domain, d).set(field::hadamard_dim, padded);
  out.block.set_seed(field::rotation_seed, rotation_seed).set_signed(field::radius, fixed_radius);
  out.code = validate(out.block) == status::ok ? status::ok : status::invalid_argument;
  out.epsilon_impl = implemented_epsilon(out.block);
  return out;
}

}  // namespace

int64_t vector_clip(int64_t radius, uint64_t padded_dim, double beta) noexcept {
  if (!(beta > 0 && beta < 1) || padded_dim == 0 || (padded_dim & (padded_dim - 1)) != 0 ||
      !rotation_fits(radius, padded_dim)) {
    return 0;
  }
  // r^2 <= R^2 * 2 ln(2 d~ / beta) / d~: every operand and step below is an IEEE operation with
  // one rounding (division by the power of two d~ is exact), and r^2 < 2^62 converts monotonically,
  // so the largest r is found by bisection on integers and is the same everywhere.
  const auto squared = static_cast<uint64_t>(radius) * static_cast<uint64_t>(radius);
  const double dim = static_cast<double>(padded_dim);
  const double target = static_cast<double>(squared) * (2 * det_log(2 * dim / beta)) / dim;
  if (target >= static_cast<double>(squared)) return radius;
  int64_t lo = 0, hi = radius;  // r^2 <= target holds at lo, fails at hi
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    const auto mid_squared = static_cast<uint64_t>(mid) * static_cast<uint64_t>(mid);
    if (static_cast<double>(mid_squared) <= target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

derived_params make_vector_duchi(uint32_t d, double radius, unsigned frac_bits, double epsilon, double beta,
                                 const unsigned char rotation_seed[seed_size]) noexcept {
  return vector_block(mechanism::vector_duchi, d, radius, frac_bits, beta, rotation_seed,
                      [&](double lo, double hi) { return make_duchi(lo, hi, frac_bits, epsilon); });
}

derived_params make_vector_laplace(uint32_t d, double radius, unsigned frac_bits, double epsilon, double beta,
                                   const unsigned char rotation_seed[seed_size]) noexcept {
  return vector_block(mechanism::vector_laplace, d, radius, frac_bits, beta, rotation_seed,
                      [&](double lo, double hi) { return make_laplace(lo, hi, frac_bits, epsilon); });
}

}  // namespace ldp::wire
