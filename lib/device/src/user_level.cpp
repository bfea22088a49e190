#include "ldp/device/user_level.h"

#include "ldp/base/bits.h"
#include "ldp/device/coins.h"
#include "ldp/device/mean.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/wire/fixed_trig.h"
#include "ldp/wire/vector_params.h"

namespace ldp::device {
namespace {

using wire::field;

// s / t rounded to the nearest integer, ties to even, for t >= 1.
int64_t nearest_quotient(int64_t s, uint64_t t) {
  const auto divisor = static_cast<int64_t>(t);
  int64_t q = s / divisor, r = s % divisor;
  if (r < 0) {  // C++ truncates toward zero: step to the floor
    --q;
    r += divisor;
  }
  const uint64_t twice = 2 * static_cast<uint64_t>(r);
  if (twice > t || (twice == t && (q & 1) != 0)) ++q;
  return q;
}

// The rounded mean of coordinate i over the first `used` observations, each clamped to [lo, hi].
// Valid blocks keep every partial sum inside int64 (wire_format.md 3.3).
int64_t local_mean(span<const int64_t> observations, std::size_t stride, std::size_t i, std::size_t used, int64_t lo,
                   int64_t hi) {
  int64_t sum = 0;
  for (std::size_t t = 0; t < used; ++t) {
    const int64_t x = observations[t * stride + i];
    sum += x < lo ? lo : x > hi ? hi : x;
  }
  return nearest_quotient(sum, used);
}

// M5 (C.1 P5): the rounded mean of feature j (wire::basis_feature, Q30) over the first `used`
// observations, on the grid of f fraction bits. One rounding, of the exact Q30 sum S: to
// S 2^(f-30) / used for f >= 30 (|S| 2^(f-30) <= used 2^f < 2^63 on valid blocks), else to
// S / (used 2^(30-f)) (a divisor below 2^62).
int64_t feature_mean(span<const int64_t> observations, uint32_t j, std::size_t used, unsigned f) {
  int64_t sum = 0;  // |sum| <= used 2^30 < 2^62
  for (std::size_t t = 0; t < used; ++t) sum += wire::basis_feature(j, observations[t], f);
  if (f >= wire::trig_bits) return nearest_quotient(sum * (int64_t{1} << (f - wire::trig_bits)), used);
  return nearest_quotient(sum, uint64_t{used} << (wire::trig_bits - f));
}

// floor(v / 2^k) for |v| < 2^62.
int64_t floor_shift(int64_t v, unsigned k) {
  if (v >= 0) return v >> k;
  return -static_cast<int64_t>((static_cast<uint64_t>(-v) + (uint64_t{1} << k) - 1) >> k);
}

// round(t / sqrt(2^log2n)), ties up, for |t| < 2^31: the orthonormal rotation's coordinate from the
// unnormalized transform's. For odd log2n, t / sqrt(2^log2n) = t sqrt(2) / 2^k with
// k = (log2n + 1) / 2, and floor(t sqrt 2) = isqrt64(2 t^2) for t >= 0, -(isqrt64(2 t^2) + 1) for
// t < 0 (2 t^2 is no square); adding 2^(k-1) and flooring the division by 2^k commute with that
// floor.
int64_t normalized(int64_t t, unsigned log2n) {
  if (log2n == 0) return t;
  if (log2n % 2 == 0) {
    const unsigned k = log2n / 2;
    return floor_shift(t + (int64_t{1} << (k - 1)), k);
  }
  const unsigned k = (log2n + 1) / 2;
  const uint64_t magnitude = static_cast<uint64_t>(t < 0 ? -t : t);
  const auto root = static_cast<int64_t>(isqrt64(2 * magnitude * magnitude));
  const int64_t scaled = t >= 0 ? root : -(root + 1);
  return floor_shift(scaled + (int64_t{1} << (k - 1)), k);
}

}  // namespace

status user_level_context::init(span<std::byte> workspace, const wire::params& p, user_level_context* out) noexcept {
  *out = user_level_context{};
  if (!is_user_level(p)) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  if (p.mech == wire::mechanism::kent_vote && p.get(field::threshold_bits) != wire::oracle_threshold_bits) {
    return status::unsupported;
  }
  const placement at = layout(p);
  const status checked = check_workspace(workspace, at.bytes.size());
  if (checked != status::ok) return checked;
  out->vote_bits_ = carve<uint64_t>(workspace, at.vote_bits, vote_words(p));
  if (is_rotated(p)) {
    const status s = carve_rotation(workspace, at.rotation, p, &out->rotation_);
    if (s != status::ok) return s;
  }
  out->block_.accept(p);
  return status::ok;
}

// M3: the local mean vector, padded and rotated in the workspace; coordinate j of U x.
status user_level_context::rotated_value(span<const int64_t> observations, std::size_t d, std::size_t used,
                                         int64_t* value) noexcept {
  const wire::params& p = block_.params;
  const span<int32_t> rotated = rotation_.values;
  const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
  // Valid M3 blocks have d~ * R < 2^31: each mean fits in int32 and no FWHT stage overflows.
  for (std::size_t i = 0; i < rotated.size(); ++i) {
    rotated[i] = i < d ? static_cast<int32_t>(local_mean(observations, d, i, used, lo, hi)) : 0;
  }
  const unsigned log2n = wire::rotation_log2(p);
  kernels::native().rotate_i32(rotated.data(), rotation_.signs.data(), log2n);
  const auto j = static_cast<std::size_t>(p.get(field::fold_coordinate));
  const int64_t z = normalized(rotated[j], log2n);
  *value = z < lo ? lo : z > hi ? hi : z;
  return status::ok;
}

status user_level_context::value(span<const int64_t> observations, int64_t* value) noexcept {
  *value = 0;
  if (!block_.ready) return status::invalid_argument;
  const wire::params& p = block_.params;
  const bool basis = p.has(field::basis);  // M5: one real per observation, whatever k
  const bool vector = p.has(field::vector_dim) && !basis;
  const auto d = static_cast<std::size_t>(vector ? p.get(field::vector_dim) : 1);
  if (observations.size() == 0 || observations.size() % d != 0) return status::invalid_argument;
  // P6: the first T~ observations only; nothing after them is read.
  const std::size_t count = observations.size() / d;
  const auto cap = static_cast<std::size_t>(p.get(field::observations));
  const std::size_t used = count < cap ? count : cap;
  if (is_rotated(p)) return rotated_value(observations, d, used, value);
  if (basis) {
    *value = feature_mean(observations, static_cast<uint32_t>(p.get(field::fold_coordinate)), used,
                          static_cast<unsigned>(p.get(field::frac_bits)));
    return status::ok;
  }
  const auto coordinate = static_cast<std::size_t>(vector ? p.get(field::fold_coordinate) : 0);
  const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
  *value = local_mean(observations, d, coordinate, used, lo, hi);
  return status::ok;
}

status user_level_context::randomize(span<const int64_t> observations, random::drbg& rng, span<unsigned char> out,
                                     framing f, std::size_t* written) noexcept {
  const auto fields = [&](wire::report* r) {
    if (block_.params.mech == wire::mechanism::kent_vote) {
      drbg_coins coins(rng);
      return vote_fields(observations, coins, r);
    }
    *r = wire::report{};
    r->mech = block_.params.mech;
    int64_t v = 0;
    const status s = value(observations, &v);
    if (s != status::ok) return s;
    r->value = laplace_noisy(block_.params, v, rng);  // P2: clamp to the broadcast interval, add DLap
    return status::ok;
  };
  return emit(block_.params, block_.fingerprint, fields, f, out, written);
}

}  // namespace ldp::device
