/* The C ABI of ldpkit's device half (docs/architecture.md "Layout"; usage in docs/c_api.md): parameter
 * blocks (docs/wire_format.md section 3), the ChaCha20 DRBG and the randomizers, for C firmware and
 * for FFI from Swift, Kotlin/JNI or Python. C99 and C++.
 *
 * The library never allocates: contexts are fixed-size opaque structs the caller places anywhere
 * (stack, .bss, a static), workspaces and output buffers are the caller's. Every function reports
 * failures as an ldp_status, the numbers of ldp::status (stable, only ever appended to). The
 * server half is declared in ldp_server.h. */
#ifndef LDP_H
#define LDP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#define LDP_NOEXCEPT noexcept
#else
#define LDP_NOEXCEPT
#endif

/* ---- Status codes (lib/base/include/ldp/base/status.h, the same numbers) ---------------------- */

typedef int32_t ldp_status;

enum ldp_status_code {
  LDP_OK = 0,
  LDP_INVALID_ARGUMENT = 1,    /* an argument is null, or out of its documented range */
  LDP_BUFFER_TOO_SMALL = 2,    /* the output buffer cannot hold the result */
  LDP_WORKSPACE_TOO_SMALL = 3, /* the workspace is smaller than ldp_workspace_size() */
  LDP_MALFORMED_REPORT = 4,    /* untrusted bytes do not parse */
  LDP_UNSUPPORTED_VERSION = 5, /* a format version this build does not know */
  LDP_PARAMETER_MISMATCH = 6,  /* parameter fingerprints differ */
  LDP_ENTROPY_FAILURE = 7,     /* the entropy source failed */
  LDP_OVERFLOW = 8,            /* a result does not fit (or memory ran out, server side) */
  LDP_CHECKSUM_MISMATCH = 9,   /* stored or transmitted bytes fail their checksum */
  LDP_UNSUPPORTED = 10,        /* not available in this build */
  LDP_WRONG_LENGTH = 11,       /* untrusted bytes are shorter or longer than their format */
  LDP_UNKNOWN_MECHANISM = 12,  /* a mechanism id this build does not know */
  LDP_RESERVED_BITS_SET = 13,  /* a reserved field, flag or padding bit is not zero */
  LDP_OUT_OF_RANGE = 14,       /* a value lies outside what the parameters allow */
  LDP_INVALID_PARAMETERS = 15, /* a parameter block violates its mechanism's constraints */
  LDP_LIMIT_EXCEEDED = 16,     /* a block whose server state would pass the memory ceiling */
  LDP_BUDGET_EXHAUSTED = 17    /* the privacy ledger refuses a charge past the use case's budget, or a
                                  query session (ldp_central.h) a query past its K */
};

/* Number of defined codes: ldp_status values are in [0, LDP_STATUS_COUNT). */
#define LDP_STATUS_COUNT 18

/* "ok", "malformed_report", ...; "" for unknown values (and for all of them in builds with
 * LDP_CONFIG_STATUS_NAMES=0). */
const char* ldp_status_name(ldp_status status) LDP_NOEXCEPT;

/* ---- Mechanisms (docs/wire_format.md table 2, the same ids) ----------------------------------- */

typedef uint32_t ldp_mechanism;

enum ldp_mechanism_id {
  LDP_MECH_GRR = 1,
  LDP_MECH_SUE = 2,
  LDP_MECH_OUE = 3,
  LDP_MECH_BLH = 4,
  LDP_MECH_OLH = 5,
  LDP_MECH_HR = 6,
  LDP_MECH_CMS = 7,
  LDP_MECH_HCMS = 8,
  LDP_MECH_KENT_VOTE = 9,
  LDP_MECH_FLH = 10,
  LDP_MECH_DBITFLIP = 11, /* docs/mechanisms.md E.3: ldp_params_dbitflip, ldp_randomize_item_memoized */
  LDP_MECH_LAPLACE = 16,
  LDP_MECH_LAPLACE_VECTOR = 17,
  LDP_MECH_DUCHI = 18,
  LDP_MECH_VECTOR_DUCHI = 19,
  LDP_MECH_VECTOR_LAPLACE = 20,
  LDP_MECH_SPARSE_PROJECTION = 21,
  LDP_MECH_SPARSE_VECTOR = 21, /* the earlier name of LDP_MECH_SPARSE_PROJECTION, kept for source compatibility */
  LDP_MECH_KENT_REFINE = 22,
  LDP_MECH_WINSORIZED_BINS = 23,
  LDP_MECH_WINSORIZED_SUMS = 24,
  LDP_MECH_L2_BALL = 25,
  LDP_MECH_PRIVUNITG = 26,
  LDP_MECH_PROJUNIT = 27,
  LDP_MECH_FASTPROJUNIT = 28,
  LDP_MECH_PEM = 29,
  LDP_MECH_TREEHIST = 30,
  LDP_MECH_SFP = 31,
  LDP_MECH_SQUARE_WAVE = 32,
  LDP_MECH_HIERARCHICAL = 33,
  LDP_MECH_HAAR = 34,
  LDP_MECH_KENT_SUPPORT = 35,      /* docs/mechanisms.md C.1 P4: Kent M4a's support vote, ldp_randomize_observations */
  LDP_MECH_BERNSTEIN = 36,         /* docs/mechanisms.md H.1: ldp_params_bernstein, ldp_randomize_bernstein */
  LDP_MECH_KWAY_MARGINALS = 37,    /* docs/mechanisms.md H.5: ldp_params_kway_marginals, ldp_randomize_record */
  LDP_MECH_SMOOTH_QUERIES = 38,    /* docs/mechanisms.md H.6: ldp_params_smooth_queries, ldp_randomize_smooth_queries */
  LDP_MECH_BERNSTEIN_1BIT = 39,    /* docs/mechanisms.md H.2: one bit per user, ldp_randomize_public_coin */
  LDP_MECH_BERNSTEIN_GENPROT = 40, /* docs/mechanisms.md H.3: GenProt, ldp_randomize_public_coin */
  LDP_MECH_GLM_COPIES = 41         /* docs/mechanisms.md H.4: Wang et al.'s GLM learner, ldp_randomize_glm */
};

