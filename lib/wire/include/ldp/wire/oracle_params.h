// Parameter blocks of the frequency oracles from (epsilon, d, ...), docs/mechanisms.md A.1-A.6 with the
// rounding procedure of D.1: ideal probabilities in (deterministic) double precision, thresholds
// rounded toward privacy, then the implemented epsilon computed from the integers (Table D.1) and
// the thresholds stepped toward privacy until epsilon_impl * (1 + 2^-40) <= epsilon. The one
// routine both halves use, so devices may also derive blocks themselves.
#ifndef LDP_WIRE_ORACLE_PARAMS_H
#define LDP_WIRE_ORACLE_PARAMS_H

#include <cstdint>

#include "ldp/base/status.h"
#include "ldp/wire/epsilon.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

// All thresholds are out of 2^32.
inline constexpr unsigned oracle_threshold_bits = 32;

struct derived_params {
  params block;
  double epsilon_impl = 0;   // the level the integers implement, <= the epsilon asked for
  status code = status::ok;  // invalid_argument for epsilon or sizes out of range
};

// epsilon in (0, 40]; d >= 2 (and the limits of docs/wire_format.md table 3).
[[nodiscard]] derived_params make_grr(double epsilon, uint32_t d) noexcept;
[[nodiscard]] derived_params make_sue(double epsilon, uint32_t d) noexcept;
[[nodiscard]] derived_params make_oue(double epsilon, uint32_t d) noexcept;
[[nodiscard]] derived_params make_blh(double epsilon, uint32_t d) noexcept;
// g is the integer near e^epsilon + 1 with the smaller implemented variance (A.4); g = 0 chooses.
[[nodiscard]] derived_params make_olh(double epsilon, uint32_t d, uint32_t g = 0) noexcept;
[[nodiscard]] derived_params make_hr(double epsilon, uint32_t d) noexcept;
// k rows of m columns (HCMS: m a power of two), hash family from a public 32-byte seed.
[[nodiscard]] derived_params make_cms(double epsilon, uint32_t d, uint32_t k, uint32_t m,
                                      const unsigned char hash_seed[seed_size]) noexcept;
[[nodiscard]] derived_params make_hcms(double epsilon, uint32_t d, uint32_t k, uint32_t m,
                                       const unsigned char hash_seed[seed_size]) noexcept;

// The number of FLH functions the tool and the recommender use unless told otherwise (A.4: the
// shared-hash variance is below 5 % of OLH's when sum_w c_w^2 <= 0.05 k (g - 1) n V, V OLH's
// variance per report).
inline constexpr uint32_t flh_default_functions = 1024;

// FLH (A.4): k public hash functions from a 32-byte seed (k g <= 2^32), GRR over g buckets; g as
// for OLH (0 chooses).
[[nodiscard]] derived_params make_flh(double epsilon, uint32_t d, uint32_t k, const unsigned char hash_seed[seed_size],
                                      uint32_t g = 0) noexcept;

// dBitFlip (docs/mechanisms.md E.3, Ding, Kulkarni, Yekhanin 2017) over k buckets, each device
// sampling d of them (1 <= d <= min(k, 32)): symmetric bits keep = 2^32 - other with
// keep / 2^32 ~ e^{eps/2} / (e^{eps/2} + 1) for d >= 2 (both inputs' buckets may be sampled), and
// e^eps / (e^eps + 1) for d = 1 (at most one is); epsilon_impl <= epsilon (D.1).
[[nodiscard]] derived_params make_dbitflip(double epsilon, uint32_t k, uint32_t d) noexcept;

// Any of the ten by id: `rows`, `columns` and `hash_seed` are used by CMS, HCMS (k rows, m
// columns), FLH (k functions, hash range g or 0 for OLH's choice) and dBitFlip (rows = the sampled
// buckets d, 0 for 1) only (and may be 0 / null otherwise); invalid_argument for a mechanism that
// is not a frequency oracle.
[[nodiscard]] derived_params make_frequency_oracle(mechanism m, double epsilon, uint32_t d, uint32_t rows = 0,
                                                   uint32_t columns = 0,
                                                   const unsigned char* hash_seed = nullptr) noexcept;

