/* Thm 3's adaptive queries through the C API (docs/c_api.md "Adaptive queries (central DP)"): the
 * second query's function takes the first answer through its context. */
#include "query_session_example.h"

/* phi_1(z) = z. */
static void identity(void* context, const double* sample, size_t sample_dim, double* value, size_t dim) {
  (void)context;
  (void)sample_dim;
  (void)dim;
  value[0] = sample[0];
}

/* phi_2(z) = (z - c)^2, c the first answer. */
static void spread(void* context, const double* sample, size_t sample_dim, double* value, size_t dim) {
  const double centre = *(const double*)context;
  (void)sample_dim;
  (void)dim;
  value[0] = (sample[0] - centre) * (sample[0] - centre);
}

query_session_example_result query_session_example(const double* const* samples, const size_t* counts, size_t users,
                                                   uint32_t observations, const uint8_t seed[32]) {
  query_session_example_result r = {LDP_OK, 0, 0, {0, 0}, LDP_OK, 0, 0, 0};
  ldp_query_options options;
  ldp_query_session* session = NULL;
  double centre = 0;
  double unused = 0;
  ldp_status s;
  ldp_query_options_default(&options);
  options.epsilon = 1;
  options.delta = 1e-6;
  options.queries = 2;
  options.lo = 0;
  options.hi = 1;
  options.observations = observations;
  s = ldp_query_session_create(&options, samples, counts, users, 1, seed, &session);
  if (s != LDP_OK) {
    r.first_error = s;
    return r;
  }
  s = ldp_query_session_ask(session, identity, NULL, &r.mean, 1, &r.variances[0]);
  if (s == LDP_OK) {
    centre = r.mean; /* chosen after seeing answer 1 */
    s = ldp_query_session_ask(session, spread, &centre, &r.spread, 1, &r.variances[1]);
  }
  if (s == LDP_OK) r.third = ldp_query_session_ask(session, identity, NULL, &unused, 1, NULL);
  if (s == LDP_OK) s = ldp_query_session_spent(session, &r.epsilon, &r.delta);
  r.remaining = ldp_query_session_remaining(session);
  r.first_error = s;
  ldp_query_session_free(session);
  return r;
}
