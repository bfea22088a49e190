// ldp mechanisms (docs/cli.md): the frequency oracles ranked by implemented variance for (d,
// epsilon, n), from server::recommend (docs/mechanisms.md A.8); with --dim, the vector mechanisms
// ranked by E||x^ - x_bar||^2 on the unit ball, from server::recommend_vector (B.6).
#include <cmath>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.h"
#include "errors.h"
#include "ldp/server/frequency.h"
#include "ldp/server/vector_mean.h"
#include "ldp/wire/mechanism.h"
#include "mechanism_options.h"
#include "output.h"
#include "recommend.h"

namespace ldp::tools {

std::vector<server::recommendation> ranked_oracles(uint32_t domain, double epsilon, uint64_t devices) {
  if (domain < 2) fail("--domain must be at least 2, got {}", domain);
  check_epsilon(epsilon);
  if (devices == 0) fail("--devices must be at least 1");
  std::vector<server::recommendation> ranked = server::recommend(domain, epsilon, devices);
  if (ranked.empty()) fail("no frequency oracle can be built for --domain {} --epsilon {}", domain, epsilon);
  return ranked;
}

std::string recommendation_parameters(const server::recommendation& r) {
  if (r.mech == wire::mechanism::blh || r.mech == wire::mechanism::olh) return fmt::format("g={}", r.g_or_k);
  if (r.mech == wire::mechanism::cms || r.mech == wire::mechanism::hcms) return fmt::format("k={} m={}", r.g_or_k, r.m);
  if (r.mech == wire::mechanism::flh) return fmt::format("k={} g={}", r.g_or_k, r.m);
  if (r.mech == wire::mechanism::hr) return fmt::format("K={} B={}", r.g_or_k, r.m);
  return {};
}

namespace {

struct mechanisms_options {
  uint32_t domain = 0;
  uint32_t dim = 0;
  double epsilon = 0;
  uint64_t devices = 1000000;
  std::string format = "table";
};

void print(const mechanisms_options& o, const table& t) {
  if (o.format == "csv") {
    print_csv(stdout, t);
  } else {
    print_text(stdout, t);
  }
}

void run_vectors(const mechanisms_options& o) {
  if (o.dim < 1) fail("--dim must be at least 1, got {}", o.dim);
  check_epsilon(o.epsilon);
  if (o.devices == 0) fail("--devices must be at least 1");
  const std::vector<server::vector_recommendation> ranked = server::recommend_vector(o.dim, o.epsilon, o.devices);
  if (ranked.empty()) fail("no vector mechanism can be built for --dim {} --epsilon {}", o.dim, o.epsilon);
  table t{{"rank", "mechanism", "variance/report", "L2 error", "report bytes"}, {true, false, true, true, true}, {}};
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const server::vector_recommendation& r = ranked[i];
    t.rows.push_back({std::to_string(i + 1), wire::mechanism_name(r.mech), fmt::format("{:.4g}", r.variance_per_report),
                      fmt::format("{:.4g}", r.l2_error), std::to_string(r.report_bytes)});
  }
  if (o.format != "csv") {
    fmt::print("vector mechanisms for d = {}, epsilon = {}, n = {} devices, vectors in the unit L2 ball, best first\n",
               o.dim, o.epsilon, format_count(o.devices));
    fmt::print(
        "(variance/report: n E||x^ - x_bar||^2 for identical users on the sphere, scaling with R^2;\n"
        " L2 error: its square root over n; report bytes: header included, at most for vector-laplace)\n");
  }
  print(o, t);
}

void run(const mechanisms_options& o) {
  if ((o.dim != 0) == (o.domain != 0)) fail("ldp mechanisms needs exactly one of --domain (items) and --dim (vectors)");
  if (o.dim != 0) {
    run_vectors(o);
    return;
  }
  const std::vector<server::recommendation> ranked = ranked_oracles(o.domain, o.epsilon, o.devices);
  table t{{"rank", "mechanism", "parameters", "variance/report", "std error", "report bytes", "estimate steps"},
          {true, false, false, true, true, true, true},
          {}};
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const server::recommendation& r = ranked[i];
    t.rows.push_back({std::to_string(i + 1), wire::mechanism_name(r.mech), recommendation_parameters(r),
                      fmt::format("{:.4g}", r.variance_per_report), fmt::format("{:.4g}", r.std_error),
                      std::to_string(r.report_bytes), fmt::format("{:.3g}", r.estimate_cost)});
  }
  if (o.format == "csv") {
    print(o, t);
    return;
  }
  fmt::print("frequency oracles for d = {}, epsilon = {}, n = {} devices, best first\n", o.domain, o.epsilon,
             format_count(o.devices));
  fmt::print(
      "(variance/report: Var[count estimate] / n for an item nobody holds; std error: its square root at n;\n"
      " estimate steps: the decoding work after ingestion; oracles above 1e11 steps are ranked last)\n");
  print(o, t);
}

}  // namespace

command add_mechanisms(CLI::App& parent) {
  auto o = std::make_shared<mechanisms_options>();
  CLI::App* app = parent.add_subcommand(
      "mechanisms",
      "rank the frequency oracles for a domain size (or the vector mechanisms for a dimension) and epsilon");
  app->add_option("--domain,-d", o->domain, "number of items d (frequency oracles)");
  app->add_option("--dim", o->dim, "vector dimension d (vector mechanisms, unit L2 ball)");
  app->add_option("--epsilon,-e", o->epsilon, "privacy level epsilon, in " + epsilon_range())->required();
  app->add_option("--devices,-n", o->devices, "number of devices n (default 1000000)");
  app->add_option("--format,-f", o->format, "table or csv")->check(CLI::IsMember({"table", "csv"}));
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