/* "grr", "oue", ... as the command-line tool spells them; "" for unknown ids. */
const char* ldp_mechanism_name(ldp_mechanism mechanism) LDP_NOEXCEPT;

/* ---- Contexts --------------------------------------------------------------------------------
 * Opaque, fixed size, any storage duration; the union members only force the alignment. A context
 * is usable after its init function returned LDP_OK; every function checks a tag and answers
 * LDP_INVALID_ARGUMENT for a context that was never initialized (or was wiped). Contexts must not
 * be copied byte-wise: a copied generator would repeat its random stream. */

/* The DRBG keeps LDP_CONFIG_DRBG_BLOCKS ChaCha20 blocks (lib/base/include/ldp/base/config.h); the
 * build passes the value to consumers (CMake target, pkg-config), and ldp_check_abi() verifies it. */
#ifdef LDP_CONFIG_DRBG_BLOCKS
#define LDP_RNG_SIZE (64 * (LDP_CONFIG_DRBG_BLOCKS) + 128)
#else
#define LDP_RNG_SIZE (64 * 32 + 128)
#endif
#define LDP_PARAMS_SIZE 512

typedef struct ldp_rng {
  union {
    unsigned char bytes[LDP_RNG_SIZE];
    uint64_t align_u64;
    double align_double;
    void* align_pointer;
  } opaque;
} ldp_rng;

typedef struct ldp_params {
  union {
    unsigned char bytes[LDP_PARAMS_SIZE];
    uint64_t align_u64;
    double align_double;
    void* align_pointer;
  } opaque;
} ldp_params;

/* LDP_OK when contexts of these sizes fit this library (call it with sizeof(ldp_rng) and
 * sizeof(ldp_params)); LDP_INVALID_ARGUMENT when the header was compiled with another
 * LDP_CONFIG_DRBG_BLOCKS than the library. */
ldp_status ldp_check_abi(size_t rng_size, size_t params_size) LDP_NOEXCEPT;

/* ---- Randomness: the ChaCha20 DRBG (docs/randomness.md) ---------------------------------------
 * The library never collects entropy: seed with 32 bytes from the device's TRNG (or a fixed seed
 * for reproducible tests). The same seed gives the same reports on every platform. */

#define LDP_SEED_SIZE 32

ldp_status ldp_rng_init(ldp_rng* rng, const uint8_t seed[LDP_SEED_SIZE]) LDP_NOEXCEPT;

/* Erases the generator's key and buffered output; the context must be initialized again before
 * use. Does nothing for a context that is not initialized. */
void ldp_rng_wipe(ldp_rng* rng) LDP_NOEXCEPT;

/* ---- Parameter blocks (docs/wire_format.md section 3) -----------------------------------------
 * Device and server must use the same block; reports carry its fingerprint. A device either
 * decodes a block the server distributed, or derives it with a builder (deterministic: the same
 * arguments give the same block on every platform). */

/* Enough bytes for any encoded block. */
#define LDP_PARAMS_MAX_ENCODED_SIZE 512

/* Strict decoding of exactly `size` bytes, then validation against the mechanism's rules. On
 * failure *params is left uninitialized. */
ldp_status ldp_params_decode(ldp_params* params, const uint8_t* block, size_t size) LDP_NOEXCEPT;

/* The canonical encoding (at most LDP_PARAMS_MAX_ENCODED_SIZE bytes); *written receives its size. */
ldp_status ldp_params_encode(const ldp_params* params, uint8_t* out, size_t capacity, size_t* written) LDP_NOEXCEPT;

/* A frequency oracle (grr, sue, oue, blh, olh, flh, hr, cms, hcms) over items [0, d) at the largest
 * implementable epsilon not above `epsilon` (docs/mechanisms.md D.1). `rows`, `columns` and
 * `hash_seed` (32 public bytes) are for cms, hcms (k rows, m columns) and flh (k hash functions,
 * hash range g or 0 for the optimum) only and are ignored otherwise (pass 0, 0, NULL).
 * LDP_INVALID_ARGUMENT for another mechanism, no hash_seed, d < 2, g = 1 or an out-of-range epsilon;
 * LDP_INVALID_PARAMETERS when k, m or k g break the block's rules (docs/wire_format.md 3: 1 <= k <=
 * 65536, FLH k g <= 2^32). */
ldp_status ldp_params_frequency(ldp_params* params, ldp_mechanism mechanism, uint32_t d, double epsilon, uint32_t rows,
                                uint32_t columns, const uint8_t hash_seed[LDP_SEED_SIZE]) LDP_NOEXCEPT;

/* Numeric mechanisms (docs/mechanisms.md B.0-B.2, B.5). Values travel as fixed-point integers x * 2^f
 * on the grid of `frac_bits` = f <= 62 fraction bits; ldp_params_to_fixed converts a real. */

/* laplace or duchi: one value in [lo, hi] (reals, rounded to the grid). */
ldp_status ldp_params_numeric(ldp_params* params, ldp_mechanism mechanism, double lo, double hi, uint32_t frac_bits,
                              double epsilon) LDP_NOEXCEPT;

