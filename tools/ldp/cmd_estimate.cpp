// ldp estimate (docs/cli.md): estimates with confidence intervals from a state file.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "block_text.h"
#include "candidates.h"
#include "central_release.h"
#include "commands.h"
#include "discovered_output.h"
#include "distribution_output.h"
#include "errors.h"
#include "estimates.h"
#include "files.h"
#include "l1_ball.h"
#include "ldp/server/frequency.h"
#include "ldp/server/string_discovery.h"
#include "ldp/wire/oracle_params.h"
#include "marginal_output.h"
#include "mechanism_options.h"
#include "output.h"
#include "smooth_answers.h"
#include "state_io.h"
#include "svg_plot.h"
#include "text_input.h"

namespace ldp::tools {
namespace {

struct estimate_options {
  std::string state;
  std::string format = "table";
  std::size_t top = 0;
  std::string truth;
  std::string candidates;
  uint32_t discover = 0;  // string states: K
  uint32_t keep = 0;      // pem: prefixes kept per group; treehist: the most kept (0: the server's default)
  std::string alphabet;   // sfp: fragment bytes tried (empty: the server's default)
  std::string plot;
  double confidence = 0.95;
  server::limits limits;
  release_request release;                    // central DP (sparse-projection and winsorized-sums states)
  std::vector<CLI::Option*> release_options;  // --epsilon, --delta, --release-seed: every central state
  std::vector<CLI::Option*> session_options;  // --queries, --budget, --users: winsorized-sums only
  std::vector<std::string> ranges;            // distribution states: --range a:b, repeatable
  std::vector<double> quantiles;              // --quantile q, repeatable
  bool density = false;
  bool no_consistency = false;  // hierarchical: the plain node sums (G.2)
  uint32_t bootstrap = server::distribution_options{}.bootstrap;
  uint64_t bootstrap_seed = 0;
  // --no-consistency (hierarchical), --bootstrap and --bootstrap-seed (square-wave): the form each
  // applies to.
  std::vector<std::pair<CLI::Option*, wire::mechanism>> distribution_options;
  CLI::Option* l1_ball = nullptr;  // vector means: --l1-ball R
  double l1_radius = 0;
  std::string marginal;  // kway-marginals: --marginal a,b,c
  std::string query;     // smooth-queries: the JSON file of queries (smooth_answers.h)
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

// --candidates (docs/cli.md "estimate"): the listed items of a frequency-oracle state, with the
// variances of a candidate list; --truth compares their rows of the truth file.
estimate_report candidate_report(const server::aggregator& agg, const estimate_options& o) {
  const wire::mechanism mech = agg.parameters().mech;
  if (!server::frequency_aggregator::handles(mech)) {
    fail("--candidates applies to frequency-oracle states only; {} is {}", o.state, wire::mechanism_name(mech));
  }
  const auto d = static_cast<uint32_t>(agg.parameters().get(wire::field::domain));
  const std::vector<uint32_t> items = read_item_candidates(o.candidates, d);
  estimate_report r = make_candidate_report(agg, items, o.confidence, o.top);
  if (!o.truth.empty()) {
    const truth_table whole = read_truth(o.truth, d);
    truth_table listed{whole.means, {}};
    for (uint32_t item : items) listed.values.push_back(whole.values[item]);
    attach_truth(r, std::move(listed));
  }
  return r;
}

// pem, treehist, sfp states (docs/cli.md "Discovery output and metrics"): --discover K, or the
// strings of --candidates FILE (one per line, in its order); --truth adds precision, recall and
// count error at K.
void print_strings(const estimate_options& o, const server::aggregator& agg) {
  const auto* strings = dynamic_cast<const server::string_discovery_aggregator*>(&agg);
  if (strings == nullptr) fail("internal: {} is not a string-discovery state", o.state);
  std::vector<discovered_string> shown;
  const auto add = [&](const std::string& item, const server::estimate& e) {
    shown.push_back({item, e.value, e.variance, e.ci_low, e.ci_high});
  };
  if (!o.candidates.empty()) {
    if (o.discover != 0) fail("--candidates and --discover are two questions: ask one at a time");
    const auto length = static_cast<std::size_t>(agg.parameters().get(wire::field::string_length));
    const std::vector<std::string> items = read_text_items(parse_text_spec(o.candidates), length).items;
    std::vector<server::estimate> estimates;
    const status s = strings->estimate_strings(items, o.confidence, &estimates);
    if (s != status::ok) fail("cannot estimate the candidates of {}: {}", o.candidates, describe(s));
    for (std::size_t i = 0; i < items.size(); ++i) add(items[i], estimates[i]);
  } else {
    server::discovery_options d;
    d.k = o.discover;
    d.keep = o.keep;
    d.alphabet = o.alphabet;
    d.confidence = o.confidence;
    std::vector<server::discovered_string> found;
    const status s = strings->discover(d, &found);
    if (s != status::ok) fail("cannot discover strings in {}: {}", o.state, describe(s));
    for (const server::discovered_string& f : found) add(f.item, f.est);
  }
  std::optional<discovery_metrics> metrics;
  if (!o.truth.empty())
    metrics = measure_discovery(shown, read_string_truth(o.truth), o.discover != 0 ? o.discover : shown.size());
  const wire::params& p = agg.parameters();
  if (o.format == "json") {
    nlohmann::ordered_json j = {{"mechanism", wire::mechanism_name(p.mech)},
                                {"epsilon", wire::implemented_epsilon(p)},
                                {"fingerprint", fmt::format("{:016x}", agg.fingerprint())},
                                {"reports", agg.reports()}};
    if (o.discover != 0) j["k"] = o.discover;
    j.update(discovered_json(shown, metrics));
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("state: {}\n{} {}, {} reports, epsilon {:.15g} implemented\n", o.state, wire::mechanism_name(p.mech),
             describe_block(p), format_count(agg.reports()), wire::implemented_epsilon(p));
  print_discovered_table(stdout, shown, o.confidence, metrics);
}

// --range, --quantile, --density of a square-wave, hierarchical or haar state (docs/cli.md
// "Distributions and ranges"); --plot draws the density with its band.
void print_distribution(const estimate_options& o, const server::aggregator& agg) {
  distribution_request q;
  for (const std::string& text : o.ranges) {
    double lo = 0, hi = 0;
    parse_range(text, &lo, &hi);
    q.ranges.emplace_back(lo, hi);
  }
  for (double quantile : o.quantiles) {
    if (!(quantile >= 0 && quantile <= 1)) fail("--quantile must be in [0, 1], got {}", quantile);
  }
  q.quantiles = o.quantiles;
  q.density = o.density || !o.plot.empty();
  q.options.confidence = o.confidence;
  q.options.consistency = !o.no_consistency;
  q.options.bootstrap = o.bootstrap;
  q.options.seed = o.bootstrap_seed;
  distribution_report r = make_distribution_report(agg, q);
  if (!o.plot.empty()) {
    write_svg_density_plot(o.plot, r.density, r.confidence,
                           fmt::format("{} density, {}", wire::mechanism_name(agg.parameters().mech), o.state));
    if (!o.density) r.density.clear();  // drawn, not asked for
  }
  if (o.format == "json") {
    fmt::print("{}\n", distribution_json(agg, r).dump(2));
    return;
  }
  fmt::print("state: {}\n", o.state);
  print_distribution_text(stdout, agg, r);
  if (!o.plot.empty()) fmt::print("plot: {}\n", o.plot);
}

// The report as --format asks, and the --plot chart.
void print_report(const estimate_options& o, const server::aggregator& agg, const estimate_report& r) {
  if (!o.plot.empty()) {
    write_svg_plot(o.plot, r, fmt::format("{} estimates, {}", wire::mechanism_name(agg.parameters().mech), o.state));
  }
  if (o.format == "json") {
    fmt::print("{}\n", estimate_json(agg, r).dump(2));
  } else if (o.format == "csv") {
    print_estimate_csv(stdout, r);
  } else {
    fmt::print("state: {}\n", o.state);
    print_estimate_text(stdout, agg, r);
    if (!o.plot.empty()) fmt::print("plot: {}\n", o.plot);
  }
}

void run(const estimate_options& o) {
  if (!(o.confidence > 0 && o.confidence < 1)) fail("--confidence must be in (0, 1), got {}", o.confidence);
  refuse_overlaps(
      {{"input state", o.state}, {"--truth", o.truth}, {"--candidates", o.candidates}, {"--query", o.query}},
      {{"--plot", o.plot}});
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
  const bool distribution = wire::in_family(mech, wire::mechanism_family::distribution);
  const bool queries = !o.ranges.empty() || !o.quantiles.empty() || o.density;
  for (const auto& [option, form] : o.distribution_options) {
    if (!given(option)) continue;
    if (mech != form) {
      fail("{} applies to {} states only; {} is {}", option->get_name(), wire::mechanism_name(form), o.state,
           wire::mechanism_name(mech));
    }
    if (!queries) fail("{} applies with --range, --quantile or --density", option->get_name());
  }
  if (given(o.l1_ball) && !projects_onto_l1_ball(mech)) {
    fail("--l1-ball applies to vector-mean, laplace-vector and unit-vector states only; {} is {}", o.state,
         wire::mechanism_name(mech));
  }
  if (!o.marginal.empty()) {
    if (o.top != 0 || o.format == "csv" || !o.candidates.empty() || !o.plot.empty())
      fail("--marginal prints as a table or json, without --top, --candidates or --plot");
    print_marginal(*agg, {o.state, o.marginal, o.confidence, o.format, o.truth});
    return;
  }
  if (!o.query.empty()) {
    // docs/mechanisms.md H.6: answers from the feature estimates (plain estimate lists those).
    if (mech != wire::mechanism::smooth_queries)
      fail("--query applies to smooth-queries states only; {} is {}", o.state, wire::mechanism_name(mech));
    if (o.top != 0 || o.format == "csv" || !o.truth.empty() || !o.candidates.empty() || !o.plot.empty())
      fail("--query prints as a table or json, without --top, --truth, --candidates or --plot");
    print_smooth_answers(
        *agg, o.state,
        read_smooth_queries(o.query, static_cast<uint32_t>(agg->parameters().get(wire::field::vector_dim))),
        o.confidence, o.format == "json");
    return;
  }
  if (queries) {
    if (!distribution) {
      fail("--range, --quantile and --density apply to square-wave, hierarchical and haar states only; {} is {}",
           o.state, wire::mechanism_name(mech));
    }
    if (o.top != 0 || o.format == "csv" || !o.truth.empty() || !o.candidates.empty())
      fail("--range, --quantile and --density print as a table or json, without --top, --truth or --candidates");
    print_distribution(o, *agg);
    return;
  }
  const bool strings = wire::in_family(mech, wire::mechanism_family::string_discovery);
  for (const auto& [option, set] : {std::pair{"--discover", o.discover != 0}, std::pair{"--keep", o.keep != 0},
                                    std::pair{"--alphabet", !o.alphabet.empty()}}) {
    if (set && !strings)
      fail("{} applies to pem, treehist and sfp states only; {} is {}", option, o.state, wire::mechanism_name(mech));
  }
  if (strings) {
    if (!o.plot.empty() || o.top != 0 || o.format == "csv")
      fail("a string-discovery state prints as a table or json, without --plot or --top");
    if (o.discover == 0 && o.candidates.empty()) {
      fail("{} is a {} state: ask --discover K (the K most frequent strings) or --candidates FILE", o.state,
           wire::mechanism_name(mech));
    }
    print_strings(o, *agg);
    return;
  }
  if (!o.candidates.empty()) {
    print_report(o, *agg, candidate_report(*agg, o));
    return;
  }
  estimate_report r;
  if (central) {
    r = central_report(*agg, o);
  } else if (given(o.l1_ball)) {
    std::vector<server::estimate> all = agg->estimate_all(o.confidence);
    l1_projection projection = project_estimates(all, o.l1_radius);
    r = make_estimate_report(std::move(all), true, o.confidence, o.top);
    r.projection = std::move(projection);
  } else {
    r = make_estimate_report(*agg, o.confidence, o.top);
  }
  if (!o.truth.empty()) attach_truth(r, read_truth(o.truth, r.all.size()));
  print_report(o, *agg, r);
}

}  // namespace

command add_estimate(CLI::App& parent) {
  auto o = std::make_shared<estimate_options>();
  CLI::App* app = parent.add_subcommand("estimate", "estimates with confidence intervals from an aggregator state");
  app->add_option("state", o->state, "state file (from ldp aggregate or ldp merge)")->required();
  app->add_option("--format,-f", o->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  app->add_option("--top,-k", o->top, "list only the K largest estimates (default: all, in index order)");
  app->add_option("--truth", o->truth, "exact answer (simulate --truth-out): adds the error summary");
  app->add_option("--candidates", o->candidates,
                  "frequency oracles: estimate only the items of FILE (one per line), in its order; pem, treehist, "
                  "sfp: the strings "
                  "of FILE (one per line)");
  app->add_option("--discover", o->discover, "pem, treehist, sfp: the K most frequent strings (K >= 1)")
      ->check(CLI::Range(1u, 100000u));
  app->add_option("--keep", o->keep, "pem: prefixes kept per group; treehist, sfp: the most kept (default 4 K)");
  app->add_option("--alphabet", o->alphabet,
                  "the bytes a string may hold (default: any; sfp: printable ASCII); the padding byte is implied");
  app->add_option("--plot", o->plot,
                  "also write an SVG chart of the listed estimates (with --range, --quantile or --density: the "
                  "density with its band)");
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
  app->add_option("--range", o->ranges,
                  "square-wave, hierarchical, haar: the fraction of the reports with a value in lo:hi (repeatable)")
      ->allow_extra_args(false);
  app->add_option("--quantile", o->quantiles, "square-wave, hierarchical, haar: the q-quantile (repeatable)")
      ->allow_extra_args(false);
  app->add_flag("--density", o->density, "square-wave, hierarchical, haar: the density at every bucket");
  o->distribution_options = {
      {app->add_flag("--no-consistency", o->no_consistency,
                     "hierarchical: answer from the node estimates without Hay et al.'s consistency"),
       wire::mechanism::hierarchical},
      {app->add_option("--bootstrap", o->bootstrap, "square-wave: bootstrap replicates of the variances (default 200)")
           ->check(CLI::Range(2u, 100000u)),
       wire::mechanism::square_wave},
      {app->add_option("--bootstrap-seed", o->bootstrap_seed,
                       "square-wave: seed of the bootstrap (default 0; the same state and seed give the same "
                       "answer)"),
       wire::mechanism::square_wave},
  };
  app->add_option("--query", o->query,
                  "smooth-queries: answer the queries of FILE (JSON, docs/cli.md) with their variances and intervals");
  o->l1_ball = app->add_option("--l1-ball", o->l1_radius,
                               "vector-mean, laplace-vector, unit-vector states: project the mean onto the l1 ball "
                               "of radius R (docs/mechanisms.md C.3)");
  app->add_option("--marginal", o->marginal,
                  "kway-marginals: the marginal over attributes a,b,c (numbers from 0, at most the state's k)");
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
