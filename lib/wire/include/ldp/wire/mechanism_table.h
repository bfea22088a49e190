// The one list of wire mechanisms (docs/wire_format.md table 2 and 3.2): a row per mechanism with its
// id, its names, its payload kind, its family, its member within the family and the fields its
// parameter block requires. Every other list of mechanisms (mechanism.h's queries, validate()'s
// field check, the server's family lookup, the device's contexts, the tool's mechanism list, the C
// API's checks) derives from it, so a new mechanism is one row here plus the code that implements it.
// constexpr and heap-free: firmware includes it too.
//
// Code dispatches in two steps (docs/architecture.md "The mechanism table"): first on the row's
// family (mechanism_family changes rarely: a handful of top-level switches), then, inside the
// family's own code, on the family's member enum (frequency_oracle, mean_member, vector_mean_member)
// read from the row by oracle_of(), mean_of(), vector_mean_of(). Neither switch has a default:, so
// -Wswitch names every place a new family or member must be served, and no switch lists the
// mechanisms of the other families. A member enum rather than the wire id because the wire ids of a
// family are not contiguous and the user-level rounds are counted by another family's code.
#ifndef LDP_WIRE_MECHANISM_TABLE_H
#define LDP_WIRE_MECHANISM_TABLE_H

#include <cstddef>
#include <cstdint>

#include "ldp/wire/field.h"