/* laplace-vector: d coordinates, each in [lo, hi] (L1 sensitivity d (hi - lo)). */
ldp_status ldp_params_laplace_vector(ldp_params* params, uint32_t d, double lo, double hi, uint32_t frac_bits,
                                     double epsilon) LDP_NOEXCEPT;

/* kway-marginals (docs/mechanisms.md H.5): records of p <= 64 bits, reported as the N' = sum_{s=1..k}
 * C(p, s) <= 65536 indicators of the conjunctions of at most k attributes (docs/wire_format.md 3.14),
 * each in [0, 1] on the grid of frac_bits with discrete Laplace noise of the L1 sensitivity N'.
 * ldp_randomize_record randomizes; its workspace is ldp_workspace_size's (8 N' bytes). */
ldp_status ldp_params_kway_marginals(ldp_params* params, uint32_t p, uint32_t k, uint32_t frac_bits,
                                     double epsilon) LDP_NOEXCEPT;

/* smooth-queries (docs/mechanisms.md H.6): a device holds x in [-1, 1]^p and reports its t^p
 * Chebyshev features prod_j T_(v_j)(x_j), v in {0..t-1}^p, each with discrete Laplace noise of scale
 * 2 t^p / epsilon (in value): p >= 1, t >= 2, t^p <= 65536, frac_bits <= 30. ldp_randomize_smooth_queries
 * randomizes. */
ldp_status ldp_params_smooth_queries(ldp_params* params, uint32_t p, uint32_t t, uint32_t frac_bits,
                                     double epsilon) LDP_NOEXCEPT;

/* vector-duchi or vector-laplace: vectors of d coordinates in the L2 ball of `radius`, rotated with
 * signs from the public 32-byte `rotation_seed`; a rotated coordinate is clipped with probability
 * at most `beta` in (0, 1) per report. */
ldp_status ldp_params_vector_mean(ldp_params* params, ldp_mechanism mechanism, uint32_t d, double radius,
                                  uint32_t frac_bits, double epsilon, double beta,
                                  const uint8_t rotation_seed[LDP_SEED_SIZE]) LDP_NOEXCEPT;

/* l2-ball or privunitg (docs/mechanisms.md B.6, B.7, the unit-vector family): vectors of d <= 65536
 * coordinates in the L2 ball of `radius`, reported as d int16 coordinates (2 d bytes of payload): a
 * direction on the unit sphere (l2-ball) or a Gaussian draw in or out of a cap (privunitg, which
 * needs epsilon >= 0.001). */
ldp_status ldp_params_unit_vector(ldp_params* params, ldp_mechanism mechanism, uint32_t d, double radius,
                                  uint32_t frac_bits, double epsilon) LDP_NOEXCEPT;

/* projunit or fastprojunit (docs/mechanisms.md B.8): vectors of d <= 65536 coordinates in the L2 ball
 * of `radius`, projected to k <= d dimensions by a public matrix the report's seed names (k = 0: min(d,
 * 1000)), then PrivUnitG in k dimensions; 8 + 2 k bytes of payload. ldp_randomize_vector randomizes. */
ldp_status ldp_params_projected_unit(ldp_params* params, ldp_mechanism mechanism, uint32_t d, uint32_t k, double radius,
                                     uint32_t frac_bits, double epsilon) LDP_NOEXCEPT;

/* ---- String discovery (docs/mechanisms.md F): pem, treehist, sfp -------------------------------
 * A device holds one string of 1..`length` bytes without a zero byte (length <= 64), draws its group
 * and reports the item its group derives from the string in [0, d) (d = 0: 2^31) with the inner
 * oracle of the mechanism; ldp_randomize_string randomizes. ldp_params_epsilon is the inner oracle's
 * epsilon: each device sends one report. LDP_INVALID_ARGUMENT for arguments out of range. */

/* pem (F.2): OLH with hash range g (g = 0: the optimal one), prefixes grown by eta in {1, 2, 4, 8}
 * bits a group (8 length / eta groups). */
ldp_status ldp_params_pem(ldp_params* params, double epsilon, uint32_t length, uint32_t eta, uint32_t d,
                          uint32_t g) LDP_NOEXCEPT;

/* treehist (F.3): HCMS with `rows` hash functions and `columns` (a power of two) columns from the
 * public 32-byte hash_seed, prefixes grown by eta bits a group as pem. */
ldp_status ldp_params_treehist(ldp_params* params, double epsilon, uint32_t length, uint32_t eta, uint32_t rows,
                               uint32_t columns, const uint8_t hash_seed[LDP_SEED_SIZE], uint32_t d) LDP_NOEXCEPT;

/* sfp (F.4): CMS with `rows` hash functions and `columns` columns from the public 32-byte hash_seed;
 * `length` even, >= 2 (length / 2 fragment groups and the word group). */
ldp_status ldp_params_sfp(ldp_params* params, double epsilon, uint32_t length, uint32_t rows, uint32_t columns,
                          const uint8_t hash_seed[LDP_SEED_SIZE], uint32_t d) LDP_NOEXCEPT;

/* ---- Distributions (docs/mechanisms.md G): square-wave, hierarchical, haar ----------------------
 * A device holds one value in [lo, hi] (reals rounded to the grid of frac_bits = f <= 62 fraction
 * bits, as the numeric mechanisms), falls in one of `buckets` = D even buckets of the range (2 <= D
 * <= 65536, at least one grid point each) and sends one report on its bucket; ldp_randomize_value
 * randomizes (no workspace). LDP_INVALID_ARGUMENT for arguments out of range. */

