/* The C ABI of ldpkit's server half (ldp::server; usage in docs/c_api.md): aggregators that turn
 * wire reports and batches (docs/wire_format.md sections 4-6) into mergeable saved state
 * (section 7) and estimates with variances and confidence intervals. C99 and C++.
 *
 * Unlike the device half (ldp.h), this half allocates: an aggregator is created and freed by the
 * library. No function throws or aborts on untrusted bytes: a bad report is rejected with its
 * status and counted, and the reports around it still count. Running out of memory is
 * LDP_OVERFLOW. One aggregator must not be used from two threads at once. */
#ifndef LDP_SERVER_H
#define LDP_SERVER_H

#include "ldp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldp_aggregator ldp_aggregator;

/* One estimated quantity: an item's count for the frequency oracles, a coordinate's mean for the
 * numeric mechanisms (item = coordinate index, 0 for a scalar). */
typedef struct ldp_estimate {
  uint32_t item;
  double value;    /* unbiased estimate */
  double variance; /* closed form with the implemented parameters */
  double ci_low;   /* normal-approximation interval at the requested confidence */
  double ci_high;
} ldp_estimate;

/* An empty aggregator for the block (LDP_INVALID_PARAMETERS or LDP_UNKNOWN_MECHANISM for a block
 * without a server side). *out is NULL on failure. */
ldp_status ldp_aggregator_create(const ldp_params* params, ldp_aggregator** out) LDP_NOEXCEPT;

/* An aggregator from saved state (ldp_aggregator_serialize); every field is checked and bad
 * state is refused with a specific status. *out is NULL on failure. */
ldp_status ldp_aggregator_deserialize(const uint8_t* state, size_t size, ldp_aggregator** out) LDP_NOEXCEPT;

/* Frees an aggregator; NULL is allowed. */
void ldp_aggregator_free(ldp_aggregator* aggregator) LDP_NOEXCEPT;

/* A full report (header + payload) as the device wrote it. Returns the report's status; a
 * rejected report is counted under it (see ldp_aggregator_rejected). */
ldp_status ldp_aggregator_add_report(ldp_aggregator* aggregator, const uint8_t* report, size_t size) LDP_NOEXCEPT;

/* A batch record's payload (the batch header already named the parameters). */
ldp_status ldp_aggregator_add_payload(ldp_aggregator* aggregator, const uint8_t* payload, size_t size) LDP_NOEXCEPT;

/* A whole batch (docs/wire_format.md section 6): a chunk whose CRC fails counts as one damaged
 * chunk (ldp_aggregator_damaged_chunks; its record count is not trusted), the other chunks count.
 * LDP_OK when the framing was readable to its end. */
ldp_status ldp_aggregator_add_batch(ldp_aggregator* aggregator, const uint8_t* batch, size_t size) LDP_NOEXCEPT;

/* Adds the counts of `from` (same parameter block, else LDP_PARAMETER_MISMATCH) into `into`;
 * all or nothing. Merging in any order gives identical state. */
ldp_status ldp_aggregator_merge(ldp_aggregator* into, const ldp_aggregator* from) LDP_NOEXCEPT;

/* The saved state. *size receives its size; when it is more than `capacity` nothing is written
 * and the result is LDP_BUFFER_TOO_SMALL (ask with out = NULL, capacity = 0). */
ldp_status ldp_aggregator_serialize(const ldp_aggregator* aggregator, uint8_t* out, size_t capacity,
                                    size_t* size) LDP_NOEXCEPT;

/* The aggregator's parameter block, as a context for the ldp_params_* functions. */
ldp_status ldp_aggregator_params(const ldp_aggregator* aggregator, ldp_params* out) LDP_NOEXCEPT;

/* Accepted reports; 0 for NULL. */
uint64_t ldp_aggregator_reports(const ldp_aggregator* aggregator) LDP_NOEXCEPT;

/* Reports rejected with status `reason` (0 for LDP_OK, unknown reasons and NULL). */
uint64_t ldp_aggregator_rejected(const ldp_aggregator* aggregator, ldp_status reason) LDP_NOEXCEPT;

