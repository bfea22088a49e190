// Parameter-block field tags and widths (docs/wire_format.md 3.1). The tags are part of the format:
// never renumber or reuse one. Separate from params.h so that the mechanism table
// (mechanism_table.h) can name each mechanism's required fields.
#ifndef LDP_WIRE_FIELD_H
#define LDP_WIRE_FIELD_H

#include <cstddef>
#include <cstdint>

namespace ldp::wire {

// Field tags, in canonical (increasing) order. The tag fixes the width of the value.
enum class field : uint8_t {
  domain = 1,              // u32  d: items, cells, or vector dimension
  threshold_bits = 2,      // u8   w: thresholds are out of 2^w, 1 <= w <= 63
  threshold_keep = 3,      // u64  T_p (GRR/HR/OLH/FLH/SUE keep, OUE true-bit, Duchi T_hi)
  threshold_other = 4,     // u64  T_q (SUE/OUE other bits, CMS/HCMS flip, Duchi T_lo)
  hash_range = 5,          // u32  g (BLH, OLH, FLH)
  sketch_rows = 6,         // u32  k (CMS, HCMS rows; FLH hash functions)
  sketch_columns = 7,      // u32  m (CMS, HCMS)
  hadamard_dim = 8,        // u32  K (HR) or padded dimension d~ (vector mechanisms), a power of two
  frac_bits = 9,           // u8   fixed-point fraction bits of values, <= 62
  clip_lo = 10,            // i64  lower end of the value range, in fixed point
  clip_hi = 11,            // i64  upper end of the value range, in fixed point
  scale_num = 12,          // u64  discrete Laplace scale t = scale_num / scale_den, in grid units
  scale_den = 13,          // u64
  sparsity = 14,           // u32  s, the most non-zeros a sparse report holds
  round = 15,              // u8   round of a user-level protocol (1 or 2)
  interval_lo = 16,        // i64  broadcast interval [L, U] of round 2, in fixed point
  interval_hi = 17,        // i64
  observations = 18,       // u32  observation cap T~ of a user-level protocol
  hash_seed = 19,          // 32 bytes: public seed of hash families (CMS, HCMS, FLH)
  rotation_seed = 20,      // 32 bytes: public seed of the rotation signs D (vector mechanisms)
  radius = 21,             // i64  L2 radius R of vector mean estimation, in fixed point (R * 2^f)
  vector_dim = 22,         // u32  d of a user-level protocol on vectors (Kent M2, M3)
  fold_coordinate = 23,    // u32  the coordinate j a Kent M2/M3 fold votes on and refines
  bin_range = 25,          // u64  B: winsorized bins cover [-B, B] of a rotated coordinate (unnormalized grid units)
  bin_half_width = 26,     // u64  tau: winsorized bins are 2 tau wide
  window_half_width = 27,  // u64  w: a round-2 window is [midpoint - w, midpoint + w]
  window_digest = 28,      // u64  SipHash of the broadcast window list (central_params.h)
  instant_keep = 29,   // u64  memoized SUE/OUE: P(S=1 | B'=1); OLH/BLH: the instantaneous GRR keep (mechanisms.md E.1)
  instant_other = 30,  // u64  memoized SUE/OUE: P(S=1 | B'=0)
  memo_grid = 31,      // u32  k: memoized duchi rounds to the k + 1 points lo + j Q / k (docs/mechanisms.md E.2)
  output_flip = 32,    // u64  Phi: memoized duchi flips its permanent bit with Phi / 2^32 (E.2)
  sampled_buckets = 33,  // u32  d of dBitFlip: buckets each device samples (E.3)
  hadamard_blocks = 34,  // u32  B of the block Hadamard response, >= 2 (docs/mechanisms.md A.5); absent: 1
  output_scale = 35,  // u64  B / R in units of 2^-32: a unit-vector report's unit direction times B (mechanisms.md B.6)
  cap_threshold = 36,   // u32  g = round(t 2^26): PrivUnitG's cap <Z, v> >= g, Z on the grid of sigma = 2^26 (B.7)
  projection_dim = 38,  // u32  k: ProjUnit / FastProjUnit project x to k dimensions (mechanisms.md B.8)
  string_length = 39,   // u32  L: string items have 1..L bytes, padded with zero bytes to L (mechanisms.md F.1)
  prefix_bits = 40,     // u32  eta: PEM and TreeHist extend the prefix by eta bits a group (F.2, F.3)
  branching = 41,       // u32  B: a hierarchical histogram's fan-out, domain = B^h (mechanisms.md G.2)
  basis = 42,           // u32  1: a Kent M5 fold reports a trigonometric basis feature (mechanisms.md C.1 P5)
  vote_threshold = 43,  // u64  tau: a Kent M4 voter marks coordinate j when |local mean_j| >= tau (grid units, C.1)
  grid_size = 44,       // u32  k: the public grid {0, 1/k, ..., 1}^p of the Bernstein learners (mechanisms.md H.1-H.3)
  loss = 45,            // u32  the loss a Bernstein device evaluates (wire::loss_kind, mechanisms.md H.0)
  marginal_order = 46,  // u32  k: conjunctions of at most k attributes (k-way marginals, mechanisms.md H.5)
  degree = 47,          // u32  t: Chebyshev degrees 0..t-1 per attribute (smooth queries, mechanisms.md H.6)
  public_strings = 48,  // u32  T: public samples per user of the GenProt learner (mechanisms.md H.3)
  users = 49,           // u32  n: users of a public partition into groups (mechanisms.md H.2, H.3)
  // glm-copies (mechanisms.md H.4) names its Bernstein degree d with `degree` (47): d (d + 1) + 1 copies.
  noise_sigma2 = 50,   // u64  sigma^2 of glm-copies' discrete Gaussian, in grid units squared (H.4)
  privacy_delta = 51,  // u64  delta of an (epsilon, delta) block, in units of 2^-64 (glm-copies, H.4)
};

// 51 keeps a block within the C API's LDP_PARAMS_SIZE and LDP_PARAMS_MAX_ENCODED_SIZE (512 bytes).
inline constexpr int field_max = 51;
inline constexpr std::size_t seed_size = 32;

// Bytes of a field's value in the encoding.
[[nodiscard]] constexpr std::size_t field_width(field f) noexcept {
  switch (f) {
    case field::threshold_bits:
    case field::frac_bits:
    case field::round: return 1;
    case field::threshold_keep:
    case field::threshold_other:
    case field::clip_lo:
    case field::clip_hi:
    case field::scale_num:
    case field::scale_den:
    case field::interval_lo:
    case field::interval_hi:
    case field::radius:
    case field::bin_range:
    case field::bin_half_width:
    case field::window_half_width:
    case field::window_digest:
    case field::instant_keep:
    case field::instant_other:
    case field::output_flip:
    case field::output_scale:
    case field::vote_threshold:
    case field::noise_sigma2:
    case field::privacy_delta: return 8;
    case field::hash_seed:
    case field::rotation_seed: return seed_size;
    default: return 4;
  }
}

// A set of fields as params::present holds it: bit t for tag t (64 bits: tags reach 51).
using field_set = uint64_t;

[[nodiscard]] constexpr field_set field_bit(field f) noexcept { return field_set{1} << static_cast<int>(f); }

}  // namespace ldp::wire

#endif
