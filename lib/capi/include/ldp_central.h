/* The C ABI of ldpkit's central-DP query sessions (ldp::server central; usage in docs/c_api.md
 * "Adaptive queries (central DP)"): Levy et al.'s Thm 3, K query functions answered one after the
 * other on the same users' samples within one user-level (epsilon, delta), each chosen by the
 * caller after seeing the earlier answers (docs/mechanisms.md C.2 "K adaptive queries (Thm 3)");
 * and the server's side of private training rounds (docs/c_api.md "Training rounds"). C99 and C++.
 *
 * The session holds pointers to the users' samples and calls the query function on them: the
 * caller is the trusted curator. Like the aggregators (ldp_server.h) a session is allocated by the
 * library and must not be used from two threads at once. Running out of memory is LDP_OVERFLOW. */
#ifndef LDP_CENTRAL_H
#define LDP_CENTRAL_H

#include "ldp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldp_query_session ldp_query_session;

/* A query phi_k on one sample: reads sample_dim reals, writes dim values. A value that is NaN or
 * left unwritten counts as the box's centre, any other is clamped to [lo, hi]. It must depend only
 * on the sample, on `context` and on public information such as earlier answers. */
typedef void (*ldp_query_fn)(void* context, const double* sample, size_t sample_dim, double* value, size_t dim);

typedef struct ldp_query_options {
  double epsilon;        /* user-level (epsilon, delta) of the whole session */
  double delta;          /* 0: pure DP */
  uint64_t queries;      /* K */
  uint32_t dim;          /* d of every answer */
  double lo, hi;         /* the box of the query values */
  uint32_t frac_bits;    /* fixed-point grid of the users' averages */
  uint32_t observations; /* m: a user contributes its first m samples */
  double tau;            /* l2 radius of the users' averaged query around a common point; 0: Cor. 1 */
  double gamma;          /* Cor. 1's failure probability, when tau = 0 */
  double beta;           /* the random rotation's failure probability */
  int paper_budget;      /* nonzero: the paper's Thm 3 split; 0: one tight composition (default) */
  int paper_window;      /* nonzero: +-2 tau windows; 0: the safe +-3 tau (default) */
} ldp_query_options;

/* Defaults: epsilon 1, delta 0, one query, d 1, box [-1, 1], frac_bits 16, m 1, tau 0 (Cor. 1),
 * gamma and beta 0.001, tight budget, safe windows. */
void ldp_query_options_default(ldp_query_options* options) LDP_NOEXCEPT;

/* A session over `users` users: user u holds counts[u] >= 1 samples of sample_dim reals at
 * samples[u] (one after the other), kept alive and unchanged by the caller while the session
 * lives. seed: 32 secret random bytes keying the session's DRBG (rotations, windows, noise).
 * LDP_INVALID_ARGUMENT for options out of range, a box that does not fit the grid, no users, a user
 * without samples, or a budget rule whose per-coordinate epsilon would overspend. *out is NULL on
 * failure. */
ldp_status ldp_query_session_create(const ldp_query_options* options, const double* const* samples,
                                    const size_t* counts, size_t users, size_t sample_dim, const uint8_t seed[32],
                                    ldp_query_session** out) LDP_NOEXCEPT;

/* Frees a session; NULL is allowed. */
void ldp_query_session_free(ldp_query_session* session) LDP_NOEXCEPT;

/* Answers the next query: mean[dim] receives the estimate, *noise_variance (may be NULL) the noise
 * variance of each coordinate. LDP_BUDGET_EXHAUSTED once the session's K queries ran: nothing is
 * computed and nothing more is spent. LDP_INVALID_ARGUMENT for a NULL function or output. */
ldp_status ldp_query_session_ask(ldp_query_session* session, ldp_query_fn query, void* context, double* mean,
                                 size_t dim, double* noise_variance) LDP_NOEXCEPT;

/* Queries still available (K minus those asked; 0 for NULL). */
uint64_t ldp_query_session_remaining(const ldp_query_session* session) LDP_NOEXCEPT;

/* What the queries asked so far spend per user: never above the session's (epsilon, delta);
 * delta is 0 when basic composition is the smaller. */
ldp_status ldp_query_session_spent(const ldp_query_session* session, double* epsilon, double* delta) LDP_NOEXCEPT;

/* ---- Training rounds (docs/mechanisms.md I.0, I.1; usage in docs/c_api.md "Training rounds") ----
 * The server's side of ldp.h's training rounds: the model broadcast of each round and the
 * accountant of DP-SGD's discrete Gaussian noise. */

/* The bytes of the broadcast of header's kind, features, classes and format (24 + d w + 4, w = 4 or
 * 8); 0 for an invalid shape or format (docs/wire_format.md 10: 1 <= p <= 2^24, classes 1 for
 * linear and logistic, 2 <= C <= 2^16 for softmax, d <= 2^26). */
size_t ldp_model_broadcast_size(const ldp_model_header* header) LDP_NOEXCEPT;

/* Writes the broadcast of the weights theta[0, dim) under header's kind, features, classes, format
 * and round (dim and digest are ignored: ldp_model_broadcast_peek on the result gives them);
 * LDP_WEIGHTS_F32 weights are rounded to nearest. LDP_INVALID_ARGUMENT for a null pointer, an invalid header,
 * dim other than the model's d or a weight that is not finite (as a float for LDP_WEIGHTS_F32);
 * LDP_BUFFER_TOO_SMALL below ldp_model_broadcast_size. */
ldp_status ldp_model_broadcast_encode(const ldp_model_header* header, const double* theta, size_t dim, uint8_t* out,
                                      size_t capacity, size_t* written) LDP_NOEXCEPT;

/* The clipping radius in grid units, L = floor(G 2^f) (saturating at 2^64 - 1; 0 for G < 2^-f or a
 * NaN): the radius_fixed of the round's ldp_gradient_bound for a clip G in real units. */
uint64_t ldp_dp_sgd_clip_units(double clip, uint32_t frac_bits) LDP_NOEXCEPT;

/* The smallest integer variance sigma2 of the discrete Gaussian for which `steps` DP-SGD steps with
 * clip G on the grid of f fraction bits spend at most (epsilon, delta) (L2 sensitivity 2 L in grid
 * units, the tight conversion below); 0 when none fits or an argument is invalid. */
uint64_t ldp_dp_sgd_sigma2_for(double epsilon, double delta, uint64_t steps, double clip,
                               uint32_t frac_bits) LDP_NOEXCEPT;

/* rho of `steps` releases of the discrete Gaussian of variance sigma2 at L2 sensitivity `sensitivity`
 * (grid units): steps sensitivity^2 / (2 sigma2), zero-concentrated DP. NaN for sigma2 <= 0 or a
 * negative sensitivity. */
double ldp_discrete_gaussian_rho(double sensitivity, double sigma2, uint64_t steps) LDP_NOEXCEPT;

/* The accountant's conversion of rho-zCDP to (epsilon, delta)-DP: the smallest epsilon over Renyi
 * orders (Canonne, Kamath, Steinke 2020, Corollary 13), delta in (0, 1). */
double ldp_zcdp_to_epsilon(double rho, double delta) LDP_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
