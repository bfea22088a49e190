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
#include "files.h"
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
  server::limits limits;
  release_request release;                    // central DP (sparse-projection and winsorized-sums states)
  std::vector<CLI::Option*> release_options;  // --epsilon, --delta, --release-seed: every central state
  std::vector<CLI::Option*> session_options;  // --queries, --budget, --users: winsorized-sums only
};

bool given(const CLI::Option* option) { return option->count() > 0; }

// The exact sums of a central-DP state are not private: only the server's release is printed.
estimate_report central_report(const server::aggregator& agg, const estimate_options& o) {
  const wire::mechanism mech = agg.parameters().mech;
  if (mech == wire::mechanism::winsorized_bins) {
    fail(
        "{} is a winsorized-mean winsorized-bins state: its exact sums are not private, and it has no release: round "
        "1 only chooses the windows (ldp simulate); release the round-2 (winsorized-sums) state",
        o.state);
  }
  const bool sums = mech == wire::mechanism::winsorized_sums;
  if (!given(o.release_options[0]) || !given(o.release_options[2])) {
    if (sums) {
      fail(
          "{} holds the exact sums of winsorized-mean round 2 (central DP): ldp estimate releases them with the "
          "server's noise and needs --epsilon E [--delta D] [--queries K] [--budget tight|paper] --release-seed S "
          "[--users n], the session's options of ldp simulate",
          o.state);
    }
    fail(
        "{} holds the exact sums of sparse-projection reports (central DP): ldp estimate releases them with the "
        "server's noise and needs --epsilon E [--delta D] --release-seed S",
        o.state);
  }
  return sums ? winsorized_release_report(agg, o.release, o.confidence, o.top)
              : sparse_release_report(agg, o.release, o.confidence, o.top);
}

void run(const estimate_options& o) {
  if (!(o.confidence > 0 && o.confidence < 1)) fail("--confidence must be in (0, 1), got {}", o.confidence);
  refuse_overlaps({{"input state", o.state}, {"--truth", o.truth}}, {{"--plot", o.plot}});
  const std::unique_ptr<server::aggregator> agg = load_state(o.state, o.limits);
  const bool central = is_central(agg->parameters().mech);
  const wire::mechanism mech = agg->parameters().mech;
  for (const CLI::Option* option : o.session_options) {
    if (mech != wire::mechanism::winsorized_sums && given(option)) {
      fail("{} applies to winsorized-mean round-2 (winsorized-sums) states only; {} is {}", option->get_name(), o.state,
           wire::mechanism_name(mech));
    }
  }
  for (const CLI::Option* option : o.release_options) {
    if (!central && given(option)) {
      fail("{} applies to central-DP states (sparse-projection, winsorized-mean round 2) only; {} is {}",
           option->get_name(), o.state, wire::mechanism_name(mech));
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
  add_max_state_bytes_option(*app, &o->limits.max_state_bytes, "refuse a state that needs more memory");
  o->release_options = {
      app->add_option("--epsilon,-e", o->release.epsilon,
                      "central DP: epsilon of the server's release (winsorized-mean: of the session)"),
      app->add_option("--delta", o->release.delta, "central DP: delta of the release (default 0: pure DP)"),
      app->add_option("--release-seed", o->release.seed, "central DP: seed of the server's noise (docs/cli.md)"),
  };
  o->session_options = {
      app->add_option("--queries", o->release.queries, "winsorized-mean: queries K of the session (default 1)"),
      app->add_option("--budget", o->release.budget, "winsorized-mean: tight (default) or paper per-coordinate budget")
          ->check(CLI::IsMember({"tight", "paper"})),
      app->add_option("--users", o->release.users,
                      "winsorized-mean: users n of round 1 (default: the state's reports)"),
  };
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