/* square-wave (G.1): the bucket's window of 2 b + 1 outputs, or one of the D - 1 others; b =
 * half_width <= D, or the rule of Li et al. for a negative half_width (-1). */
ldp_status ldp_params_square_wave(ldp_params* params, double epsilon, uint32_t buckets, double lo, double hi,
                                  uint32_t frac_bits, int64_t half_width) LDP_NOEXCEPT;

/* hierarchical (G.2): D = B^h buckets for the fan-out B = branching (0: the rule of
 * default_branching, among 2..16), h >= 1; one level's node through OLH at epsilon. */
ldp_status ldp_params_hierarchical(ldp_params* params, double epsilon, uint32_t buckets, uint32_t branching, double lo,
                                   double hi, uint32_t frac_bits) LDP_NOEXCEPT;

/* haar (G.3): D = 2^h buckets; one level's Haar coefficient node and half through OLH at epsilon. */
ldp_status ldp_params_haar(ldp_params* params, double epsilon, uint32_t buckets, double lo, double hi,
                           uint32_t frac_bits) LDP_NOEXCEPT;

/* glm-copies (docs/mechanisms.md H.4, Wang et al. Algorithms 4 and 5): a report of
 * D = degree (degree + 1) + 1 copies of a labelled example (p features, one label), each plus exact
 * discrete Gaussian noise, at (epsilon, delta) by zCDP accounting; frac_bits 0 chooses 8.
 * LDP_INVALID_ARGUMENT for epsilon out of (0, 40], delta out of (2^-64, 1/2), degree out of
 * [1, 255], p out of [1, 65536] or a noise the exact sampler cannot draw. */
ldp_status ldp_params_glm_copies(ldp_params* params, double epsilon, double delta, uint32_t p, uint32_t degree,
                                 uint32_t frac_bits) LDP_NOEXCEPT;

/* x * 2^f for the block's f, rounded half to even (the grid of docs/mechanisms.md B.0).
 * LDP_INVALID_ARGUMENT for NaN or a block without a grid, LDP_OVERFLOW when saturated. */
ldp_status ldp_params_to_fixed(const ldp_params* params, double x, int64_t* out) LDP_NOEXCEPT;

/* The mechanism id; 0 for a context that is not initialized. */
ldp_mechanism ldp_params_mechanism(const ldp_params* params) LDP_NOEXCEPT;

/* The epsilon the block's integers implement (never above the one requested); NaN for a context
 * that is not initialized or a mechanism without a closed form. */
double ldp_params_epsilon(const ldp_params* params) LDP_NOEXCEPT;

/* The 64-bit fingerprint every report carries; 0 for a context that is not initialized. */
uint64_t ldp_params_fingerprint(const ldp_params* params) LDP_NOEXCEPT;

/* Bytes of the largest report (header + payload) the block allows: size the output buffer with it.
 * 0 for a context that is not initialized. */
size_t ldp_report_max_size(const ldp_params* params) LDP_NOEXCEPT;

/* Bytes of workspace a randomizer needs for this block, a multiple of 8: 0 for most mechanisms;
 * d bits for sue and oue, `columns` bits for cms, 8 d bytes for laplace-vector, 4 (d~ + d~/32)
 * for vector-duchi and vector-laplace (d~: d rounded up to a power of two), 4 d~ + 8 d for l2-ball and privunitg,
 * rounded up; for the
 * user-level protocols the vote's cell bits and, with a rotation, 4 (d~ + d~/32); for sfp `columns` bits. */
size_t ldp_workspace_size(const ldp_params* params) LDP_NOEXCEPT;

/* ---- Randomizers ------------------------------------------------------------------------------
 * Each writes one report (docs/wire_format.md section 4) into out[0, capacity) and its size into
 * *written. The workspace must be 8-byte aligned (a uint64_t array) and hold ldp_workspace_size()
 * bytes; it may be NULL when that is 0. Nothing is allocated. */

/* grr, sue, oue, blh, olh, flh, hr, cms or hcms (docs/mechanisms.md A.1-A.6): a report of `item` in [0, d)
 * (LDP_OUT_OF_RANGE otherwise). */
ldp_status ldp_randomize_item(const ldp_params* params, ldp_rng* rng, uint32_t item, void* workspace,
                              size_t workspace_size, uint8_t* out, size_t capacity, size_t* written) LDP_NOEXCEPT;

/* pem, treehist or sfp (docs/mechanisms.md F.1): a report of the string bytes[0, size): the group,
 * then the inner oracle's report of the item derived from the string. LDP_OUT_OF_RANGE for an empty
 * string, one longer than the block's length or one holding a zero byte (nothing is drawn from rng
 * then). The workspace is the inner oracle's (treehist: none; sfp: `columns` bits). */
ldp_status ldp_randomize_string(const ldp_params* params, ldp_rng* rng, const uint8_t* bytes, size_t size,
                                void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                size_t* written) LDP_NOEXCEPT;

/* laplace or duchi (docs/mechanisms.md B.1, B.2): a report of the fixed-point value x (x * 2^f, see
 * ldp_params_to_fixed), clamped to the block's range first. No workspace. kent-refine blocks are
 * accepted too, for a local mean the caller computed (ldp_randomize_observations computes it), and
 * square-wave, hierarchical and haar blocks (G: the report of x's bucket). */
ldp_status ldp_randomize_value(const ldp_params* params, ldp_rng* rng, int64_t x, uint8_t* out, size_t capacity,
                               size_t* written) LDP_NOEXCEPT;

