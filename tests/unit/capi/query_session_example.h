/* Thm 3's adaptive queries from C99 (query_session_example.c), run by test_capi_central.cpp. */
#ifndef LDP_TESTS_CAPI_QUERY_SESSION_EXAMPLE_H
#define LDP_TESTS_CAPI_QUERY_SESSION_EXAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "ldp_central.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct query_session_example_result {
  ldp_status first_error; /* LDP_OK, or the first unexpected status */
  double mean;            /* answer 1: the mean of the samples */
  double spread;          /* answer 2: the mean of (sample - mean)^2, around answer 1 */
  double variances[2];    /* the answers' noise variances */
  ldp_status third;       /* the status of a third query (K = 2): LDP_BUDGET_EXHAUSTED */
  uint64_t remaining;     /* queries left at the end */
  double epsilon;         /* what the session spent */
  double delta;
} query_session_example_result;

/* Two queries (K = 2) at epsilon 1, delta 1e-6 on `users` users' samples (one real in [0, 1] each,
 * counts[u] of them at samples[u], m = `observations`), the second chosen from the first's answer,
 * then a third that the session refuses. */
query_session_example_result query_session_example(const double* const* samples, const size_t* counts, size_t users,
                                                   uint32_t observations, const uint8_t seed[32]);

#ifdef __cplusplus
}
#endif

#endif
