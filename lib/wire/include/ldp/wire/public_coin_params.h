// The parameter blocks of the public-coin learners of Wang, Gaboardi, Smith, Xu (docs/mechanisms.md
// H.2 bernstein-1bit = Alg 3, H.3 bernstein-genprot = Alg 8; docs/wire_format.md 3.2, 3.3, 3.12).
//
// Fields: vector_dim p, grid_size k (the (k + 1)^p grid of loss.h, one group of users per grid point),
// loss, users n, hash_seed (the public samples and the partition, random/public_coin.h), frac_bits f
// (loss values and public samples on the grid of V = 2^f units per 1), scale_num / scale_den (the
// discrete Laplace scale t of the public samples, in grid units), and for genprot public_strings T.
//
// Integer thresholds (H.2): a user whose quantized loss is v in {0..V} against the public sample y
// has the margin a = |y| - |y - v| in {-v..v}, and sends 1 with probability
// T(a) / 2^32, T(a) = floor(2^31 det_exp(a t_den / t_num) + 1/2): 1/2 exp(lambda a), lambda = 1/t.
// Device and server derive T from the block with the same IEEE operations (det_math.h).
#ifndef LDP_WIRE_PUBLIC_COIN_PARAMS_H
#define LDP_WIRE_PUBLIC_COIN_PARAMS_H

#include <cstdint>

#include "ldp/wire/loss.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

inline constexpr unsigned public_coin_threshold_bits = 32;
inline constexpr unsigned public_coin_max_frac_bits = 16;  // V <= 2^16: the level is an O(V) enumeration
inline constexpr uint32_t public_coin_max_groups = uint32_t{1} << 24;
inline constexpr uint32_t genprot_max_strings = 65536;

struct public_coin_shape {
  uint32_t dim = 1;   // p
  uint32_t grid = 1;  // k
  loss_kind loss = loss_kind::squared;
  uint32_t users = 1;       // n >= (k + 1)^p
  unsigned frac_bits = 10;  // V = 2^f
  uint32_t strings = 0;     // T (genprot only), >= 2
  unsigned char seed[seed_size] = {};
};

// The inner level that makes one bit eps-LDP (H.2, the corrected Theorem 23): ln(2 - e^{-eps}).
[[nodiscard]] double one_bit_inner_epsilon(double epsilon) noexcept;

// The blocks at level epsilon: the inner level of the ideal thresholds by bisection, then the
// smallest scale_num (scale_den 2^16) at or above V / inner whose enumerated level
// (public_coin_epsilon) fits (D.1). invalid_argument for a shape that breaks a rule of
// docs/wire_format.md 3.3, or a level no scale reaches (genprot below its floor, H.3). A level above
// the cap of the inner level (ln 2, where T(V) reaches 2^32) is implemented at the cap.
[[nodiscard]] derived_params make_bernstein_1bit(double epsilon, const public_coin_shape& shape) noexcept;
[[nodiscard]] derived_params make_bernstein_genprot(double epsilon, const public_coin_shape& shape) noexcept;

// V = 2^frac_bits.
[[nodiscard]] constexpr int64_t coin_grid(const params& p) noexcept { return int64_t{1} << p.get(field::frac_bits); }

// (k + 1)^p, the groups of the partition.
[[nodiscard]] uint32_t coin_groups(const params& p) noexcept;

// a = |y| - |y - v| for v in {0..V}: y is clamped to [0, V] first (y <= 0 gives -v, y >= V gives v),
// so any int64 sample works.
[[nodiscard]] constexpr int64_t coin_margin(int64_t y, int64_t v, int64_t grid) noexcept {
  const int64_t c = y < 0 ? 0 : (y > grid ? grid : y);
  return c - (c > v ? c - v : v - c);
}

// T(a) out of 2^32 for a in [-V, V] (see above).
[[nodiscard]] uint64_t coin_threshold(const params& p, int64_t a) noexcept;

// The exact per-bit levels of the thresholds, by enumeration over the public sample (H.2): for y in
// {0..V} (y <= 0 acts as 0 and y >= V as V) the margins of v in {0..V} fill [min(0, 2y - V), y],
// and any two of them are a neighbouring pair; T is checked non-decreasing, so the extremes of each
// interval decide. bit_one = max ln T(hi) / T(lo), bit_zero = max ln (2^32 - T(lo)) / (2^32 - T(hi)).
struct coin_levels {
  double bit_one = 0;
  double bit_zero = 0;
  double p_lo = 0;      // T(-V) / 2^32, the smallest probability of a 1
  double p_hi = 0;      // T(V) / 2^32
  bool finite = false;  // T non-decreasing, 1 <= T(-V), T(V) < 2^32
};
[[nodiscard]] coin_levels enumerate_levels(const params& p) noexcept;

// GenProt's level bound for T strings from the per-bit levels (H.3):
// ln( e^{2 bit_one} (1 + 1 / ((T - 1) p_lo)) + (1 - p_lo)^T (1 + (T - 1) p_hi) / (T p_lo) ).
[[nodiscard]] double genprot_level(const coin_levels& c, uint32_t strings) noexcept;

namespace detail {

// The block rules of docs/wire_format.md 3.3 for the public-coin learners (params.cpp calls it).
[[nodiscard]] bool public_coin_rules_hold(const params& p) noexcept;

// bernstein-1bit: max(bit_one, bit_zero), exact; bernstein-genprot: genprot_level, a bound
// (oracle_params.cpp's implemented_epsilon). +inf when the thresholds are not finite.
[[nodiscard]] double public_coin_epsilon(const params& p) noexcept;

}  // namespace detail
}  // namespace ldp::wire

#endif
