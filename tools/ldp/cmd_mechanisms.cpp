// ldp mechanisms (docs/cli.md): the frequency oracles ranked by implemented variance for (d,
// epsilon, n), from server::recommend (docs/mechanisms.md A.8).
#include <cmath>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.h"
#include "errors.h"
#include "ldp/server/frequency.h"
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
  double epsilon = 0;
  uint64_t devices = 1000000;
  std::string format = "table";
};

void run(const mechanisms_options& o) {
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
    print_csv(stdout, t);
    return;
  }
  fmt::print("frequency oracles for d = {}, epsilon = {}, n = {} devices, best first\n", o.domain, o.epsilon,
             format_count(o.devices));
  fmt::print(
      "(variance/report: Var[count estimate] / n for an item nobody holds; std error: its square root at n;\n"
      " estimate steps: the decoding work after ingestion; oracles above 1e11 steps are ranked last)\n");
  print_text(stdout, t);
}

}  // namespace

command add_mechanisms(CLI::App& parent) {
  auto o = std::make_shared<mechanisms_options>();
  CLI::App* app = parent.add_subcommand("mechanisms", "rank the frequency oracles for a domain size and epsilon");
  app->add_option("--domain,-d", o->domain, "number of items d")->required();
  app->add_option("--epsilon,-e", o->epsilon, "privacy level epsilon, in " + epsilon_range())->required();
  app->add_option("--devices,-n", o->devices, "number of devices n (default 1000000)");
  app->add_option("--format,-f", o->format, "table or csv")->check(CLI::IsMember({"table", "csv"}));
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