// epsilon_impl of a block from its integers (docs/mechanisms.md Table D.1): the frequency oracles, and
// the numeric mechanisms of mean_params.h (Duchi ln(T_hi/T_lo), discrete Laplace Delta/t). +inf
// when a probability is 0 or 1 where the mechanism needs it strictly inside, NaN for mechanisms
// without a formula here. For a memoized oracle block: the level of one report, epsilon_1 of the
// composite channel of both stages (docs/mechanisms.md E.1).
[[nodiscard]] double implemented_epsilon(const params& p) noexcept;

// ---- Memoized randomized response (docs/mechanisms.md E.1, RAPPOR's two stages) ----------------
// A memoized block is an sue, oue, olh or blh block with the instantaneous thresholds instant_keep
// (and, for sue and oue, instant_other): its own thresholds are the permanent stage, applied once
// per (device, value), and the instantaneous stage randomizes the permanent response again in
// every report.

[[nodiscard]] constexpr bool is_memoized(const params& p) noexcept { return p.has(field::instant_keep); }

// Whether a block's reports need the device secret (memo_key): memoized blocks, and dBitFlip, whose
// sampled buckets and bits are permanent by design (E.3) and which has no instantaneous stage.
[[nodiscard]] constexpr bool needs_device_secret(const params& p) noexcept {
  return is_memoized(p) || p.mech == mechanism::dbitflip;
}

// The fields a memoized block of m adds to the required ones (docs/wire_format.md 3.2); none for
// the mechanisms without a memoized form. duchi: memo_grid and output_flip (E.2, mean_params.h).
[[nodiscard]] field_set memo_fields(mechanism m) noexcept;

// The channel from a device's item to one memoized report, both stages composed (E.1): unary
// encodings: the probability p that a report's bit is 1 at the device's item and q at another
// item; local hashing: the probability p that the reported bucket is the item's hash bucket and q
// that it is one given other bucket, q = (1 - p) / (g - 1). Complements are computed without
// cancellation (epsilon_1 near the saturation of w = 32 needs them). Zeros for a block that is not
// memoized.
struct memo_channel {
  double p = 0, not_p = 0, q = 0, not_q = 0;
};
[[nodiscard]] memo_channel composite_channel(const params& p) noexcept;

// The longitudinal level epsilon_inf of a frequency oracle block: what any number of reports of one
// value by one device reveal. A memoized block: the permanent stage's epsilon_impl (Table D.1 of
// its own thresholds); any other frequency oracle: +inf (every report draws fresh coins, so k
// reports compose to k epsilon with no bound). A mean block: ln(T_hi / T_lo) for memoized duchi
// (E.2, for a device whose rounded value stays one grid point), +inf for the others. NaN for other
// families.
[[nodiscard]] double longitudinal_epsilon(const params& p) noexcept;

// A memoized sue, oue, olh or blh block: the permanent stage as make_frequency_oracle(m,
// epsilon_longitudinal, d), except that olh takes the hash range make_olh chooses for
// epsilon_report (a report is a GRR on g buckets at epsilon_1; it may come out a blh block), then
// the least noisy instantaneous thresholds on the 2^32 grid whose composite epsilon_1 satisfies
// epsilon_1 (1 + 2^-40) <= epsilon_report (D.1 rule; unary: a symmetric instantaneous response,
// instant_keep + instant_other = 2^32; local hashing: GRR on the g buckets). epsilon_impl is
// epsilon_1. invalid_argument for another mechanism, epsilons out of (0, 40] or epsilon_report >=
// epsilon_longitudinal, and when no instantaneous threshold fits.
[[nodiscard]] derived_params make_memoized_oracle(mechanism m, double epsilon_longitudinal, double epsilon_report,
                                                  uint32_t d) noexcept;

}  // namespace ldp::wire

#endif