/* Batch chunks whose CRC32C failed (their records are unknown); 0 for NULL. */
uint64_t ldp_aggregator_damaged_chunks(const ldp_aggregator* aggregator) LDP_NOEXCEPT;

/* Every estimate (items 0..d-1, or coordinates) with a two-sided interval at `confidence` in
 * [0, 1]; none for string discovery (ldp_server_discover); the D bucket counts for the distribution family. *count receives their number; when it is more than `capacity` nothing is written and
 * the result is LDP_BUFFER_TOO_SMALL (ask with out = NULL, capacity = 0). */
ldp_status ldp_aggregator_estimate_all(const ldp_aggregator* aggregator, double confidence, ldp_estimate* out,
                                       size_t capacity, size_t* count) LDP_NOEXCEPT;

/* String discovery (pem, treehist, sfp; docs/mechanisms.md F): a discovered string, NUL-terminated
 * (a string item is 1..64 bytes without a zero byte), and its estimated number of users among all
 * reports. */
#define LDP_DISCOVERED_STRING_CAPACITY 65
typedef struct ldp_discovered_string {
  char string[LDP_DISCOVERED_STRING_CAPACITY];
  ldp_estimate estimate; /* item: the inner oracle's item of the string in the group that counted it */
} ldp_discovered_string;

/* The (at most) k most frequent strings a string-discovery aggregator finds, best first, with
 * intervals at `confidence` in [0, 1]. keep: pem, the prefixes kept per group; treehist and sfp,
 * the most prefixes or fragments kept per group (0: 4 k for each). alphabet: the bytes a string may
 * hold, a NUL-terminated string (NULL or "": any byte for pem and treehist, 0x20..0x7e for sfp's
 * fragments). Candidate tables are bounded by 2^24 entries
 * (LDP_LIMIT_EXCEEDED beyond). *count receives the number found; when it is more than `capacity`
 * nothing is written and the result is LDP_BUFFER_TOO_SMALL (a capacity of k always suffices: the
 * search is the costly part, so size the buffer rather than asking). LDP_INVALID_PARAMETERS for an
 * aggregator of another family, LDP_INVALID_ARGUMENT for k = 0. */
ldp_status ldp_server_discover(const ldp_aggregator* aggregator, uint32_t k, uint32_t keep, const char* alphabet,
                               double confidence, ldp_discovered_string* out, size_t capacity,
                               size_t* count) LDP_NOEXCEPT;

/* The distribution family (square-wave, hierarchical, haar; docs/mechanisms.md G): what any range of
 * the value range holds, quantiles and the density over the buckets, each with its interval
 * (G.4). The options of every query: ldp_distribution_options_default fills the defaults; NULL
 * options stand for them. */
typedef struct ldp_distribution_options {
  double confidence;  /* of every interval, in (0, 1) (default 0.95) */
  int consistency;    /* hierarchical: nonzero applies Hay et al.'s consistency, G.2 (default 1) */
  uint32_t bootstrap; /* square-wave: parametric bootstrap replicates of the EMS estimate, G.1 (default 200) */
  uint64_t seed;      /* square-wave: the bootstrap's public seed, so an estimate is reproducible (default 0) */
} ldp_distribution_options;

/* The fraction of the reports whose value lies in [lo, hi] (real units, clamped to the block's
 * range; a bucket the range cuts counts in proportion to the part inside), its variance and
 * interval. */
typedef struct ldp_range_estimate {
  double lo;
  double hi;
  double estimate;
  double variance;
  double ci_low;
  double ci_high;
} ldp_range_estimate;

/* The q-quantile: the smallest value where the estimated distribution function reaches q, and the
 * values whose distribution-function interval holds q. */
typedef struct ldp_quantile_estimate {
  double q;
  double value;
  double ci_low;
  double ci_high;
} ldp_quantile_estimate;

/* The density at a bucket's midpoint x (fraction per unit of value), with its interval. */
typedef struct ldp_density_estimate {
  double x;
  double value;
  double ci_low;
  double ci_high;
} ldp_density_estimate;

/* The defaults above into *options (nothing for NULL). */
void ldp_distribution_options_default(ldp_distribution_options* options) LDP_NOEXCEPT;

