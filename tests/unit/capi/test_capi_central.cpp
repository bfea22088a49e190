// The C API of Thm 3's query sessions (ldp_central.h): a C99 program's adaptive session gives the
// C++ session's answers bit for bit, refuses query K + 1 with LDP_BUDGET_EXHAUSTED and reports a
// loss within the budget; the argument checks. Deterministic.
#include <doctest/doctest.h>

#include <vector>

#include "ldp/server/central/winsorized_queries.h"
#include "ldp_central.h"
#include "query_session_example.h"

namespace {

const uint8_t seed[32] = {5, 4, 3, 2, 1};

// 60 users, user u holding 10 + u % 3 samples in [0, 1].
struct population {
  std::vector<std::vector<double>> data;
  std::vector<const double*> samples;
  std::vector<size_t> counts;
  population() : data(60) {
    for (std::size_t u = 0; u < data.size(); ++u) {
      for (std::size_t k = 0; k < 10 + u % 3; ++k) data[u].push_back(static_cast<double>((u * 7 + k * 3) % 11) / 10);
      samples.push_back(data[u].data());
      counts.push_back(data[u].size());
    }
  }
};

}  // namespace

TEST_CASE("C API: a C99 adaptive session == the C++ session; query K + 1 is LDP_BUDGET_EXHAUSTED") {
  const population pop;
  const query_session_example_result r = query_session_example(pop.samples.data(), pop.counts.data(), 60, 10, seed);
  REQUIRE(r.first_error == LDP_OK);
  CHECK(r.third == LDP_BUDGET_EXHAUSTED);
  CHECK(r.remaining == 0);
  CHECK(r.epsilon <= 1);
  CHECK(r.epsilon > 0.99);
  CHECK(r.delta <= 1e-6);

  // The same session in C++.
  ldp::server::winsorized_query_options o;
  o.epsilon = 1;
  o.delta = 1e-6;
  o.queries = 2;
  o.lo = 0;
  o.hi = 1;
  o.observations = 10;
  std::vector<ldp::span<const double>> users;
  for (const auto& u : pop.data) users.push_back(u);
  ldp::server::winsorized_query_session s;
  REQUIRE(ldp::server::winsorized_query_session::create(o, users, 1, seed, &s) == ldp::status::ok);
  ldp::server::winsorized_query_answer a1, a2;
  REQUIRE(s.ask([](ldp::span<const double> z, ldp::span<double> v) { v[0] = z[0]; }, &a1) == ldp::status::ok);
  const double c = a1.mean[0];
  REQUIRE(s.ask([c](ldp::span<const double> z, ldp::span<double> v) { v[0] = (z[0] - c) * (z[0] - c); }, &a2) ==
          ldp::status::ok);
  CHECK(r.mean == a1.mean[0]);
  CHECK(r.spread == a2.mean[0]);
  CHECK(r.variances[0] == a1.noise_variance);
  CHECK(r.variances[1] == a2.noise_variance);
  CHECK(r.epsilon == s.spent().epsilon);
  CHECK(r.delta == s.spent().delta);
}

TEST_CASE("C API: query session arguments") {
  const population pop;
  ldp_query_options o;
  ldp_query_options_default(&o);
  CHECK(o.epsilon == 1);
  CHECK(o.queries == 1);
  CHECK(o.tau == 0);
  CHECK(o.gamma == 0.001);
  o.lo = 0;
  ldp_query_session* s = reinterpret_cast<ldp_query_session*>(&o);
  CHECK(ldp_query_session_create(&o, pop.samples.data(), pop.counts.data(), 60, 1, seed, nullptr) ==
        LDP_INVALID_ARGUMENT);
  CHECK(ldp_query_session_create(nullptr, pop.samples.data(), pop.counts.data(), 60, 1, seed, &s) ==
        LDP_INVALID_ARGUMENT);
  CHECK(s == nullptr);
  CHECK(ldp_query_session_create(&o, pop.samples.data(), pop.counts.data(), 60, 0, seed, &s) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_query_session_create(&o, pop.samples.data(), pop.counts.data(), 0, 1, seed, &s) == LDP_INVALID_ARGUMENT);
  std::vector<size_t> counts = pop.counts;
  counts[3] = 0;
  CHECK(ldp_query_session_create(&o, pop.samples.data(), counts.data(), 60, 1, seed, &s) == LDP_INVALID_ARGUMENT);
  o.hi = -1;
  CHECK(ldp_query_session_create(&o, pop.samples.data(), pop.counts.data(), 60, 1, seed, &s) == LDP_INVALID_ARGUMENT);
  o.hi = 1;
  REQUIRE(ldp_query_session_create(&o, pop.samples.data(), pop.counts.data(), 60, 1, seed, &s) == LDP_OK);
  const ldp_query_fn phi = [](void*, const double* z, size_t, double* v, size_t) { v[0] = z[0]; };
  double mean[2] = {0, 0};
  CHECK(ldp_query_session_ask(s, nullptr, nullptr, mean, 1, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_query_session_ask(s, phi, nullptr, nullptr, 1, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_query_session_ask(s, phi, nullptr, mean, 2, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_query_session_remaining(s) == 1);  // none of these spent anything
  double epsilon = -1, delta = -1;
  CHECK(ldp_query_session_spent(s, &epsilon, &delta) == LDP_OK);
  CHECK(epsilon == 0);
  CHECK(ldp_query_session_ask(s, phi, nullptr, mean, 1, nullptr) == LDP_OK);
  CHECK(ldp_query_session_ask(s, phi, nullptr, mean, 1, nullptr) == LDP_BUDGET_EXHAUSTED);
  CHECK(ldp_query_session_spent(s, &epsilon, &delta) == LDP_OK);
  CHECK(epsilon <= 1);
  CHECK(delta == 0);
  CHECK(ldp_query_session_spent(nullptr, &epsilon, &delta) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_query_session_remaining(nullptr) == 0);
  ldp_query_session_free(s);
  ldp_query_session_free(nullptr);
}