/* laplace-vector, vector-duchi, vector-laplace, l2-ball or privunitg (docs/mechanisms.md B.1, B.5-B.7): a
 * report of the vector x[0, d) of fixed-point coordinates; d must be the block's dimension (else
 * LDP_INVALID_ARGUMENT). vector-duchi, vector-laplace, l2-ball and privunitg clip x to the block's L2 ball;
 * vector-duchi and vector-laplace derive the rotation signs from the block's public seed into the
 * workspace on every call. */
ldp_status ldp_randomize_vector(const ldp_params* params, ldp_rng* rng, const int64_t* x, size_t d, void* workspace,
                                size_t workspace_size, uint8_t* out, size_t capacity, size_t* written) LDP_NOEXCEPT;

/* smooth-queries (docs/mechanisms.md H.6): x as p fixed-point coordinates (x_j * 2^frac_bits, clamped
 * to [-1, 1]); the device computes the t^p Chebyshev features in its workspace (ldp_workspace_size's:
 * 8 t^p bytes) and randomizes them. LDP_INVALID_ARGUMENT unless p is the block's vector_dim and the
 * block is smooth-queries. */
ldp_status ldp_randomize_smooth_queries(const ldp_params* params, ldp_rng* rng, const int64_t* x, size_t p,
                                        void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                        size_t* written) LDP_NOEXCEPT;

/* kent-vote or kent-refine (docs/mechanisms.md C.1, the user-level protocols): the one report of a
 * device holding `count` fixed-point observations (d coordinates each, one observation after the
 * other; d = 1 for a scalar) in the round the block names; only the first `observations` of the
 * block count. Round 1 votes for the cell of the local mean, round 2 adds noise to it.
 * kent-support (C.1 P4, Kent M4a's round 1): the hashed vote for the at most s coordinates whose
 * local mean reaches the block's threshold; its workspace holds d sign bits and s entries. */
/* kway-marginals: the record's p bits in `record` (bit j = attribute j; LDP_INVALID_ARGUMENT for a
 * bit at or above p, or a block of another mechanism). */
ldp_status ldp_randomize_record(const ldp_params* params, ldp_rng* rng, uint64_t record, void* workspace,
                                size_t workspace_size, uint8_t* out, size_t capacity, size_t* written) LDP_NOEXCEPT;

ldp_status ldp_randomize_observations(const ldp_params* params, ldp_rng* rng, const int64_t* observations, size_t count,
                                      void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                      size_t* written) LDP_NOEXCEPT;

/* ---- Public-coin learners (docs/mechanisms.md H.2, H.3) ------------------------------------------
 * bernstein-1bit or bernstein-genprot: the n users of a deployment are split into (k + 1)^p public
 * groups, one per point of the grid {0, 1/k, ..., 1}^p; user i (0 <= i < n, an index the deployment
 * assigns, one report per index) evaluates its loss at its group's grid point and sends i with one bit
 * (1bit) or the index of one of `strings` public samples (genprot). `loss` is 1 squared, 2 logistic,
 * 3 hinge (docs/mechanisms.md H.0) or 0 for a loss the caller supplies; `frac_bits` in 1..16 is the
 * grid of loss values; `seed` is the public 32-byte seed of the samples and groups; strings (T, 2 and
 * up) is ignored for 1bit. LDP_INVALID_ARGUMENT for a level GenProt's bound cannot reach with T. */
ldp_status ldp_params_public_coin(ldp_params* params, ldp_mechanism mechanism, uint32_t p, uint32_t k, uint32_t loss,
                                  uint32_t users, uint32_t frac_bits, uint32_t strings, double epsilon,
                                  const uint8_t seed[LDP_SEED_SIZE]) LDP_NOEXCEPT;

/* A caller's loss at parameters w[0, p) in [0, 1]^p; `user` is passed through. Results are clamped to
 * [0, 1]; a NaN makes the randomizer fail with LDP_INVALID_ARGUMENT before it draws anything. It must
 * not throw (C++) or longjmp out. (The bernstein randomizers below take it too.) */
typedef double (*ldp_loss_fn)(const double* w, uint32_t p, const void* user);

/* The report of user `user` with features x[0, p) in [0, 1] and label y under the block's built-in
 * loss. The workspace holds p doubles (ldp_workspace_size). */
ldp_status ldp_randomize_public_coin(const ldp_params* params, ldp_rng* rng, uint32_t user, const double* x, uint32_t p,
                                     double y, void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                     size_t* written) LDP_NOEXCEPT;

/* The same for a block of loss 0: the caller's loss(w, p, loss_user) at the user's grid point. */
ldp_status ldp_randomize_public_coin_loss(const ldp_params* params, ldp_rng* rng, uint32_t user, ldp_loss_fn loss,
                                          const void* loss_user, void* workspace, size_t workspace_size, uint8_t* out,
                                          size_t capacity, size_t* written) LDP_NOEXCEPT;

/* glm-copies (docs/mechanisms.md H.4): the report of features x[0, p) in [0, 1] and a label in
 * [-1, 1] (hinge and logistic: -1 or +1), all in fixed point (ldp_params_to_fixed) and clamped to
 * those ranges; p must be the block's dimension (else LDP_INVALID_ARGUMENT). The workspace holds
 * the D (p + 1) noisy entries. LDP_LIMIT_EXCEEDED for a block with more copies than the build's
 * LDP_CONFIG_MAX_GLM_COPIES. */
ldp_status ldp_randomize_glm(const ldp_params* params, ldp_rng* rng, const int64_t* x, size_t p, int64_t label,
                             void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                             size_t* written) LDP_NOEXCEPT;

