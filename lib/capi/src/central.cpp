// The central-DP query sessions of the C API (ldp_central.h) over
// ldp::server::winsorized_query_session. An ldp_query_session* owns the C++ session and the views
// of the caller's samples it reads; nothing here throws.
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "context.h"
#include "ldp/server/central/winsorized_queries.h"
#include "ldp_central.h"

using ldp::span;
using ldp::status;
using ldp::capi::code;
namespace server = ldp::server;

struct ldp_query_session {
  std::vector<span<const double>> users;  // the session reads them through these views
  server::winsorized_query_session session;
};

namespace {

server::winsorized_query_options cxx_options(const ldp_query_options& o) noexcept {
  server::winsorized_query_options out;
  out.epsilon = o.epsilon;
  out.delta = o.delta;
  out.queries = o.queries;
  out.dim = o.dim;
  out.lo = o.lo;
  out.hi = o.hi;
  out.frac_bits = o.frac_bits;
  out.observations = o.observations;
  out.tau = o.tau;
  out.gamma = o.gamma;
  out.beta = o.beta;
  out.budget = o.paper_budget != 0 ? server::budget_rule::paper : server::budget_rule::tight;
  out.window = o.paper_window != 0 ? server::window_rule::paper : server::window_rule::safe;
  return out;
}

}  // namespace

extern "C" {

void ldp_query_options_default(ldp_query_options* options) noexcept {
  if (options == nullptr) return;
  const server::winsorized_query_options d;
  *options = ldp_query_options{d.epsilon,      d.delta, d.queries, d.dim,  d.lo, d.hi, d.frac_bits,
                               d.observations, d.tau,   d.gamma,   d.beta, 0,    0};
}

ldp_status ldp_query_session_create(const ldp_query_options* options, const double* const* samples,
                                    const size_t* counts, size_t users, size_t sample_dim, const uint8_t seed[32],
                                    ldp_query_session** out) noexcept {
  if (out == nullptr) return code(status::invalid_argument);
  *out = nullptr;
  if (options == nullptr || seed == nullptr || (users != 0 && (samples == nullptr || counts == nullptr)) ||
      sample_dim == 0) {
    return code(status::invalid_argument);
  }
  std::unique_ptr<ldp_query_session> created(new (std::nothrow) ldp_query_session);
  if (!created) return code(status::overflow);
  try {
    created->users.reserve(users);
    for (size_t u = 0; u < users; ++u) {
      if (samples[u] == nullptr || counts[u] == 0 || counts[u] > SIZE_MAX / sample_dim) {
        return code(status::invalid_argument);
      }
      created->users.emplace_back(samples[u], counts[u] * sample_dim);
    }
  } catch (...) {
    return code(status::overflow);
  }
  const status s = server::winsorized_query_session::create(cxx_options(*options), created->users, sample_dim, seed,
                                                            &created->session);
  if (s != status::ok) return code(s);
  *out = created.release();
  return code(status::ok);
}

void ldp_query_session_free(ldp_query_session* session) noexcept { delete session; }

ldp_status ldp_query_session_ask(ldp_query_session* session, ldp_query_fn query, void* context, double* mean,
                                 size_t dim, double* noise_variance) noexcept {
  if (session == nullptr || query == nullptr || mean == nullptr) return code(status::invalid_argument);
  server::winsorized_query_answer answer;
  if (dim != session->session.dimension()) return code(status::invalid_argument);
  const status s = session->session.ask(
      [query, context](span<const double> sample, span<double> value) {
        query(context, sample.data(), sample.size(), value.data(), value.size());
      },
      &answer);
  if (s != status::ok) return code(s);
  for (size_t j = 0; j < dim; ++j) mean[j] = answer.mean[j];
  if (noise_variance != nullptr) *noise_variance = answer.noise_variance;
  return code(status::ok);
}

uint64_t ldp_query_session_remaining(const ldp_query_session* session) noexcept {
  return session == nullptr ? 0 : session->session.remaining();
}

ldp_status ldp_query_session_spent(const ldp_query_session* session, double* epsilon, double* delta) noexcept {
  if (session == nullptr || epsilon == nullptr || delta == nullptr) return code(status::invalid_argument);
  const server::privacy_loss spent = session->session.spent();
  *epsilon = spent.epsilon;
  *delta = spent.delta;
  return code(status::ok);
}

}  // extern "C"