/* The ranges [lo[i], hi[i]] for i < count (lo[i] <= hi[i], finite) into out[0..count). An aggregator
 * without reports gives NaN fields. LDP_INVALID_PARAMETERS for an aggregator of another family,
 * LDP_INVALID_ARGUMENT for NULL arrays with count > 0, a bad range or bad options, LDP_OVERFLOW when
 * memory runs out; nothing is written unless LDP_OK. */
ldp_status ldp_server_ranges(const ldp_aggregator* aggregator, const double* lo, const double* hi, size_t count,
                             const ldp_distribution_options* options, ldp_range_estimate* out) LDP_NOEXCEPT;

/* The quantiles q[i] in [0, 1], i < count, into out[0..count), as ldp_server_ranges. */
ldp_status ldp_server_quantiles(const ldp_aggregator* aggregator, const double* q, size_t count,
                                const ldp_distribution_options* options, ldp_quantile_estimate* out) LDP_NOEXCEPT;

/* The density at each of the block's D buckets, in bucket order. *count receives D; when it is more
 * than `capacity` nothing is written and the result is LDP_BUFFER_TOO_SMALL (ask with out = NULL,
 * capacity = 0). Refusals as ldp_server_ranges. */
ldp_status ldp_server_density(const ldp_aggregator* aggregator, const ldp_distribution_options* options,
                              ldp_density_estimate* out, size_t capacity, size_t* count) LDP_NOEXCEPT;

/* ---- Wang et al.'s learners and query releases (docs/mechanisms.md H.1-H.6) ---------------------
 * The server's last step for bernstein, bernstein-1bit, bernstein-genprot, glm-copies,
 * kway-marginals and smooth-queries, on an aggregator of their reports (or its saved state). Common
 * refusals: LDP_INVALID_ARGUMENT for a NULL pointer argument, LDP_INVALID_PARAMETERS for an
 * aggregator of another mechanism, LDP_BUFFER_TOO_SMALL when the caller's array is shorter than the
 * result, LDP_OVERFLOW when memory runs out; nothing is written unless LDP_OK. */

/* The public-coin learners' per-group estimator (docs/mechanisms.md H.2): Horvitz-Thompson
 * (unbiased) or the ratio; genprot has one estimator and ignores the choice. */
enum ldp_coin_estimator { LDP_COIN_HORVITZ_THOMPSON = 0, LDP_COIN_RATIO = 1 };

/* bernstein, bernstein-1bit, bernstein-genprot (H.1-H.3): the iterated Bernstein surrogate of order
 * 1 <= order <= 32 fitted to the grid estimate (the mean aggregator's per-coordinate means for
 * bernstein, the per-group estimates of `estimator` for the public-coin learners), minimized over
 * [0, 1]^p (dense grid and local refinement for p <= 3, multistart from `seed` beyond, H.1). w[0, p)
 * receives the minimizer (capacity >= the block's p), *minimum the surrogate's value there and
 * *std_dev its standard deviation (the grid values taken as independent). LDP_INVALID_ARGUMENT for
 * an order outside [1, 32], an unknown estimator, or a grid point without an estimate (no reports;
 * a public-coin group without reports, or for the ratio without ones). */
ldp_status ldp_server_bernstein_minimize(const ldp_aggregator* aggregator, uint32_t order, uint32_t estimator,
                                         uint64_t seed, double* w, size_t capacity, double* minimum,
                                         double* std_dev) LDP_NOEXCEPT;

/* glm-copies (H.4): the options of the learner; ldp_glm_options_default fills the defaults and NULL
 * options stand for them. */
typedef struct ldp_glm_options {
  uint32_t loss;    /* LDP_LOSS_LOGISTIC or LDP_LOSS_HINGE (default hinge) */
  double smoothing; /* beta > 0; 0: the paper's for the block's degree (default 0) */
  uint64_t steps;   /* SIGM iterations; 0: one per report (default 0) */
  uint64_t seed;    /* the server's coins: sampled users and kink draws (default 1) */
} ldp_glm_options;

/* What the learner used: the smoothing beta, the iterations run, SIGM's spread sigma and the
 * reports' (epsilon, delta). */
