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

// Any of the nine by id: `rows`, `columns` and `hash_seed` are used by CMS, HCMS (k rows, m
// columns) and FLH (k functions, hash range g or 0 for OLH's choice) only (and may be 0 / null
// otherwise); invalid_argument for a mechanism that is not a frequency oracle.
[[nodiscard]] derived_params make_frequency_oracle(mechanism m, double epsilon, uint32_t d, uint32_t rows = 0,
                                                   uint32_t columns = 0,
                                                   const unsigned char* hash_seed = nullptr) noexcept;

// epsilon_impl of a block from its integers (docs/mechanisms.md Table D.1): the frequency oracles, and
// the numeric mechanisms of mean_params.h (Duchi ln(T_hi/T_lo), discrete Laplace Delta/t). +inf
// when a probability is 0 or 1 where the mechanism needs it strictly inside, NaN for mechanisms
// without a formula here.
[[nodiscard]] double implemented_epsilon(const params& p) noexcept;

}  // namespace ldp::wire

#endif
