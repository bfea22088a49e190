#include "ldp/wire/oracle_params.h"

#include <initializer_list>
#include <limits>

#include "derivation.h"
#include "ldp/base/bits.h"
#include "ldp/wire/det_math.h"
#include "ldp/wire/distribution_params.h"
#include "ldp/wire/glm_params.h"
#include "ldp/wire/hash.h"
#include "ldp/wire/kent_support_params.h"
#include "ldp/wire/public_coin_params.h"
#include "ldp/wire/string_params.h"

namespace ldp::wire {
namespace {

constexpr uint64_t one = uint64_t{1} << oracle_threshold_bits;
constexpr double one_d = 4294967296.0;
constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr double margin = epsilon_margin;

// ln(a) + ln(b) - ln(c) - ln(e), each argument an integer below 2^53 (exact as a double).
double log_ratio(double a, double b, double c, double e) {
  if (a <= 0 || b <= 0 || c <= 0 || e <= 0) return infinity;
  return (det_log(a) + det_log(b)) - (det_log(c) + det_log(e));
}

// GRR-style: keep T, otherwise uniform over the other `others` values. ln(T * others / (2^w - T)).
double keep_epsilon(uint64_t t, uint64_t others) {
  return log_ratio(static_cast<double>(t), static_cast<double>(others), one_d - static_cast<double>(t), 1);
}

derived_params fail() {
  derived_params out;
  out.code = status::invalid_argument;
  return out;
}

// Rounds a keep probability down, then steps it down until the implemented level fits.
template <class Epsilon>
uint64_t keep_threshold(double p, double epsilon, Epsilon implemented) {
  uint64_t t = static_cast<uint64_t>(p * one_d);  // floor: toward privacy
  if (t >= one) t = one - 1;
  while (t > 0 && implemented(t) > epsilon / margin) --t;
  return t;
}

// Rounds a flip (or other-value) probability up, then steps it up until the level fits.
template <class Epsilon>
uint64_t flip_threshold(double q, double epsilon, Epsilon implemented) {
  double scaled = q * one_d;
  uint64_t t = static_cast<uint64_t>(scaled);
  if (static_cast<double>(t) < scaled) ++t;  // ceiling
  if (t == 0) t = 1;
  while (t < one / 2 && implemented(t) > epsilon / margin) ++t;
  return t;
}

derived_params finish(params p) {
  derived_params out;
  out.block = p;
  out.epsilon_impl = implemented_epsilon(p);
  out.code = validate(p);
  if (out.code == status::ok && !(out.epsilon_impl < infinity)) out.code = status::invalid_argument;
  return out;
}

params frequency_block(mechanism m, uint32_t d) {
  params p;
  p.mech = m;
  p.set(field::domain, d).set(field::threshold_bits, oracle_threshold_bits);
  return p;
}

// GRR on a domain of n symbols: keep with e^eps / (e^eps + n - 1).
uint64_t grr_threshold(double epsilon, uint64_t n) { return detail::window_threshold(epsilon, 1, n - 1); }

}  // namespace

double detail::window_epsilon(uint64_t t, uint64_t window, uint64_t others) noexcept {
  return log_ratio(static_cast<double>(t), static_cast<double>(others), one_d - static_cast<double>(t),
                   static_cast<double>(window));
}

uint64_t detail::window_threshold(double epsilon, uint64_t window, uint64_t others) noexcept {
  const double e = det_exp(epsilon) * static_cast<double>(window);
  return keep_threshold(e / (e + static_cast<double>(others)), epsilon,
                        [window, others](uint64_t t) { return window_epsilon(t, window, others); });
}

namespace {

double olh_leading_term(uint64_t t, uint64_t g) {
  const double p = static_cast<double>(t) / one_d, q = 1.0 / static_cast<double>(g);
  return q * (1 - q) / ((p - q) * (p - q));
}

}  // namespace

uint64_t detail::binary_flip_threshold(double epsilon) noexcept {
  const auto level = [](uint64_t t) { return keep_epsilon(one - t, 1); };
  return flip_threshold(1 / (1 + det_exp(epsilon)), epsilon, level);
}

namespace {

// The true value is reported with keep / 2^w, each of `others` other values with
// (2^w - keep) / (2^w others): the first is larger when keep * others > 2^w - keep.
bool keep_more_likely(uint64_t keep, uint64_t others, uint64_t w) {
  uint64_t product = 0;
  return !checked_mul(keep, others, &product) || product > (uint64_t{1} << w) - keep;
}

}  // namespace

bool detail::oracle_rules_hold(const params& p) noexcept {
  if (!in_family(p.mech, mechanism_family::frequency_oracle) && !in_family(p.mech, mechanism_family::user_level_vote)) {
    return true;
  }
  const uint64_t w = p.get(field::threshold_bits);
  const uint64_t keep = p.get(field::threshold_keep), other = p.get(field::threshold_other);
  if (kind_of(p.mech) == payload_kind::unary_bits || p.mech == mechanism::dbitflip) return keep > other;  // E.3 too
  if (p.has(field::sketch_columns)) return keep_more_likely((uint64_t{1} << w) - other, 1, w);            // CMS, HCMS
  // GRR over the domain, OLH, BLH and FLH over the hash range, HR over the 2B halves of its blocks.
  const uint64_t values =
      p.mech == mechanism::hr ? 2 * hr_blocks(p) : p.get(p.has(field::hash_range) ? field::hash_range : field::domain);
  return keep_more_likely(keep, values - 1, w);
}

bool detail::memo_rules_hold(const params& p) noexcept {
  if (!is_memoized(p)) return true;
  // The instantaneous stage keeps the permanent response more likely than any other (E.1), so the
  // composite p > q and epsilon_1 > 0.
  const uint64_t w = p.get(field::threshold_bits), keep = p.get(field::instant_keep);
  if (kind_of(p.mech) == payload_kind::unary_bits) return keep > p.get(field::instant_other);
  return keep_more_likely(keep, p.get(field::hash_range) - 1, w);
}

namespace {

// Table D.1 of the block's own thresholds: a plain oracle, or the permanent stage of a memoized one.
double permanent_epsilon(const params& p) noexcept {
  const uint64_t keep = p.get(field::threshold_keep), other = p.get(field::threshold_other);
  switch (oracle_of(p.mech)) {  // the kent-vote is SUE over cells
    case frequency_oracle::grr: return keep_epsilon(keep, p.get(field::domain) - 1);
    case frequency_oracle::blh:
    case frequency_oracle::olh:
    case frequency_oracle::flh: return keep_epsilon(keep, p.get(field::hash_range) - 1);
    case frequency_oracle::hr: return keep_epsilon(keep, 2 * hr_blocks(p) - 1);
    case frequency_oracle::sue:
    case frequency_oracle::oue:
      // General unary encoding, one-hot input: ln[T_p (2^w - T_q) / (T_q (2^w - T_p))].
      return log_ratio(static_cast<double>(keep), one_d - static_cast<double>(other), static_cast<double>(other),
                       one_d - static_cast<double>(keep));
    case frequency_oracle::cms: return 2 * keep_epsilon(one - other, 1);
    case frequency_oracle::hcms: return keep_epsilon(one - other, 1);
    case frequency_oracle::dbitflip: {
      // E.3: the sampled set does not depend on the input. d >= 2: both inputs' buckets may be
      // sampled, and their bits differ as SUE's; d = 1: at most one is, the worse of its two ratios.
      const auto k = static_cast<double>(keep), o = static_cast<double>(other);
      if (p.get(field::sampled_buckets) >= 2) return log_ratio(k, one_d - o, o, one_d - k);
      const double ones = log_ratio(k, 1, o, 1), zeros = log_ratio(one_d - o, 1, one_d - k, 1);
      return ones > zeros ? ones : zeros;
    }
  }
  return std::numeric_limits<double>::quiet_NaN();  // a value outside the enumeration
}

// epsilon_1 of a memoized block (E.1): unary, one-hot inputs differ at two bits, each costing the
// composite ln[p (1 - q) / (q (1 - p))] / 2; local hashing, a GRR on g symbols: ln(p / q).
double report_epsilon(const params& p) noexcept {
  const memo_channel c = composite_channel(p);
  if (kind_of(p.mech) == payload_kind::unary_bits) {
    if (c.p <= 0 || c.not_p <= 0 || c.q <= 0 || c.not_q <= 0) return infinity;
    return (det_log(c.p) + det_log(c.not_q)) - (det_log(c.q) + det_log(c.not_p));
  }
  if (c.p <= 0 || c.q <= 0) return infinity;
  return det_log(c.p) - det_log(c.q);
}

}  // namespace

double detail::oracle_epsilon(const params& p) noexcept {
  return is_memoized(p) ? report_epsilon(p) : permanent_epsilon(p);
}

field_set memo_fields(mechanism m) noexcept {
  if (in_family(m, mechanism_family::mean)) {
    return mean_of(m) == mean_member::duchi ? field_bits(field::memo_grid, field::output_flip) : 0;  // E.2
  }
  if (!in_family(m, mechanism_family::frequency_oracle)) return 0;
  switch (oracle_of(m)) {
    case frequency_oracle::sue:
    case frequency_oracle::oue: return field_bits(field::instant_keep, field::instant_other);
    case frequency_oracle::blh:
    case frequency_oracle::olh: return field_bits(field::instant_keep);
    case frequency_oracle::grr:
    case frequency_oracle::hr:
    case frequency_oracle::cms:
    case frequency_oracle::hcms:
    case frequency_oracle::flh:
    case frequency_oracle::dbitflip: return 0;  // always memoized (E.3): no optional fields
  }
  return 0;  // a value outside the enumeration
}

memo_channel composite_channel(const params& p) noexcept {
  memo_channel c;
  if (!is_memoized(p)) return c;
  // Probabilities out of 2^32 and their complements are exact doubles; each composite term is a
  // sum of products of two of them (a few roundings, within the D.1 margin).
  const auto prob = [](uint64_t t) { return static_cast<double>(t) / one_d; };
  const auto rest = [](uint64_t t) { return (one_d - static_cast<double>(t)) / one_d; };
  const uint64_t keep = p.get(field::threshold_keep), ik = p.get(field::instant_keep);
  if (kind_of(p.mech) == payload_kind::unary_bits) {
    // A bit B' of the permanent response is 1 with T_keep (the item's bit) or T_other (another);
    // the report's bit S is 1 with instant_keep when B' = 1 and instant_other when B' = 0.
    const uint64_t other = p.get(field::threshold_other), io = p.get(field::instant_other);
    c.p = prob(keep) * prob(ik) + rest(keep) * prob(io);
    c.not_p = prob(keep) * rest(ik) + rest(keep) * rest(io);
    c.q = prob(other) * prob(ik) + rest(other) * prob(io);
    c.not_q = prob(other) * rest(ik) + rest(other) * rest(io);
    return c;
  }
  // Two GRRs on the g buckets compose to a GRR: the permanent bucket B' is the item's bucket x with
  // T_keep; the report keeps B' with instant_keep, else moves uniformly to one of the g - 1 others,
  // which is x with probability 1 / (g - 1) when B' != x.
  const auto others = static_cast<double>(p.get(field::hash_range) - 1);
  c.p = prob(keep) * prob(ik) + rest(keep) * rest(ik) / others;
  c.not_p = prob(keep) * rest(ik) + rest(keep) * (prob(ik) + rest(ik) * (others - 1) / others);
  c.q = c.not_p / others;
  c.not_q = c.p + c.not_p * (others - 1) / others;
  return c;
}

double longitudinal_epsilon(const params& p) noexcept {
  if (in_family(p.mech, mechanism_family::mean)) return detail::mean_longitudinal_epsilon(p);  // E.2
  if (!in_family(p.mech, mechanism_family::frequency_oracle)) return std::numeric_limits<double>::quiet_NaN();
  return needs_device_secret(p) ? permanent_epsilon(p) : infinity;
}

// The top-level dispatch by family (docs/architecture.md "The mechanism table"): the user-level
// rounds are counted as an oracle and as a mean; the central releases account for their budget in
// the server (NaN here).
double implemented_epsilon(const params& p) noexcept {
  const mechanism_row* row = find_mechanism(p.mech);
  if (row == nullptr) return std::numeric_limits<double>::quiet_NaN();
  switch (row->family) {
    case mechanism_family::frequency_oracle:
    case mechanism_family::user_level_vote: return detail::oracle_epsilon(p);
    case mechanism_family::mean:
    case mechanism_family::user_level_refine: return detail::mean_epsilon(p);
    case mechanism_family::vector_mean: return detail::vector_mean_epsilon(p);
    case mechanism_family::unit_vector: return detail::unit_vector_epsilon(p);
    case mechanism_family::string_discovery: return detail::oracle_epsilon(string_inner_block(p));  // F.1: one report
    case mechanism_family::distribution:  // G.0: one report, Square Wave's window or the level's OLH
      return p.mech == mechanism::square_wave ? detail::square_wave_epsilon(p)
                                              : detail::oracle_epsilon(distribution_inner_block(p));
    case mechanism_family::user_level_support: return detail::kent_support_epsilon(p);  // C.1 P4
    case mechanism_family::public_coin: return detail::public_coin_epsilon(p);          // H.2, H.3
    case mechanism_family::gaussian_copies: return detail::glm_epsilon(p);              // H.4: zCDP to (epsilon, delta)
    case mechanism_family::sparse_projection:
    case mechanism_family::winsorized_bins:
    case mechanism_family::winsorized_sums: break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

derived_params make_grr(double epsilon, uint32_t d) noexcept {
  if (!valid_epsilon(epsilon) || d < 2) return fail();
  params p = frequency_block(mechanism::grr, d);
  p.set(field::threshold_keep, grr_threshold(epsilon, d));
  return finish(p);
}

namespace {

// Symmetric bits (keep, 2^w - keep) of which `differing` can differ between two inputs, each
// carrying epsilon / differing: SUE and dBitFlip with d >= 2 (two bits), dBitFlip with d = 1 (one).
uint64_t symmetric_keep(double epsilon, unsigned differing) {
  const double e = det_exp(epsilon / differing);
  const auto level = [differing](uint64_t t) { return differing * keep_epsilon(t, 1); };
  return keep_threshold(e / (1 + e), epsilon, level);
}

}  // namespace

derived_params make_sue(double epsilon, uint32_t d) noexcept {
  if (!valid_epsilon(epsilon) || d < 2) return fail();
  // One-hot inputs differ in two bits: each carries epsilon / 2 (docs/mechanisms.md A.2, classic bug).
  const uint64_t keep = symmetric_keep(epsilon, 2);
  params p = frequency_block(mechanism::sue, d);
  p.set(field::threshold_keep, keep).set(field::threshold_other, one - keep);
  return finish(p);
}

derived_params make_dbitflip(double epsilon, uint32_t k, uint32_t d) noexcept {
  if (!valid_epsilon(epsilon) || k < 2 || d < 1 || d > k || d > dbitflip_max_sampled) return fail();
  // E.3: two inputs differ in the bits of both buckets when both are sampled (d >= 2: epsilon / 2
  // each, DKY's e^{eps/2}); with d = 1 at most one of them is, so the one bit may carry epsilon.
  const uint64_t keep = symmetric_keep(epsilon, d >= 2 ? 2 : 1);
  params p = frequency_block(mechanism::dbitflip, k);
  p.set(field::threshold_keep, keep).set(field::threshold_other, one - keep).set(field::sampled_buckets, d);
  return finish(p);
}

derived_params make_oue(double epsilon, uint32_t d) noexcept {
  if (!valid_epsilon(epsilon) || d < 2) return fail();
  // p = 1/2 exactly; q = 1 / (e^eps + 1) rounded up.
  const auto level = [](uint64_t t) { return keep_epsilon(one - t, 1); };
  const uint64_t other = flip_threshold(1 / (det_exp(epsilon) + 1), epsilon, level);
  params p = frequency_block(mechanism::oue, d);
  p.set(field::threshold_keep, one / 2).set(field::threshold_other, other);
  return finish(p);
}

derived_params make_blh(double epsilon, uint32_t d) noexcept { return make_olh(epsilon, d, 2); }

namespace {

// The hash range of OLH and FLH (A.4): whichever of floor(e^eps) + 1 and ceil(e^eps) + 1 has the
// smaller implemented variance, at most 2^31.
uint32_t local_hash_range(double epsilon) {
  const double e = det_exp(epsilon);
  const double lo = static_cast<double>(static_cast<uint64_t>(e)) + 1;
  uint64_t best = 0;
  double best_term = infinity;
  for (double candidate : {lo, lo + 1}) {
    const auto c = static_cast<uint64_t>(candidate < 2 ? 2 : candidate);
    const double term = olh_leading_term(grr_threshold(epsilon, c), c);
    if (term < best_term) {
      best_term = term;
      best = c;
    }
  }
  return static_cast<uint32_t>(best > (uint64_t{1} << 31) ? (uint64_t{1} << 31) : best);
}

}  // namespace

derived_params make_olh(double epsilon, uint32_t d, uint32_t g) noexcept {
  if (!valid_epsilon(epsilon) || d < 2) return fail();
  if (g == 0) g = local_hash_range(epsilon);
  if (g < 2) return fail();
  params p = frequency_block(g == 2 ? mechanism::blh : mechanism::olh, d);
  p.set(field::threshold_keep, grr_threshold(epsilon, g)).set(field::hash_range, g);
  return finish(p);
}

derived_params make_flh(double epsilon, uint32_t d, uint32_t k, const unsigned char hash_seed[seed_size],
                        uint32_t g) noexcept {
  if (!valid_epsilon(epsilon) || d < 2 || hash_seed == nullptr) return fail();
  if (g == 0) g = local_hash_range(epsilon);
  if (g < 2) return fail();
  params p = frequency_block(mechanism::flh, d);
  p.set(field::threshold_keep, grr_threshold(epsilon, g)).set(field::hash_range, g).set(field::sketch_rows, k);
  p.set_seed(field::hash_seed, hash_seed);
  return finish(p);
}

namespace {

// The HR block of size K (A.5): B = ceil(d / (K - 1)) blocks (row 0 of each is unusable), and the
// keep threshold of GRR on 2B symbols, since a report is one of 2B halves of blocks. B = 1 leaves
// the field out: the 1-bit HR's block, byte for byte.
params hr_block(double epsilon, uint32_t d, uint64_t k) {
  const uint64_t blocks = (d + k - 2) / (k - 1);
  params p = frequency_block(mechanism::hr, d);
  p.set(field::threshold_keep, grr_threshold(epsilon, 2 * blocks)).set(field::hadamard_dim, k);
  if (blocks > 1) p.set(field::hadamard_blocks, blocks);
  return p;
}

}  // namespace

derived_params make_hr(double epsilon, uint32_t d, uint32_t k) noexcept {
  if (!valid_epsilon(epsilon) || d < 2 || d >= (uint32_t{1} << 30)) return fail();
  if (k != 0) return k >= 2 && (k & (k - 1)) == 0 ? finish(hr_block(epsilon, d, k)) : fail();
  // Every K = 2, 4, ..., 2^ceil(log2(d + 1)) (the last has one block); the least implemented mean
  // variance wins, ties to the larger K (fewer blocks).
  params best = hr_block(epsilon, d, 2);
  double best_variance = hr_mean_variance(best);
  for (uint64_t size = 4; size / 2 <= d; size <<= 1) {
    const params p = hr_block(epsilon, d, size);
    const double v = hr_mean_variance(p);
    if (v <= best_variance) {
      best = p;
      best_variance = v;
    }
  }
  return finish(best);
}

hr_moments hr_model(const params& p) noexcept {
  // Out of 2^32: the halves other than the item's C_v share 2^32 - T equally.
  const double keep = static_cast<double>(p.get(field::threshold_keep)) / one_d;
  const double other =
      (one_d - static_cast<double>(p.get(field::threshold_keep))) / one_d / static_cast<double>(2 * hr_blocks(p) - 1);
  hr_moments m;
  m.scale = keep - other;
  m.in_block = keep + other;
  m.out_block = 2 * other;
  return m;
}

double hr_mean_variance(const params& p) noexcept {
  const hr_moments m = hr_model(p);
  const uint64_t d = p.get(field::domain), per_block = p.get(field::hadamard_dim) - 1, blocks = hr_blocks(p);
  const auto full = static_cast<double>(per_block), last = static_cast<double>(d - (blocks - 1) * per_block);
  const auto items = static_cast<double>(d);
  // sum_J (s_J / d)^2 over the blocks' item counts s_J: B - 1 full blocks and the last.
  const double share = (static_cast<double>(blocks - 1) * full * full + last * last) / (items * items);
  return (m.out_block + (m.in_block - m.out_block) * share) / (m.scale * m.scale);
}

derived_params make_cms(double epsilon, uint32_t d, uint32_t k, uint32_t m,
                        const unsigned char hash_seed[seed_size]) noexcept {
  if (!valid_epsilon(epsilon) || d < 2) return fail();
  // Flip each of the m signs with 1 / (1 + e^{eps/2}): two signs differ between inputs.
  const auto level = [](uint64_t t) { return 2 * keep_epsilon(one - t, 1); };
  const uint64_t flip = flip_threshold(1 / (1 + det_exp(epsilon / 2)), epsilon, level);
  params p = frequency_block(mechanism::cms, d);
  p.set(field::threshold_other, flip).set(field::sketch_rows, k).set(field::sketch_columns, m);
  p.set_seed(field::hash_seed, hash_seed);
  return finish(p);
}

derived_params make_hcms(double epsilon, uint32_t d, uint32_t k, uint32_t m,
                         const unsigned char hash_seed[seed_size]) noexcept {
  if (!valid_epsilon(epsilon) || d < 2) return fail();
  const uint64_t flip = detail::binary_flip_threshold(epsilon);
  params p = frequency_block(mechanism::hcms, d);
  p.set(field::threshold_other, flip).set(field::sketch_rows, k).set(field::sketch_columns, m);
  p.set_seed(field::hash_seed, hash_seed);
  return finish(p);
}

derived_params make_frequency_oracle(mechanism m, double epsilon, uint32_t d, uint32_t rows, uint32_t columns,
                                     const unsigned char* hash_seed) noexcept {
  const bool sketch = m == mechanism::cms || m == mechanism::hcms || m == mechanism::flh;
  if ((sketch && hash_seed == nullptr) || !in_family(m, mechanism_family::frequency_oracle)) return fail();
  switch (oracle_of(m)) {
    case frequency_oracle::grr: return make_grr(epsilon, d);
    case frequency_oracle::sue: return make_sue(epsilon, d);
    case frequency_oracle::oue: return make_oue(epsilon, d);
    case frequency_oracle::blh: return make_blh(epsilon, d);
    case frequency_oracle::olh: return make_olh(epsilon, d);
    case frequency_oracle::hr: return make_hr(epsilon, d);
    case frequency_oracle::cms: return make_cms(epsilon, d, rows, columns, hash_seed);
    case frequency_oracle::hcms: return make_hcms(epsilon, d, rows, columns, hash_seed);
    case frequency_oracle::flh: return make_flh(epsilon, d, rows, hash_seed, columns);
    case frequency_oracle::dbitflip: return make_dbitflip(epsilon, d, rows == 0 ? 1 : rows);
  }
  return fail();
}

namespace {

// The smallest t in [lo, hi] with fits(t), fits false then true along [lo, hi]: bisection, about 32
// evaluations, returning only a t that was evaluated to fit; hi + 1 when none does.
template <class Fits>
uint64_t first_fitting(uint64_t lo, uint64_t hi, Fits fits) {
  if (!fits(hi)) return hi + 1;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return hi;
}

}  // namespace

derived_params make_memoized_oracle(mechanism m, double epsilon_longitudinal, double epsilon_report,
                                    uint32_t d) noexcept {
  if (!valid_epsilon(epsilon_report) || !(epsilon_report < epsilon_longitudinal) || memo_fields(m) == 0) {
    return fail();
  }
  // OLH's hash range is chosen for the reports' level: a report is a GRR on the g buckets at
  // epsilon_1, whose variance is least near g = e^{epsilon_1} + 1 (A.4). The g of epsilon_inf made
  // the per-report variance 5x (epsilon_inf = 4) to 270x (epsilon_inf = 8) larger at epsilon_1 = 1.
  const derived_params permanent = m == mechanism::olh
                                       ? make_olh(epsilon_longitudinal, d, local_hash_range(epsilon_report))
                                       : make_frequency_oracle(m, epsilon_longitudinal, d);
  if (permanent.code != status::ok) return permanent;
  params p = permanent.block;
  const bool unary = kind_of(p.mech) == payload_kind::unary_bits;
  const auto set_instant = [&](uint64_t keep, uint64_t other) {
    p.set(field::instant_keep, keep);
    if (unary) p.set(field::instant_other, other);
  };
  const auto fits = [&](uint64_t keep, uint64_t other) {
    set_instant(keep, other);
    return report_epsilon(p) <= epsilon_report / margin;
  };
  if (unary) {
    // Symmetric: the least flip t in [1, 2^31 - 1] that fits (epsilon_1 falls as t grows to 1/2).
    const uint64_t flip = first_fitting(1, one / 2 - 1, [&](uint64_t t) { return fits(one - t, t); });
    if (flip == one / 2) return fail();
    set_instant(one - flip, flip);
  } else {
    // The largest keep in (2^32 / g, 2^32 - 1] that fits (epsilon_1 falls with the keep), searched
    // as the least drop below 2^32 - 1.
    const uint64_t lowest = one / p.get(field::hash_range) + 1, highest = one - 1;
    const uint64_t drop = first_fitting(0, highest - lowest, [&](uint64_t u) { return fits(highest - u, 0); });
    if (drop > highest - lowest) return fail();
    set_instant(highest - drop, 0);
  }
  return finish(p);
}

}  // namespace ldp::wire
