// ldp estimate (docs/cli.md): estimates with confidence intervals from a state file.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

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
};

void run(const estimate_options& o) {
  if (!(o.confidence > 0 && o.confidence < 1)) fail("--confidence must be in (0, 1), got {}", o.confidence);
  const std::unique_ptr<server::aggregator> agg = load_state(o.state);
  estimate_report r = make_estimate_report(*agg, o.confidence, o.top);
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
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
