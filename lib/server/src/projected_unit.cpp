// The server's half of ProjUnit and FastProjUnit (projected_unit.h, docs/mechanisms.md B.8).
#include "projected_unit.h"

#include <cmath>

#include "estimation.h"
#include "ldp/base/bits.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/random/projection.h"
#include "ldp/random/rotation.h"
#include "ldp/wire/projunit_params.h"
#include "ldp/wire/report.h"
#include "ldp/wire/unit_vector_params.h"

namespace ldp::server::detail {

using wire::field;

projection_lift::projection_lift(const wire::params& p) {
  if (!wire::is_projected_unit(p.mech)) return;
  const auto d = static_cast<uint32_t>(p.get(field::domain));
  k_ = static_cast<uint32_t>(p.get(field::projection_dim));
  fast_ = p.mech == wire::mechanism::fastprojunit;
  if (fast_) {
    signs_.resize(random::rotation_sign_words(padded_dim(d)));
    padded_.resize(padded_dim(d));
  } else {
    signs_.resize(random::projection_row_words(d));
  }
}

status projection_lift::lift(uint64_t seed, span<const int64_t> q, span<int64_t> out) noexcept {
  unsigned char key[random::chacha20_key_size];
  random::projection_key(seed, key);
  const kernels::table& table = kernels::native();
  if (!fast_) return random::rademacher_transpose(table, key, q, signs_, out);
  // ||q||_1 <= k (2^15 - 1) < 2^31: fast_transpose is exact (B.8 "Server").
  const status s = random::fast_transpose(table, key, q, signs_, padded_);
  if (s != status::ok) return s;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = padded_[i];
  return status::ok;
}

uint64_t lifted_coordinate_max(const wire::params& p) noexcept {
  const uint64_t unit = static_cast<uint64_t>(wire::unit_coordinate_max);
  return wire::is_projected_unit(p.mech) ? unit * p.get(field::projection_dim) : unit;
}

double lift_scale(const wire::params& p) noexcept {
  return wire::is_projected_unit(p.mech) ? 1 / std::sqrt(static_cast<double>(p.get(field::projection_dim))) : 1.0;
}

double projected_trace(const wire::params& p, double along) noexcept {
  const auto d = static_cast<uint32_t>(p.get(field::domain));
  const double dd = static_cast<double>(d), kk = static_cast<double>(p.get(field::projection_dim));
  // The part of the padding d~ - d that FastProjUnit's orthogonal rows keep from the signal's trace.
  const double kept = p.mech == wire::mechanism::fastprojunit ? dd / static_cast<double>(padded_dim(d)) : 0.0;
  return dd / kk * (kk - 1 + along) + (along - 1) * (1 - kept);
}

}  // namespace ldp::server::detail