/* ---- Memoized randomized response (docs/mechanisms.md E.1, RAPPOR's two stages) -----------------
 * A memoized block draws a permanent response once per (device, value), from a secret the device
 * keeps, and randomizes it again in every report: any number of reports of one value reveal at most
 * the longitudinal level, one report at most the per-report level. */

/* Bytes of the device secret that keys the permanent responses (drawn once from the TRNG, stored,
 * never sent: whoever reads it can undo the permanent stage). */
#define LDP_DEVICE_SECRET_SIZE 32

/* A memoized sue, oue, olh or blh block over items [0, d): the permanent stage is
 * ldp_params_frequency's at epsilon_longitudinal, the instantaneous one the least noisy such that a
 * report's level (ldp_params_epsilon) is at most epsilon_report. LDP_INVALID_ARGUMENT for another
 * mechanism, d < 2, an epsilon out of (0, 40] or epsilon_report >= epsilon_longitudinal. */
ldp_status ldp_params_frequency_memoized(ldp_params* params, ldp_mechanism mechanism, uint32_t d,
                                         double epsilon_longitudinal, double epsilon_report) LDP_NOEXCEPT;

/* What any number of reports of one value by one device reveal: a memoized block's permanent level
 * (memoized duchi: ln(T_hi / T_lo), docs/mechanisms.md E.2); +infinity for a frequency oracle or mean
 * block that is not memoized (its reports compose without bound); NaN for other mechanisms and a
 * context that is not initialized. */
double ldp_params_longitudinal_epsilon(const ldp_params* params) LDP_NOEXCEPT;

/* One report of `item` under a memoized block: the permanent response of (secret, use_case, block,
 * item), then fresh noise from rng. `use_case` is the 32-bit id of the data being reported (a
 * ledger's use case). LDP_INVALID_ARGUMENT for a block that is not memoized or a null secret, which
 * ldp_randomize_item in turn refuses for memoized blocks; LDP_OUT_OF_RANGE for item >= d. The
 * workspace is ldp_workspace_size() bytes (3 d bits for sue and oue, none for olh and blh). */
ldp_status ldp_randomize_item_memoized(const ldp_params* params, ldp_rng* rng, uint32_t item,
                                       const uint8_t secret[LDP_DEVICE_SECRET_SIZE], uint32_t use_case, void* workspace,
                                       size_t workspace_size, uint8_t* out, size_t capacity,
                                       size_t* written) LDP_NOEXCEPT;

/* ---- Memoized numeric telemetry (docs/mechanisms.md E.2, Ding, Kulkarni, Yekhanin 2017) --------- */

/* duchi memoized by alpha-point rounding (docs/mechanisms.md E.2, Ding, Kulkarni, Yekhanin 2017):
 * the duchi block at `epsilon` (its longitudinal level) with `grid` = k grid points steps over the
 * range (k must divide (hi - lo) 2^f, 1 <= k <= 2^24) and each report's bit flipped with probability
 * `flip` in [0, 1/2). ldp_params_epsilon gives one report's level, below epsilon when flip > 0.
 * Randomize with ldp_randomize_value_memoized. */
ldp_status ldp_params_memoized_duchi(ldp_params* params, double lo, double hi, uint32_t frac_bits, double epsilon,
                                     uint32_t grid, double flip) LDP_NOEXCEPT;

/* A memoized duchi block (ldp_params_memoized_duchi): a report of x whose permanent draws (the
 * device's alpha, the bit of each grid point) come from the 32-byte device `secret` (drawn once from
 * the TRNG and kept; whoever reads it can undo the permanent stage) and `use_case`, and whose flip
 * comes from rng. The same secret, use case and block give the same permanent bit for a value
 * forever. LDP_INVALID_ARGUMENT for a block that is not memoized or a NULL secret; ldp_randomize_value
 * refuses memoized blocks. */
ldp_status ldp_randomize_value_memoized(const ldp_params* params, ldp_rng* rng,
                                        const uint8_t secret[LDP_DEVICE_SECRET_SIZE], uint32_t use_case, int64_t x,
                                        uint8_t* out, size_t capacity, size_t* written) LDP_NOEXCEPT;

/* dBitFlip (docs/mechanisms.md E.3): items [0, k), each device sampling `sampled` = s buckets
 * (1 <= s <= min(k, 32)) and reporting one permanent bit for each, at the largest implementable
 * epsilon not above `epsilon`, for one report and for all reports of one value alike. Its reports need
 * the device secret: ldp_randomize_item_memoized (no workspace); ldp_randomize_item refuses the block.
 * LDP_INVALID_ARGUMENT for k < 2, s out of range or an epsilon out of (0, 40]. */
ldp_status ldp_params_dbitflip(ldp_params* params, uint32_t k, uint32_t sampled, double epsilon) LDP_NOEXCEPT;

/* ---- The local Bernstein mechanism (docs/mechanisms.md H.0, H.1; Wang, Gaboardi, Smith, Xu) -------
 * A device evaluates a loss in [0, 1] at each of the N = (k + 1)^p points w of the public grid
 * {0, 1/k, ..., 1}^p (point l = sum_j v_j (k + 1)^j, w_j = v_j / k), rounds the values to the grid
 * of f fraction bits without bias and sends them with discrete Laplace noise (a laplace-vector report
 * of N coordinates on [0, 1]); the server averages them and fits the Bernstein surrogate. */

/* The losses of docs/mechanisms.md H.0 (field 45): theta = 2 w - 1, margin m = <theta, x> for
 * features x in [0, 1]^p; squared (m - y)^2 / (p + 1)^2 (y in [0, 1]), logistic
 * ln(1 + e^{-s m}) / ln(1 + e^p) and hinge max(0, 1 - s m) / (p + 1) (y in {0, 1}, s = 2 y - 1);
 * LDP_LOSS_CALLER: a function the application passes to ldp_randomize_bernstein_loss. */