namespace ldp::wire {

// Mechanism identifiers (docs/wire_format.md table 2). The numbers are part of the format: never
// renumber or reuse one. docs/mechanisms.md names the mechanisms.
enum class mechanism : uint8_t {
  none = 0,
  grr = 1,                 // A.1 k-RR
  sue = 2,                 // A.2 basic one-time RAPPOR
  oue = 3,                 // A.3
  blh = 4,                 // A.4 binary local hashing
  olh = 5,                 // A.4 optimized local hashing
  hr = 6,                  // A.5 Hadamard response
  cms = 7,                 // A.6 count-mean sketch
  hcms = 8,                // A.6 Hadamard count-mean sketch
  kent_vote = 9,           // C.1 P1, round 1 of the user-level protocols
  flh = 10,                // A.4 fast local hashing: one of k public hash functions
  dbitflip = 11,           // E.3 DKY's d-bit histogram: d sampled buckets, a permanent bit each
  laplace = 16,            // B.1 discrete Laplace on a fixed-point grid, one value
  laplace_vector = 17,     // B.1 per coordinate, L1 sensitivity
  duchi = 18,              // B.2 one-bit mean
  vector_duchi = 19,       // B.5 rotation, coordinate sampling, one bit
  vector_laplace = 20,     // B.5 rotation, coordinate sampling, discrete Laplace
  sparse_projection = 21,  // C.3 device side: at most s index/value pairs
  kent_refine = 22,        // C.1 P2, round 2 of the user-level protocols
  winsorized_bins = 23,    // C.2 round 1: the bins of a user's rotated mean (Levy et al.)
  winsorized_sums = 24,    // C.2 round 2: the rotated mean clipped to the broadcast windows
  l2_ball = 25,            // B.6 Duchi, Jordan, Wainwright's L2-ball mechanism: a direction on the sphere
  privunitg = 26,          // B.7 Asi, Feldman, Talwar's PrivUnitG: a discrete Gaussian in or out of a cap
  projunit = 27,           // B.8 PrivUnitG after a k x d Rademacher projection named by a per-report seed
  fastprojunit = 28,       // B.8 PrivUnitG after k sampled rows of a randomized Hadamard transform (seeded)
  pem = 29,                // F.2 prefix extending discovery of strings (Wang et al.): OLH on prefix items
  treehist = 30,           // F.3 TreeHist (Bassily et al.): HCMS on prefix items, threshold pruning
  sfp = 31,                // F.4 Apple's sequence fragment puzzle: CMS on fragment and word items
  square_wave = 32,        // G.1 Square Wave (Li et al.): a bucket of a window around the value, or any other
  hierarchical = 33,       // G.2 hierarchical histogram (Cormode et al.): one level's node through OLH
  haar = 34,               // G.3 Haar wavelet: one level's coefficient node and sign through OLH
  kent_support = 35,       // C.1 P4, round 1 of Kent M4a: the hashed vote for a user's sparse support
  bernstein = 36,          // H.1 Wang et al.'s local Bernstein mechanism: the losses on a grid, laplace-vector
  kway_marginals = 37,     // H.5 Wang et al. Alg 6: conjunctions of at most k of p bits, laplace-vector coordinates
  smooth_queries = 38,     // H.6 Wang et al. Alg 7: Chebyshev features of x in [-1, 1]^p, laplace-vector reports
  bernstein_1bit = 39,     // H.2 Wang et al. Alg 3: one bit per user against its public Laplace sample
  bernstein_genprot = 40,  // H.3 Wang et al. Alg 8 (GenProt): the index of one of T public samples
  glm_copies = 41,         // H.4 Wang et al. Algs 4/5: d (d + 1) + 1 discrete Gaussian copies of (x, y)
};

// The shape of a report's payload (docs/wire_format.md section 5); several mechanisms share one.
// The first five are the frequency oracles' (params.cpp relies on the order).
enum class payload_kind : uint8_t {
  index,             // one value in [0, n): GRR (n = d), HR (n = K), FLH (n = k g: function j, bucket y as j g + y)
  unary_bits,        // d packed bits: SUE, OUE, kent_vote
  hash_bucket,       // 64-bit seed + bucket in [0, g): BLH, OLH; dbitflip: the device's seed + its d bits (< 2^d)
  sketch_row,        // row in [0, k) + m packed bits: CMS
  sketch_cell,       // row in [0, k), column in [0, m), sign bit: HCMS
  fixed_value,       // one zigzag varint: laplace, kent_refine
  fixed_vector,      // d zigzag varints: laplace_vector, kway_marginals, winsorized_bins and _sums (d = d~)
  bit,               // one bit: duchi
  coordinate_bit,    // coordinate in [0, K) + bit: vector_duchi; bernstein-1bit (K = users)
  coordinate_value,  // coordinate in [0, K) + zigzag varint: vector_laplace; bernstein-genprot (K = users, g in [0, T))
  sparse_pairs,      // count <= s, then strictly increasing index + value pairs: sparse_projection
  unit_vector,       // d int16 coordinates: l2_ball's unit direction times 2^14, privunitg's Z / 2^15
  projected_unit,    // 64-bit projection seed + k int16 coordinates: projunit, fastprojunit
  group_round,       // group in [0, G) + the inner oracle's payload: pem, hierarchical, haar (hash_bucket), treehist
                     // (sketch_cell), sfp (sketch_row)
  seeded_value,      // 64-bit seed + one zigzag varint: kent_support (the seed of its public signs, the noisy sum)
};

// What a mechanism estimates, and so which server aggregator counts its reports.
enum class mechanism_family : uint8_t {
  frequency_oracle,   // docs/mechanisms.md A: one item of [0, d) per device (server/frequency.h)
  mean,               // B.1, B.2: values in a range, per coordinate (server/mean.h)
  vector_mean,        // B.5: vectors in an L2 ball, rotated and sampled (server/vector_mean.h)
  user_level_vote,    // C.1 P1: a user's vote for the cell of its local mean (counted as an oracle)
  user_level_refine,  // C.1 P2: a user's clipped local mean (summed as a mean)
  sparse_projection,  // C.3: s index/value pairs, released centrally (server/sparse_projection.h)
  winsorized_bins,    // C.2 round 1: the bins of a user's rotated mean (server/winsorized.h)
  winsorized_sums,    // C.2 round 2: the rotated mean clipped to the windows (server/winsorized.h)
  unit_vector,        // B.6: vectors in an L2 ball, reported as a scaled direction (server/unit_vector.h)
  string_discovery,   // F: byte strings, one group's derived item through an inner oracle (server/string_discovery.h)
  distribution,  // G: values in a range, as a histogram of buckets: densities, ranges, quantiles (server/distribution.h)
  user_level_support,  // C.1 P4: a user's hashed support vote (server/kent_support.h)
  public_coin,  // H.2, H.3: a user's loss at its public group's grid point, against public samples (server/public_coin.h)
  gaussian_copies,  // H.4: noisy copies of a labelled example for the GLM learner (server/glm.h)
};

// The members of the families that have more than one (the table's member column). The
// user-level rounds are counted by another family's code, so their member names the mechanism of
// that family they are counted as: the vote is SUE over cells (docs/mechanisms.md C.1 P1), the refined
// mean a discrete Laplace value (C.1 P2).
enum class frequency_oracle : uint8_t { grr, sue, oue, blh, olh, hr, cms, hcms, flh, dbitflip };  // A, E.3
enum class mean_member : uint8_t { laplace, laplace_vector, duchi, bernstein, kway_marginals, smooth_queries };  // B, H
enum class vector_mean_member : uint8_t { duchi, laplace };                                                      // B.5
enum class unit_vector_member : uint8_t { l2_ball, privunitg, projunit, fastprojunit };  // B.6-B.8
enum class string_member : uint8_t { pem, treehist, sfp };                               // F.2-F.4
enum class distribution_member : uint8_t { square_wave, hierarchical, haar };            // G.1-G.3
enum class public_coin_member : uint8_t { one_bit, genprot };                            // H.2, H.3

// A row's member: the value of its family's member enum (0 for the families of one mechanism).
struct family_member {
  uint8_t value = 0;
  constexpr family_member() noexcept = default;
  constexpr family_member(frequency_oracle m) noexcept : value(static_cast<uint8_t>(m)) {}
  constexpr family_member(mean_member m) noexcept : value(static_cast<uint8_t>(m)) {}
  constexpr family_member(vector_mean_member m) noexcept : value(static_cast<uint8_t>(m)) {}
  constexpr family_member(unit_vector_member m) noexcept : value(static_cast<uint8_t>(m)) {}
  constexpr family_member(string_member m) noexcept : value(static_cast<uint8_t>(m)) {}
  constexpr family_member(distribution_member m) noexcept : value(static_cast<uint8_t>(m)) {}
  constexpr family_member(public_coin_member m) noexcept : value(static_cast<uint8_t>(m)) {}
};

struct mechanism_row {
  mechanism id;
  const char* wire_name;  // mechanism_name(), docs/wire_format.md table 2, golden file names
  const char* cli_name;   // the `ldp simulate --mechanism` name whose runs produce this mechanism
  payload_kind kind;
  mechanism_family family;
  family_member member;  // within the family (see the member enums above)
  field_set required;    // exactly the fields of a valid block (docs/wire_format.md 3.2)
  bool server_side;      // server::aggregator::create accepts its blocks
};

template <class... Fields>
[[nodiscard]] constexpr field_set field_bits(Fields... f) noexcept {
  return (field_set{0} | ... | field_bit(f));
}

// The field groups several mechanisms share (docs/wire_format.md 3.2).
namespace required_group {
inline constexpr field_set frequency = field_bits(field::domain, field::threshold_bits);
inline constexpr field_set thresholds = field_bits(field::threshold_keep, field::threshold_other);
inline constexpr field_set sketch =
    field_bits(field::threshold_other, field::sketch_rows, field::sketch_columns, field::hash_seed);
inline constexpr field_set range = field_bits(field::frac_bits, field::clip_lo, field::clip_hi);
inline constexpr field_set scale = field_bits(field::scale_num, field::scale_den);
// A unit-vector block (B.6): d, the input grid and ball, the half-space keep threshold, the server's B.
inline constexpr field_set unit_vector = field_bits(field::domain, field::frac_bits, field::radius,
                                                    field::threshold_bits, field::threshold_keep, field::output_scale);
inline constexpr field_set rotation =
    field_bits(field::domain, field::hadamard_dim, field::rotation_seed, field::radius);
// A string-discovery block (F.1): the inner oracle's fields (OLH, HCMS, CMS) plus the string length.
inline constexpr field_set olh = frequency | field_bits(field::threshold_keep, field::hash_range);
inline constexpr field_set sketch_oracle = frequency | sketch;
inline constexpr field_set prefixes = field_bits(field::string_length, field::prefix_bits);
// A distribution block (G.0): buckets of a value range; the tree forms add their inner OLH's fields.
inline constexpr field_set buckets = field_bits(field::domain, field::threshold_bits, field::threshold_keep) | range;
inline constexpr field_set winsorized =
    field_bits(field::domain, field::hadamard_dim, field::observations, field::rotation_seed, field::vector_dim,
               field::bin_range, field::bin_half_width) |
    range;
// A public-coin learner's block (H.2): the grid, the loss, the users' partition and public samples.
inline constexpr field_set public_coin =
    field_bits(field::vector_dim, field::grid_size, field::loss, field::users, field::hash_seed, field::frac_bits) |
    scale;
}  // namespace required_group

// Rows in the order the tool lists its mechanisms (docs/cli.md "Mechanisms"), so not by id.
inline constexpr mechanism_row mechanism_table[] = {
    // clang-format off
    {mechanism::grr, "grr", "grr", payload_kind::index, mechanism_family::frequency_oracle, frequency_oracle::grr,
     required_group::frequency | field_bits(field::threshold_keep), true},
    {mechanism::sue, "sue", "sue", payload_kind::unary_bits, mechanism_family::frequency_oracle, frequency_oracle::sue,
     required_group::frequency | required_group::thresholds, true},
    {mechanism::oue, "oue", "oue", payload_kind::unary_bits, mechanism_family::frequency_oracle, frequency_oracle::oue,
     required_group::frequency | required_group::thresholds, true},
    {mechanism::blh, "blh", "blh", payload_kind::hash_bucket, mechanism_family::frequency_oracle, frequency_oracle::blh,
     required_group::frequency | field_bits(field::threshold_keep, field::hash_range), true},
    {mechanism::olh, "olh", "olh", payload_kind::hash_bucket, mechanism_family::frequency_oracle, frequency_oracle::olh,
     required_group::olh, true},
    {mechanism::flh, "flh", "flh", payload_kind::index, mechanism_family::frequency_oracle, frequency_oracle::flh,
     required_group::frequency |
         field_bits(field::threshold_keep, field::hash_range, field::sketch_rows, field::hash_seed),
     true},
    {mechanism::hr, "hr", "hr", payload_kind::index, mechanism_family::frequency_oracle, frequency_oracle::hr,
     required_group::frequency | field_bits(field::threshold_keep, field::hadamard_dim), true},
    {mechanism::cms, "cms", "cms", payload_kind::sketch_row, mechanism_family::frequency_oracle, frequency_oracle::cms,
     required_group::sketch_oracle, true},
    {mechanism::hcms, "hcms", "hcms", payload_kind::sketch_cell, mechanism_family::frequency_oracle,
     frequency_oracle::hcms, required_group::sketch_oracle, true},
    {mechanism::dbitflip, "dbitflip", "dbitflip", payload_kind::hash_bucket, mechanism_family::frequency_oracle,
     frequency_oracle::dbitflip, required_group::frequency | required_group::thresholds | field_bits(field::sampled_buckets),
     true},
    {mechanism::laplace, "laplace", "laplace", payload_kind::fixed_value, mechanism_family::mean, mean_member::laplace,
     required_group::range | required_group::scale, true},
    {mechanism::duchi, "duchi", "duchi", payload_kind::bit, mechanism_family::mean, mean_member::duchi,
     field_bits(field::threshold_bits) | required_group::thresholds | required_group::range, true},
    {mechanism::laplace_vector, "laplace-vector", "laplace-vector", payload_kind::fixed_vector, mechanism_family::mean,
     mean_member::laplace_vector, field_bits(field::domain) | required_group::range | required_group::scale, true},
    // A laplace-vector block of the N = (k + 1)^p grid losses (domain = N) plus the grid and the loss (H.1).
    {mechanism::bernstein, "bernstein", "bernstein", payload_kind::fixed_vector, mechanism_family::mean,
     mean_member::bernstein,
     field_bits(field::domain, field::vector_dim, field::grid_size, field::loss) | required_group::range |
         required_group::scale,
     true},
    {mechanism::kway_marginals, "kway-marginals", "kway-marginals", payload_kind::fixed_vector, mechanism_family::mean,
     mean_member::kway_marginals,
     field_bits(field::domain, field::vector_dim, field::marginal_order) | required_group::range | required_group::scale,
     true},
    {mechanism::vector_duchi, "vector-duchi", "vector-mean", payload_kind::coordinate_bit,
     mechanism_family::vector_mean, vector_mean_member::duchi,
     required_group::rotation | field_bits(field::threshold_bits) | required_group::thresholds | required_group::range,
     true},
    {mechanism::vector_laplace, "vector-laplace", "vector-mean", payload_kind::coordinate_value,
     mechanism_family::vector_mean, vector_mean_member::laplace,
     required_group::rotation | required_group::range | required_group::scale, true},
    {mechanism::l2_ball, "l2-ball", "l2-ball", payload_kind::unit_vector, mechanism_family::unit_vector,
     unit_vector_member::l2_ball, required_group::unit_vector, true},
    {mechanism::privunitg, "privunitg", "privunitg", payload_kind::unit_vector, mechanism_family::unit_vector,
     unit_vector_member::privunitg, required_group::unit_vector | field_bits(field::cap_threshold), true},
    {mechanism::projunit, "projunit", "projunit", payload_kind::projected_unit, mechanism_family::unit_vector,
     unit_vector_member::projunit, required_group::unit_vector | field_bits(field::cap_threshold, field::projection_dim),
     true},
    {mechanism::fastprojunit, "fastprojunit", "fastprojunit", payload_kind::projected_unit,
     mechanism_family::unit_vector, unit_vector_member::fastprojunit,
     required_group::unit_vector | field_bits(field::cap_threshold, field::projection_dim), true},
    // The Kent blocks may add the fold fields (params.cpp, docs/wire_format.md 3.2).
    {mechanism::kent_vote, "kent-vote", "kent", payload_kind::unary_bits, mechanism_family::user_level_vote,
     frequency_oracle::sue,
     required_group::frequency | required_group::thresholds | required_group::range |
         field_bits(field::round, field::observations),
     true},
    {mechanism::kent_refine, "kent-refine", "kent", payload_kind::fixed_value, mechanism_family::user_level_refine,
     mean_member::laplace,
     field_bits(field::round, field::interval_lo, field::interval_hi, field::observations) | required_group::range |
         required_group::scale,
     true},
    {mechanism::sparse_projection, "sparse-projection", "sparse-projection", payload_kind::sparse_pairs,
     mechanism_family::sparse_projection, {}, field_bits(field::domain, field::sparsity) | required_group::range, true},
    {mechanism::winsorized_bins, "winsorized-bins", "winsorized-mean", payload_kind::fixed_vector,
     mechanism_family::winsorized_bins, {}, required_group::winsorized, true},
    {mechanism::winsorized_sums, "winsorized-sums", "winsorized-mean", payload_kind::fixed_vector,
     mechanism_family::winsorized_sums, {},
     required_group::winsorized | field_bits(field::window_half_width, field::window_digest), true},
    {mechanism::pem, "pem", "pem", payload_kind::group_round, mechanism_family::string_discovery, string_member::pem,
     required_group::olh | required_group::prefixes, true},
    {mechanism::treehist, "treehist", "treehist", payload_kind::group_round, mechanism_family::string_discovery,
     string_member::treehist, required_group::sketch_oracle | required_group::prefixes, true},
    {mechanism::sfp, "sfp", "sfp", payload_kind::group_round, mechanism_family::string_discovery, string_member::sfp,
     required_group::sketch_oracle | field_bits(field::string_length), true},
    {mechanism::square_wave, "square-wave", "square-wave", payload_kind::index, mechanism_family::distribution,
     distribution_member::square_wave, required_group::buckets | field_bits(field::window_half_width), true},
    {mechanism::hierarchical, "hierarchical", "hierarchical", payload_kind::group_round, mechanism_family::distribution,
     distribution_member::hierarchical, required_group::buckets | field_bits(field::hash_range, field::branching), true},
    {mechanism::haar, "haar", "haar", payload_kind::group_round, mechanism_family::distribution,
     distribution_member::haar, required_group::buckets | field_bits(field::hash_range), true},
    {mechanism::kent_support, "kent-support", "kent", payload_kind::seeded_value, mechanism_family::user_level_support,
     {},
     field_bits(field::domain, field::sparsity, field::observations, field::vote_threshold) | required_group::range |
         required_group::scale,
     true},
    {mechanism::smooth_queries, "smooth-queries", "smooth-queries", payload_kind::fixed_vector, mechanism_family::mean,
     mean_member::smooth_queries,
     field_bits(field::domain, field::vector_dim, field::degree) | required_group::range | required_group::scale, true},
    // The user index i is the coordinate of a bernstein-1bit report and of a bernstein-genprot report,
    // whose value is the chosen public sample g (docs/wire_format.md 3.12).
    {mechanism::bernstein_1bit, "bernstein-1bit", "bernstein-1bit", payload_kind::coordinate_bit,
     mechanism_family::public_coin, public_coin_member::one_bit, required_group::public_coin, true},
    {mechanism::bernstein_genprot, "bernstein-genprot", "bernstein-genprot", payload_kind::coordinate_value,
     mechanism_family::public_coin, public_coin_member::genprot,
     required_group::public_coin | field_bits(field::public_strings), true},
    {mechanism::glm_copies, "glm-copies", "glm-copies", payload_kind::fixed_vector, mechanism_family::gaussian_copies,
     {}, field_bits(field::domain, field::vector_dim, field::frac_bits, field::degree, field::noise_sigma2,
                    field::privacy_delta), true},
    // clang-format on
};

inline constexpr std::size_t mechanism_count = sizeof mechanism_table / sizeof mechanism_table[0];

}  // namespace ldp::wire

#endif
