/* The C ABI of ldpkit's central-DP query sessions (ldp::server central; usage in docs/c_api.md
 * "Adaptive queries (central DP)"): Levy et al.'s Thm 3, K query functions answered one after the
 * other on the same users' samples within one user-level (epsilon, delta), each chosen by the
 * caller after seeing the earlier answers (docs/mechanisms.md C.2 "K adaptive queries (Thm 3)").
 * C99 and C++.
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

#ifdef __cplusplus
}
#endif

#endif