enum ldp_loss_kind { LDP_LOSS_CALLER = 0, LDP_LOSS_SQUARED = 1, LDP_LOSS_LOGISTIC = 2, LDP_LOSS_HINGE = 3 };

/* bernstein: p >= 1 features, the grid of k >= 1 steps per axis with (k + 1)^p <= 65536, `loss` an
 * ldp_loss_kind, loss values on the grid of frac_bits <= 32 fraction bits, at the largest
 * implementable epsilon not above `epsilon` (discrete Laplace scale N 2^f / epsilon, at most 2^56).
 * LDP_INVALID_ARGUMENT otherwise. ldp_workspace_size is 16 N bytes. */
ldp_status ldp_params_bernstein(ldp_params* params, uint32_t p, uint32_t k, uint32_t loss, uint32_t frac_bits,
                                double epsilon) LDP_NOEXCEPT;

/* A report of the example x[0, p) (features in [0, 1]), label y under the block's built-in loss
 * (inputs outside [0, 1] are clamped). LDP_INVALID_ARGUMENT for another block, a block whose loss is
 * LDP_LOSS_CALLER, p other than the block's, or a NaN among x and y (nothing is drawn then). */
ldp_status ldp_randomize_bernstein(const ldp_params* params, ldp_rng* rng, const double* x, uint32_t p, double y,
                                   void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                   size_t* written) LDP_NOEXCEPT;

/* A report of the caller's loss (blocks with LDP_LOSS_CALLER only, else LDP_INVALID_ARGUMENT), called
 * N times in grid order before anything is drawn. */
ldp_status ldp_randomize_bernstein_loss(const ldp_params* params, ldp_rng* rng, ldp_loss_fn loss, const void* user,
                                        void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                        size_t* written) LDP_NOEXCEPT;

/* ---- The privacy ledger (docs/ledger.md; C++: ldp/device/ledger.h) ------------------------------ */

/* Two slots of slot_size bytes (flash pages, a file). Each function returns LDP_OK or a failure
 * status of its choice, which the ledger returns unchanged; read and write stay inside a slot, erase
 * sets a whole slot to erased_byte (0xFF for NOR flash), write is only called on an erased slot. */
typedef struct ldp_ledger_storage {
  ldp_status (*read)(void* context, uint32_t slot, uint32_t offset, uint8_t* out, uint32_t size);
  ldp_status (*write)(void* context, uint32_t slot, uint32_t offset, const uint8_t* bytes, uint32_t size);
  ldp_status (*erase)(void* context, uint32_t slot);
  void* context;
  uint32_t slot_size;
  uint8_t erased_byte;
} ldp_ledger_storage;

/* The bytes of a record of n use cases. The ledger holds the use cases whose record fits both the
 * slot and the workspace given to ldp_ledger_open. */
#define LDP_LEDGER_RECORD_SIZE(n) (32u + 32u * (n))

#define LDP_LEDGER_SIZE 192

/* Holds a copy of the storage struct and the ledger's state; do not copy or move it once open. */
typedef struct ldp_ledger {
  union {
    unsigned char bytes[LDP_LEDGER_SIZE];
    uint64_t align_u64;
    double align_double;
    void* align_pointer;
  } opaque;
} ldp_ledger;

/* Loads the ledger from its two slots; `workspace` (any alignment) holds the record and must
 * outlive the ledger. LDP_INVALID_ARGUMENT (a null argument or function, slots below
 * LDP_LEDGER_RECORD_SIZE(1)), LDP_WORKSPACE_TOO_SMALL, a storage failure, LDP_CHECKSUM_MISMATCH when
 * neither slot holds a valid record and neither is erased, LDP_LIMIT_EXCEEDED when the record has
 * more use cases than fit: a ledger that failed to load refuses every later call with its status. */
ldp_status ldp_ledger_open(ldp_ledger* ledger, const ldp_ledger_storage* storage, void* workspace,
                           size_t workspace_size) LDP_NOEXCEPT;

/* Adds a use case with a budget per window (epsilon, in (0, 4096]) and a window of window_seconds,
 * or changes a known use case's budget; written before it returns, nothing written when nothing
 * changes. LDP_LIMIT_EXCEEDED when the ledger is full; LDP_INVALID_ARGUMENT for another window
 * length than the stored one. */
ldp_status ldp_ledger_configure(ldp_ledger* ledger, uint32_t use_case, double budget,
                                uint32_t window_seconds) LDP_NOEXCEPT;

/* Charges one report's epsilon (in (0, 40], e.g. ldp_params_epsilon) to the use case's window of
 * `now` (seconds; an earlier time than the latest seen counts as the latest). LDP_BUDGET_EXHAUSTED
 * (nothing changes) when the window's spend would pass the budget; LDP_OK only after the spend is
 * written to both slots and read back: release the report after LDP_OK, never before. */
ldp_status ldp_ledger_charge(ldp_ledger* ledger, uint32_t use_case, double epsilon, uint64_t now) LDP_NOEXCEPT;

/* The epsilon the use case may still spend in the window of `now` (a multiple of 2^-40). */
ldp_status ldp_ledger_remaining(const ldp_ledger* ledger, uint32_t use_case, uint64_t now,
                                double* epsilon) LDP_NOEXCEPT;

