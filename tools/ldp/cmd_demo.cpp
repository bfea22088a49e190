// ldp demo (docs/cli.md, README quick start): a fleet on the built-in skewed dataset, simulated
// with the real device code, aggregated in memory through the same batch path as `ldp aggregate`,
// then the top items against the truth, the error against its closed-form prediction, throughput
// and an SVG plot. Everything but the timings is a deterministic function of the options.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "batch_io.h"
#include "block_text.h"
#include "commands.h"
#include "datasets.h"
#include "errors.h"
#include "estimates.h"
#include "fleet.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/frequency.h"
#include "ldp/wire/report.h"
#include "output.h"
#include "randomizers.h"
#include "svg_plot.h"

namespace ldp::tools {
namespace {

struct demo_options {
  mechanism_options mech;
  uint64_t devices = 1000000;
  uint64_t seed = 20240601;
  std::size_t top = 10;
  std::string plot = "demo.svg";
  unsigned threads = 0;
};

// The oracle with the smallest implemented variance for the demo's (d, epsilon, n).
std::string recommended(uint32_t d, double epsilon, uint64_t n) {
  const std::vector<server::recommendation> ranked = server::recommend(d, epsilon, n);
  if (ranked.empty()) fail("no frequency oracle can be built for --domain {} --epsilon {}", d, epsilon);
  return wire::mechanism_name(ranked.front().mech);
}

void run(demo_options o) {
  const bool chosen = o.mech.name.empty();
  if (o.devices == 0) fail("--devices must be at least 1");
  if (o.threads > max_threads) fail("--threads must be at most {}, got {}", max_threads, o.threads);
  if (chosen) o.mech.name = recommended(o.mech.domain, o.mech.epsilon, o.devices);
  if (checked_mechanism(o.mech).input != input_kind::item) fail("the demo runs frequency oracles, not {}", o.mech.name);
  const parameter_block block = build_block(o.mech);
  const std::unique_ptr<dataset> data = make_dataset("builtin", shape_of(block), o.devices);

  std::unique_ptr<server::aggregator> agg;
  const status created = server::aggregator::create(block.params, &agg);
  if (created != status::ok) fail("cannot aggregate {}: {}", block.mechanism->name, describe(created));

  fmt::print("ldp demo: {} simulated devices each hold one of {} items (built-in skewed \"emoji popularity\" data)\n",
             format_count(data->devices()), format_count(o.mech.domain));
  fmt::print("mechanism: {} ({}), epsilon {} (implemented {:.15g}){}\n", block.mechanism->name,
             describe_block(block.params), o.mech.epsilon, block.epsilon_impl,
             chosen ? ", the smallest variance of `ldp mechanisms`" : "");
  fmt::print("each device randomizes its item with the device library; the server sees only the reports\n");

  batch_aggregator ingest(*agg, block.params);
  const unsigned threads = worker_threads(o.threads);
  const fleet_timing timing = run_fleet(block, *data, o.seed, seed_purpose::device_block, threads,
                                        [&](span<const unsigned char> chunks, uint64_t) { ingest.add(chunks); });
  if (agg->reports() != data->devices()) {
    fail("internal: {} of {} reports were accepted", agg->reports(), data->devices());
  }
  fmt::print("reports: {} of {} bytes each, all accepted, aggregated exactly\n\n", format_count(agg->reports()),
             wire::max_report_size(block.params));
  const auto estimate_start = std::chrono::steady_clock::now();
  estimate_report r = make_estimate_report(*agg, 0.95, o.top);
  attach_truth(r, truth_of(block, *data));
  const double estimate_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - estimate_start).count();

  fmt::print("top {} items by estimated count, with 95% confidence intervals and the true counts:\n", r.listed.size());
  table t{{"item", "estimate", "95% CI", "true"}, {true, true, true, true}, {}};
  for (std::size_t i : r.listed) {
    const server::estimate& e = r.all[i];
    t.rows.push_back({std::to_string(e.item), format_value(r, e.value),
                      fmt::format("[{}, {}]", format_value(r, e.ci_low), format_value(r, e.ci_high)),
                      format_value(r, r.truth->values[i])});
  }
  print_text(stdout, t, "  ");
  fmt::print("\n");
  print_error_summary(stdout, r, "");
  if (!o.plot.empty()) {
    write_svg_plot(o.plot, r,
                   fmt::format("ldp demo: top {} of {} items, {} devices, {} at epsilon {}", r.listed.size(),
                               o.mech.domain, format_count(data->devices()), block.mechanism->name, o.mech.epsilon));
    fmt::print("\nplot: {}\n", o.plot);
  }
  const auto n = static_cast<double>(data->devices());
  fmt::print("\nthroughput ({} thread{}): randomize {} ({}), ingest {} ({}), estimate {}\n", threads,
             threads == 1 ? "" : "s", format_rate(n / timing.randomize_seconds, "reports"),
             format_seconds(timing.randomize_seconds), format_rate(n / timing.sink_seconds, "reports"),
             format_seconds(timing.sink_seconds), format_seconds(estimate_seconds));
}

}  // namespace

command add_demo(CLI::App& parent) {
  auto o = std::make_shared<demo_options>();
  CLI::App* app = parent.add_subcommand(
      "demo", "simulate 1,000,000 devices on a built-in skewed dataset, aggregate, and compare with the truth");
  o->mech.domain = 1000;
  o->mech.epsilon = 2;
  add_mechanism_options(*app, o->mech, true);
  app->add_option("--devices,-n", o->devices, "number of devices (default 1000000)");
  app->add_option("--seed", o->seed, "seed of the simulation (default 20240601)");
  app->add_option("--top,-k", o->top, "items to list (default 10)");
  app->add_option("--plot", o->plot, "SVG chart to write (default demo.svg; empty: none)");
  app->add_option("--threads", o->threads, "worker threads (default: one per hardware thread)");
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