typedef struct ldp_glm_fit {
  double smoothing;
  uint64_t steps;
  double spread;
  double epsilon;
  double delta;
} ldp_glm_fit;

/* The defaults above into *options (nothing for NULL). */
void ldp_glm_options_default(ldp_glm_options* options) LDP_NOEXCEPT;

/* w_priv in [0, 1]^p into w[0, p) (capacity >= the block's p; theta = 2 w - 1) and, unless fit is
 * NULL, what the learner used into *fit. LDP_INVALID_ARGUMENT for a loss other than logistic or
 * hinge, a smoothing that is negative or not finite, or an aggregator without reports. */
ldp_status ldp_server_glm_train(const ldp_aggregator* aggregator, const ldp_glm_options* options, double* w,
                                size_t capacity, ldp_glm_fit* fit) LDP_NOEXCEPT;

/* kway-marginals (H.5): the marginal over the `count` distinct attributes (below the block's p,
 * 1 <= count <= k): cell c (bit i = the value of attributes[i]) is the estimate of P(x_A = c), with
 * its variance and interval at `confidence` in (0, 1), item c. *cells receives 2^count; when it is
 * more than `capacity` nothing is written and the result is LDP_BUFFER_TOO_SMALL.
 * LDP_INVALID_ARGUMENT for bad attributes or confidence. */
ldp_status ldp_server_marginal(const ldp_aggregator* aggregator, const uint32_t* attributes, size_t count,
                               double confidence, ldp_estimate* out, size_t capacity, size_t* cells) LDP_NOEXCEPT;

/* The fraction of records whose ones include the conjunction `set` (bit j = attribute j, 1 to k
 * attributes below p), item its coordinate. LDP_INVALID_ARGUMENT for a bad set or confidence. */
ldp_status ldp_server_conjunction(const ldp_aggregator* aggregator, uint64_t set, double confidence,
                                  ldp_estimate* out) LDP_NOEXCEPT;

/* smooth-queries (H.6): a query's answer, the mean of its Chebyshev interpolant over the data
 * (unbiased), with the variance and the interval at the requested confidence. */
typedef struct ldp_smooth_answer {
  double value;
  double variance;
  double ci_low;
  double ci_high;
} ldp_smooth_answer;

/* Chebyshev node k of t: cos(pi (k + 1/2) / t) for k < t (NaN otherwise). */
double ldp_chebyshev_node(uint32_t t, uint32_t k) LDP_NOEXCEPT;

/* The query f given by its t^p values at the tensor grid of Chebyshev nodes, node_values[sum_j k_j t^j]
 * = f(node(k_0), ..., node(k_{p-1})) (axis 0 fastest; t the block's degree). LDP_INVALID_ARGUMENT
 * unless count = t^p and every value is finite, or for a confidence outside (0, 1). */
ldp_status ldp_server_smooth_query_values(const ldp_aggregator* aggregator, const double* node_values, size_t count,
                                          double confidence, ldp_smooth_answer* out) LDP_NOEXCEPT;

/* The built-in queries (docs/cli.md "--query"), for a point c in [-1, 1]^p and a width s > 0:
 * gaussian exp(-|x - c|^2 / (2 s^2)); smooth step prod_j 1 / (1 + exp(-(x_j - c_j) / s)); monomial
 * prod_j x_j^(c_j) for integer powers c_j in [0, 1000] (width unused). */
enum ldp_smooth_query_kind { LDP_SMOOTH_GAUSSIAN = 0, LDP_SMOOTH_STEP = 1, LDP_SMOOTH_MONOMIAL = 2 };

/* The built-in query of `kind` at point[0, p) (p the block's) and width. LDP_INVALID_ARGUMENT for an
 * unknown kind, another p, a non-finite point, a width that is not positive and finite (gaussian,
 * smooth step), a power outside the integers 0..1000 (monomial), or a confidence outside (0, 1). */
ldp_status ldp_server_smooth_query(const ldp_aggregator* aggregator, uint32_t kind, const double* point, size_t p,
                                   double width, double confidence, ldp_smooth_answer* out) LDP_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