/* ---- Training rounds (docs/mechanisms.md I.0; usage in docs/c_api.md "Training rounds") ---------
 * Each round the server sends a model broadcast (docs/wire_format.md 10: the model's kind and shape,
 * the round and the weights; ldp_central.h encodes it) and names its digest in the round's bounds; a
 * device computes its contribution from its own samples: the average of its first m per-sample
 * gradients, clipped to G, on the grid of f fraction bits, with squared L2 norm at most L^2
 * (L = G 2^f, in grid units). */

/* The model kinds of docs/wire_format.md 10 (the same numbers). */
enum ldp_model_kind { LDP_MODEL_LINEAR = 1, LDP_MODEL_LOGISTIC = 2, LDP_MODEL_SOFTMAX = 3 };

/* How a broadcast stores the weights: IEEE-754 binary32 or binary64, little-endian. */
enum ldp_weight_format { LDP_WEIGHTS_F32 = 1, LDP_WEIGHTS_F64 = 2 };

/* A broadcast's header. kind, features (p), classes (C for softmax, 1 otherwise), format and round
 * are what the server encodes; dim (d = rows (p + 1), rows = C for softmax, else 1) and digest
 * (SipHash-2-4 of the whole broadcast, what the round's bounds name) are filled by
 * ldp_model_broadcast_peek and ignored by the encoder. */
typedef struct ldp_model_header {
  uint32_t kind;
  uint32_t features;
  uint32_t classes;
  uint32_t format;
  uint64_t round;
  uint64_t dim;
  uint64_t digest;
} ldp_model_header;

/* The smallest broadcast: the 24-byte header and the CRC32C. */
#define LDP_MODEL_BROADCAST_MIN_SIZE 28

/* Checks a broadcast without reading its weights, in order: LDP_WRONG_LENGTH below
 * LDP_MODEL_BROADCAST_MIN_SIZE bytes, LDP_MALFORMED_REPORT (magic), LDP_UNSUPPORTED_VERSION,
 * LDP_RESERVED_BITS_SET, LDP_INVALID_PARAMETERS (kind, format or shape), LDP_WRONG_LENGTH (size is not
 * the header's total), LDP_CHECKSUM_MISMATCH; on LDP_OK fills *header. LDP_INVALID_ARGUMENT for a null
 * pointer. Allocates nothing: the caller sizes its buffers from header->dim after LDP_OK. */
ldp_status ldp_model_broadcast_peek(const uint8_t* bytes, size_t size, ldp_model_header* header) LDP_NOEXCEPT;

/* What the round fixes besides the model: the broadcast's digest, m = max_samples >= 1 (a device
 * averages its first m samples), the grid's f = frac_bits <= 62 and the radius L >= 1 in grid units
 * (ldp_dp_sgd_clip_units in ldp_central.h gives L for a clip G). */
typedef struct ldp_gradient_bound {
  uint64_t model_digest;
  uint32_t max_samples;
  uint32_t frac_bits;
  int64_t radius_fixed;
} ldp_gradient_bound;

/* Entries (floats or doubles) of the workspace of a contribution to a model of dimension d: the
 * weights and the running average. */
#define LDP_GRADIENT_WORKSPACE_COUNT(dim) (2 * (dim))

/* A user's contribution, written to out[0, d) (out_count >= d) on LDP_OK only: `count` samples, the
 * first min(count, m) of which are read: rows of p features one after the other in `features`, and
 * one label each in `labels` (linear: a real; logistic: 0 or 1; softmax: a class 0 .. C - 1). The
 * weights are decoded into the workspace of workspace_count entries, as float (_f32, for an FPU
 * without double) or double (_f64). Statuses in order (device::user_gradient): LDP_INVALID_ARGUMENT for
 * a null pointer, a bound out of range or no samples; LDP_PARAMETER_MISMATCH when the broadcast's
 * digest is not bound->model_digest (a stale or forged model); the broadcast's status
 * (ldp_model_broadcast_peek); LDP_INVALID_ARGUMENT unless d (L + 1)^2 < 2^63; LDP_WORKSPACE_TOO_SMALL
 * below LDP_GRADIENT_WORKSPACE_COUNT(d); LDP_BUFFER_TOO_SMALL when out_count < d; LDP_OUT_OF_RANGE for
 * a weight that is not finite in the workspace's type; LDP_INVALID_ARGUMENT for a label the model
 * cannot take; LDP_OUT_OF_RANGE when the average gradient is not finite. */
ldp_status ldp_user_gradient_f32(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound,
                                 const float* features, const float* labels, size_t count, float* workspace,
                                 size_t workspace_count, int64_t* out, size_t out_count) LDP_NOEXCEPT;
ldp_status ldp_user_gradient_f64(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound,
                                 const double* features, const double* labels, size_t count, double* workspace,
                                 size_t workspace_count, int64_t* out, size_t out_count) LDP_NOEXCEPT;

/* The same from sparse samples (embedding-style inputs): sample k has the features
 * index[offsets[k] .. offsets[k + 1]) (each < p) with their values in `value`; offsets holds count + 1
 * non-decreasing entries from 0. A feature listed twice counts as the sum of its values. Also
 * LDP_INVALID_ARGUMENT for offsets that are not so, LDP_OUT_OF_RANGE for a feature index >= p. */
ldp_status ldp_user_gradient_sparse_f32(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound,
                                        const size_t* offsets, const uint32_t* index, const float* value,
                                        const float* labels, size_t count, float* workspace, size_t workspace_count,
                                        int64_t* out, size_t out_count) LDP_NOEXCEPT;
ldp_status ldp_user_gradient_sparse_f64(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound,
                                        const size_t* offsets, const uint32_t* index, const double* value,
                                        const double* labels, size_t count, double* workspace, size_t workspace_count,
                                        int64_t* out, size_t out_count) LDP_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
