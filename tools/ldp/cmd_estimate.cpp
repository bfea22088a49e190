// ldp estimate (docs/cli.md): estimates with confidence intervals from a state file.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "central_release.h"
#include "commands.h"
#include "errors.h"
#include "estimates.h"
#include "state_io.h"
#include "svg_plot.h"

namespace ldp::tools {
namespace {

struct estimate_options {
  std::string state;
  std::string format = "table";
  std::size_t top = 0;
  std::string truth;
  std::string plot;
  double confidence = 0.95;
  sparse_release_request release;  // central DP (sparse-vector states)
  std::vector<CLI::Option*> release_options;  // --epsilon, --delta, --release-seed
};

// The exact sums of a central-DP state are not private: only the server's release is printed.
estimate_report central_report(const server::aggregator& agg, const estimate_options& o) {
  const wire::mechanism mech = agg.parameters().mech;
  if (mech != wire::mechanism::sparse_vector) {
    fail("{} is a winsorized-mean {} state: its exact sums are not private, and the release needs round 1, the "
         "window list and round 2 together, which ldp simulate --mechanism winsorized-mean has: it prints the "
         "release (and writes it with --release-out)",
         o.state, wire::mechanism_name(mech));
  }
  if (o.release_options[0]->count() == 0 || o.release_options[2]->count() == 0) {
    fail("{} holds the exact sums of sparse-vector reports (central DP): ldp estimate releases them with the "
         "server's noise and needs --epsilon E [--delta D] --release-seed S",
         o.state);
  }
  return sparse_release_report(agg, o.release, o.confidence, o.top);
}

void run(const estimate_options& o) {
  if (!(o.confidence > 0 && o.confidence < 1)) fail("--confidence must be in (0, 1), got {}", o.confidence);
  const std::unique_ptr<server::aggregator> agg = load_state(o.state);
  const bool central = is_central(agg->parameters().mech);
  for (CLI::Option* option : o.release_options) {
    if (!central && option->count() > 0) {
      fail("{} applies to central-DP states (sparse-projection) only; {} is {}", option->get_name(), o.state,
           wire::mechanism_name(agg->parameters().mech));
    }
  }
  estimate_report r = central ? central_report(*agg, o) : make_estimate_report(*agg, o.confidence, o.top);
  if (!o.truth.empty()) attach_truth(r, read_truth(o.truth, r.all.size()));
  if (!o.plot.empty()) {
    write_svg_plot(o.plot, r, fmt::format("{} estimates, {}", wire::mechanism_name(agg->parameters().mech), o.state));
  }
  if (o.format == "json") {
    fmt::print("{}\n", estimate_json(*agg, r).dump(2));
  } else if (o.format == "csv") {
    print_estimate_csv(stdout, r);
  } else {
    fmt::print("state: {}\n", o.state);
    print_estimate_text(stdout, *agg, r);
    if (!o.plot.empty()) fmt::print("plot: {}\n", o.plot);
  }
}

}  // namespace

command add_estimate(CLI::App& parent) {
  auto o = std::make_shared<estimate_options>();
  CLI::App* app = parent.add_subcommand("estimate", "estimates with confidence intervals from an aggregator state");
  app->add_option("state", o->state, "state file (from ldp aggregate or ldp merge)")->required();
  app->add_option("--format,-f", o->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  app->add_option("--top,-k", o->top, "list only the K largest estimates (default: all, in index order)");
  app->add_option("--truth", o->truth, "exact answer (simulate --truth-out): adds the error summary");
  app->add_option("--plot", o->plot, "also write an SVG chart of the listed estimates");
  app->add_option("--confidence", o->confidence, "level of the intervals (default 0.95)");
  o->release_options = {
      app->add_option("--epsilon,-e", o->release.epsilon, "sparse-projection: epsilon of the server's release"),
      app->add_option("--delta", o->release.delta, "sparse-projection: delta of the release (default 0: pure DP)"),
      app->add_option("--release-seed", o->release.seed, "sparse-projection: seed of the server's noise (docs/cli.md)"),
  };
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
