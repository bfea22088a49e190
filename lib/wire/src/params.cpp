#include "ldp/wire/params.h"

#include <initializer_list>

#include "derivation.h"
#include "ldp/base/bits.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/checksum.h"
#include "ldp/wire/distribution_params.h"
#include "ldp/wire/glm_params.h"
#include "ldp/wire/hash.h"
#include "ldp/wire/kent_support_params.h"
#include "ldp/wire/marginals.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/public_coin_params.h"
#include "ldp/wire/smooth_params.h"
#include "ldp/wire/string_params.h"

namespace ldp::wire {
namespace {

// The optional groups of the Kent blocks (wire_format.md 3.2): M1 blocks have none, M2 blocks
// the fold, M3 blocks the fold and the rotation, M5 blocks the fold and the basis.
constexpr field_set kent_fold = field_bits(field::vector_dim, field::fold_coordinate);
constexpr field_set kent_rotation = field_bits(field::hadamard_dim, field::rotation_seed);
constexpr field_set kent_basis = field_bit(field::basis);

constexpr bool is_kent(mechanism m) {
  return in_family(m, mechanism_family::user_level_vote) || in_family(m, mechanism_family::user_level_refine);
}

// Exactly the table's fields, no more: one canonical block per parameter set (wire_format.md 3.2).
bool fields_match(const params& p) {
  const field_set required = required_fields(p.mech);
  if (p.present == required) return true;
  if (memo_fields(p.mech) != 0 && p.present == (required | memo_fields(p.mech))) return true;               // E.1
  if (p.mech == mechanism::hr && p.present == (required | field_bit(field::hadamard_blocks))) return true;  // A.5
  return is_kent(p.mech) &&
         (p.present == (required | kent_fold) || p.present == (required | kent_fold | kent_rotation) ||
          p.present == (required | kent_fold | kent_basis));
}

// The Kent devices (docs/mechanisms.md C.1) sum T~ observations clamped to [clip_lo, clip_hi] in int64,
// and M3 devices rotate local means clamped to [-R, R] (clip_lo = -R) with the int32 FWHT, whose
// entries are bounded by d~ * R (wire_format.md 3.3).
bool kent_ranges_hold(const params& p) {
  const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
  const uint64_t magnitude = lo < 0 ? 0 - static_cast<uint64_t>(lo) : static_cast<uint64_t>(lo);
  const uint64_t largest = hi > 0 && static_cast<uint64_t>(hi) > magnitude ? static_cast<uint64_t>(hi) : magnitude;
  uint64_t sum_bound = 0;
  if (!checked_mul(largest, p.get(field::observations), &sum_bound) || sum_bound > uint64_t{INT64_MAX}) {
    return false;
  }
  if (p.mech == mechanism::kent_refine &&
      (p.get_signed(field::interval_lo) < lo || p.get_signed(field::interval_hi) > hi)) {
    return false;
  }
  if (p.has(field::vector_dim)) {
    const uint64_t d = p.get(field::vector_dim);
    if (d < 1 || d > (uint64_t{1} << 30)) return false;
    const uint64_t folds = p.has(field::hadamard_dim) ? p.get(field::hadamard_dim) : d;
    if (p.get(field::fold_coordinate) >= folds) return false;
  }
  // M5 (C.1 P5): basis 1, the trigonometric basis; the features' range [-1, 1] is the block's.
  if (p.has(field::basis) && (p.get(field::basis) != 1 || hi != int64_t{1} << p.get(field::frac_bits) || lo != -hi)) {
    return false;
  }
  if (p.has(field::hadamard_dim)) {
    uint64_t bound = 0;
    if (lo != -hi || !checked_mul(static_cast<uint64_t>(hi), p.get(field::hadamard_dim), &bound) ||
        bound >= (uint64_t{1} << 31)) {
      return false;
    }
  }
  return true;
}

constexpr bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// HR leaves row 0 of each block unused (docs/mechanisms.md A.5): one block of K > d, or B >= 2 blocks
// of K - 1 items with B = ceil(d / (K - 1)) (canonical: no empty block) and B K <= 2^31.
bool hr_layout_holds(const params& p) {
  const uint64_t k = p.get(field::hadamard_dim), d = p.get(field::domain);
  if (!p.has(field::hadamard_blocks)) return k > d;
  const uint64_t blocks = p.get(field::hadamard_blocks);
  return k >= 2 && blocks >= 2 && blocks == (d + k - 2) / (k - 1) && blocks * k <= (uint64_t{1} << 31);
}

constexpr unsigned char fingerprint_key[16] = {'l', 'd', 'p', 'k', 'i', 't', ' ', 'p',
                                               'a', 'r', 'a', 'm', 's', ' ', 'v', '1'};

bool ranges_hold(const params& p) {
  const auto has = [&](field f) { return p.has(f); };
  const auto get = [&](field f) { return p.get(f); };
  const payload_kind kind = kind_of(p.mech);
  const bool unary = kind == payload_kind::unary_bits;
  if (has(field::domain)) {
    const uint64_t d = get(field::domain);
    // A frequency oracle needs two items; a vector may have one coordinate.
    const bool oracle = static_cast<int>(kind) <= static_cast<int>(payload_kind::sketch_cell);
    if (d < (oracle ? 2u : 1u) || d > (uint64_t{1} << 31)) return false;
    if (unary && d > (uint64_t{1} << 24)) return false;  // a report of at most 2 MiB
  }
  if (has(field::threshold_bits)) {
    const uint64_t w = get(field::threshold_bits);
    if (w < 1 || w > 63) return false;
    for (field f : {field::threshold_keep, field::threshold_other, field::instant_keep, field::instant_other}) {
      if (has(f) && get(f) > (uint64_t{1} << w)) return false;
    }
  }
  if (has(field::hash_range)) {
    const uint64_t g = get(field::hash_range);
    if (g < 2 || g > (uint64_t{1} << 31) || (p.mech == mechanism::blh && g != 2)) return false;
  }
  if (has(field::sketch_rows) && (get(field::sketch_rows) < 1 || get(field::sketch_rows) > 65536)) {
    return false;
  }
  // An FLH report is one index j g + y below k g (a u32 on the wire).
  if (p.mech == mechanism::flh && get(field::sketch_rows) * get(field::hash_range) > (uint64_t{1} << 32)) return false;
  if (has(field::sketch_columns)) {
    const uint64_t m = get(field::sketch_columns);
    if (m < 2 || m > (uint64_t{1} << 24) || (p.mech == mechanism::hcms && !is_pow2(m))) return false;
  }
  if (has(field::hadamard_dim)) {
    const uint64_t k = get(field::hadamard_dim);
    const uint64_t d = get(has(field::vector_dim) ? field::vector_dim : field::domain);
    if (!is_pow2(k) || k > (uint64_t{1} << 30)) return false;
    if (p.mech == mechanism::hr ? !hr_layout_holds(p) : k < d) return false;
  }
  if (has(field::frac_bits) && get(field::frac_bits) > 62) return false;
  if (has(field::clip_lo) && p.get_signed(field::clip_lo) >= p.get_signed(field::clip_hi)) return false;
  if (has(field::interval_lo) && p.get_signed(field::interval_lo) >= p.get_signed(field::interval_hi)) {
    return false;
  }
  if (has(field::scale_num) && (get(field::scale_num) == 0 || get(field::scale_den) == 0)) return false;
  if (has(field::sparsity)) {
    const uint64_t s = get(field::sparsity);
    if (s < 1 || s > get(field::domain) || s > 65535) return false;
  }
  if (has(field::sampled_buckets)) {  // dBitFlip (docs/mechanisms.md E.3): d <= k, one u32 of bits
    const uint64_t s = get(field::sampled_buckets);
    if (s < 1 || s > get(field::domain) || s > dbitflip_max_sampled) return false;
  }
  if (has(field::round)) {
    const uint64_t expected = p.mech == mechanism::kent_vote ? 1 : 2;
    if (get(field::round) != expected) return false;
  }
  if (has(field::observations) && get(field::observations) == 0) return false;
  if (is_kent(p.mech) && !kent_ranges_hold(p)) return false;
  if (p.mech == mechanism::sparse_projection && !sparse_projection_ranges_hold(p)) return false;
  if ((p.mech == mechanism::winsorized_bins || p.mech == mechanism::winsorized_sums) && !winsorized_ranges_hold(p)) {
    return false;
  }
  if (has(field::radius) && has(field::hadamard_dim)) {
    // The device rotates its clipped vector with the int32 FWHT (docs/mechanisms.md B.4): every partial
    // sum is bounded by sqrt(d~) * R grid units, and R^2 * d~ < 2^62 keeps that below 2^31. The
    // rotated coordinate is clipped to [-r, r] with 0 < r <= R (B.5 step 4).
    const int64_t radius = p.get_signed(field::radius), r = p.get_signed(field::clip_hi);
    if (radius < 1 || radius >= (int64_t{1} << 31)) return false;
    uint64_t bound = 0;
    const auto squared = static_cast<uint64_t>(radius) * static_cast<uint64_t>(radius);
    if (!checked_mul(squared, get(field::hadamard_dim), &bound) || bound >= (uint64_t{1} << 62)) return false;
    if (r < 1 || r > radius || p.get_signed(field::clip_lo) != -r) return false;
  }
  if (in_family(p.mech, mechanism_family::unit_vector) && !detail::unit_vector_rules_hold(p)) return false;
  if (in_family(p.mech, mechanism_family::string_discovery) && !detail::string_rules_hold(p)) return false;
  if (in_family(p.mech, mechanism_family::distribution) && !detail::distribution_rules_hold(p)) return false;
  if (p.mech == mechanism::kent_support && !detail::kent_support_rules_hold(p)) return false;
  if (p.mech == mechanism::kway_marginals && !detail::marginals_rules_hold(p)) return false;
  if (p.mech == mechanism::bernstein && !detail::bernstein_rules_hold(p)) return false;
  if (p.mech == mechanism::smooth_queries && !detail::smooth_rules_hold(p)) return false;
  if (in_family(p.mech, mechanism_family::public_coin) && !detail::public_coin_rules_hold(p)) return false;
  if (p.mech == mechanism::glm_copies && !detail::glm_rules_hold(p)) return false;
  return detail::oracle_rules_hold(p) && detail::memo_rules_hold(p) && detail::numeric_rules_hold(p);
}

}  // namespace

status validate(const params& p) noexcept {
  if (!is_known(p.mech)) return status::unknown_mechanism;
  if (!fields_match(p)) return status::invalid_parameters;
  return ranges_hold(p) ? status::ok : status::invalid_parameters;
}

status encode_params(const params& p, span<unsigned char> out, std::size_t* written) noexcept {
  *written = 0;
  const status s = validate(p);
  if (s != status::ok) return s;
  std::size_t size = 3, count = 0;
  for (int t = 1; t <= field_max; ++t) {
    if (p.has(static_cast<field>(t))) {
      size += 1 + field_width(static_cast<field>(t));
      ++count;
    }
  }
  if (out.size() < size) return status::buffer_too_small;
  unsigned char* o = out.data();
  *o++ = params_version;
  *o++ = static_cast<unsigned char>(p.mech);
  *o++ = static_cast<unsigned char>(count);
  for (int t = 1; t <= field_max; ++t) {
    const field f = static_cast<field>(t);
    if (!p.has(f)) continue;
    *o++ = static_cast<unsigned char>(t);
    const std::size_t width = field_width(f);
    if (width == seed_size) {
      const unsigned char* seed = f == field::hash_seed ? p.hash_seed : p.rotation_seed;
      for (std::size_t i = 0; i < seed_size; ++i) *o++ = seed[i];
    } else {
      for (std::size_t i = 0; i < width; ++i) *o++ = static_cast<unsigned char>(p.get(f) >> (8 * i));
    }
  }
  *written = size;
  return status::ok;
}

status decode_params(span<const unsigned char> bytes, params* out) noexcept {
  *out = params{};
  if (bytes.size() < 3) return status::wrong_length;
  if (bytes[0] != params_version) return status::unsupported_version;
  params p;
  p.mech = static_cast<mechanism>(bytes[1]);
  if (!is_known(p.mech)) return status::unknown_mechanism;
  const std::size_t count = bytes[2];
  std::size_t at = 3;
  int previous = 0;
  for (std::size_t n = 0; n < count; ++n) {
    if (at >= bytes.size()) return status::wrong_length;
    const int tag = bytes[at++];
    // Tags strictly increase: no duplicates, one canonical order.
    if (tag <= previous || tag > field_max) return status::malformed_report;
    previous = tag;
    const field f = static_cast<field>(tag);
    const std::size_t width = field_width(f);
    if (bytes.size() - at < width) return status::wrong_length;
    if (width == seed_size) {
      p.set_seed(f, bytes.data() + at);
    } else {
      uint64_t v = 0;
      for (std::size_t i = 0; i < width; ++i) v |= uint64_t{bytes[at + i]} << (8 * i);
      p.set(f, v);
    }
    at += width;
  }
  if (at != bytes.size()) return status::wrong_length;
  const status s = validate(p);
  if (s != status::ok) return s;
  *out = p;
  return status::ok;
}

uint64_t fingerprint(const params& p) noexcept {
  unsigned char block[params_max_size];
  std::size_t size = 0;
  if (encode_params(p, block, &size) != status::ok) return 0;
  return siphash24(fingerprint_key, span<const unsigned char>(block, size));
}

}  // namespace ldp::wire
