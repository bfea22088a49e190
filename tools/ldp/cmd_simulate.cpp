// ldp simulate (docs/cli.md): the real device code once per simulated device, into a batch file.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "block_text.h"
#include "commands.h"
#include "datasets.h"
#include "days_sim.h"
#include "errors.h"
#include "files.h"
#include "fleet.h"
#include "ldp/server/aggregator.h"
#include "mechanism_options.h"
#include "output.h"
#include "randomizers.h"
#include "smooth_scaling.h"
#include "state_io.h"
#include "string_sim.h"
#include "user_level_sim.h"
#include "winsorized_sim.h"

namespace ldp::tools {
namespace {

struct simulate_options {
  mechanism_options mech;
  user_level_run run;  // the fleet and the files, whatever the mechanism
  uint64_t max_state_bytes = uint64_t{1} << 30;
  days_options days;
  std::vector<std::pair<const char*, CLI::Option*>> days_given;  // the options that need --days
};

// Every file the run will write, under the names it will write them (kent --dim d > 1: fold f's
// batches with ".fold<f>"; winsorized-mean --queries K > 1: query q's with ".query<q>"), against
// --data's CSV or .npy file and each other, before any work (docs/cli.md "Files").
void refuse_overlapping_files(const mechanism_options& m, const user_level_run& o, input_kind input, uint32_t days) {
  const char* tag = nullptr;
  uint64_t copies = 1;
  if (days != 0) {
    tag = "day";
    copies = days;
  }
  if (input == input_kind::observations && m.dim > 1) {
    tag = "fold";
    copies = m.dim;  // M2: a fold per coordinate; M3: per rotated coordinate, d~ = 2^ceil(log2 d)
    if (m.ball == "l2") copies = uint64_t{1} << (64 - __builtin_clzll(copies - 1));
  }
  if (input == input_kind::samples && m.queries > 1) {
    tag = "query";
    copies = m.queries;
  }
  copies = std::min<uint64_t>(copies, uint64_t{1} << 24);  // larger runs are refused before writing
  std::vector<named_file> outputs{{"--release-out", o.release_out}};
  for (const named_file& f : {named_file{"--out", o.out}, named_file{"--round1-out", o.round1_out},
                              named_file{"--windows-out", o.windows_out}, named_file{"--truth-out", o.truth_out}}) {
    // Truth files are per day with --days, one per run otherwise.
    const bool indexed = f.option != "--truth-out" || days != 0;
    if (tag == nullptr || f.path.empty() || !indexed) {
      outputs.push_back(f);
      continue;
    }
    for (uint64_t i = 0; i < copies; ++i) outputs.push_back({f.option, indexed_path(f.path, tag, i)});
  }
  refuse_overlaps({{"--data", data_file(o.data)}}, outputs);
}

// docs/cli.md "simulate": the memory a fleet needs, the state its batch aggregates into
// (server::state_bytes), the aggregator `ldp aggregate` would create for it
// (server::aggregator_bytes, the same ceiling), or for items the data's three tables of 8 bytes
// per item (weights, allocation, truth), whichever is larger, is refused above --max-state-bytes
// before any work.
void refuse_large_state(const parameter_block& block, uint64_t devices, uint64_t max_bytes) {
  uint64_t need = 0, aggregator = 0;
  status s = server::state_bytes(block.params, devices, &need);
  if (s == status::ok) s = server::aggregator_bytes(block.params, &aggregator);
  if (s != status::ok && s != status::overflow)
    fail("internal: no aggregator for {}: {}", block.mechanism->name, describe(s));
  need = std::max(need, aggregator);
  if (block.mechanism->input == input_kind::item) need = std::max(need, 24 * block.params.get(wire::field::domain));
  if (s == status::overflow || need > max_bytes) {
    fail("{} {} needs {} of memory for its state or data, above --max-state-bytes {} (docs/cli.md)",
         block.mechanism->name, describe_block(block.params),
         s == status::overflow ? std::string("more than 2^64 bytes") : format_bytes(need), max_bytes);
  }
}

void run(const simulate_options& options) {
  const user_level_run& o = options.run;
  const tool_mechanism& mechanism = checked_mechanism(options.mech);
  const input_kind input = mechanism.input;
  if (o.threads > max_threads) fail("--threads must be at most {}, got {}", max_threads, o.threads);
  for (const auto& [name, option] : options.days_given) {
    if (option->count() > 0 && !options.days.given()) fail("{} applies with --days N only", name);
  }
  if (options.days.given()) check_days_options(options.days, mechanism);
  refuse_overlapping_files(options.mech, o, input, options.days.days);
  if (!o.release_out.empty() && input != input_kind::samples && input != input_kind::observations) {
    fail("--release-out applies to --mechanism winsorized-mean and kent with --dim d > 1 only");
  }
  if (!o.windows_out.empty() && input != input_kind::samples)
    fail("--windows-out applies to --mechanism winsorized-mean only");
  if (input == input_kind::observations) return simulate_user_level(options.mech, o);
  if (input == input_kind::samples) return simulate_winsorized(options.mech, o);
  if (!o.round1_out.empty()) fail("--round1-out applies to --mechanism kent and winsorized-mean only");
  if (input == input_kind::string) return simulate_strings(build_block(options.mech), o);
  const parameter_block block =
      options.days.given() ? days_block(options.mech, options.days) : build_block(options.mech);
  refuse_large_state(block, o.devices, options.max_state_bytes);
  const std::unique_ptr<dataset> data = make_dataset(o.data, shape_of(block), o.devices);
  if (options.days.given()) return simulate_days(block, options.mech, options.days, o, *data);
  const simulated_batch batch =
      simulate_to_file(o.out, block, *data, o.seed, seed_purpose::device_block, o.threads, "simulate");
  if (!o.truth_out.empty()) write_truth(o.truth_out, truth_of(block, *data));

  if (is_central(input)) {
    // The devices add no noise: the epsilon is spent by the server's release at estimate time.
    fmt::print("simulated {} devices: {} {}, central DP (the devices add no noise), data {}, seed {}\n",
               format_count(data->devices()), block.mechanism->name, describe_block(block.params), o.data, o.seed);
    fmt::print("release: ldp estimate STATE --epsilon {} --delta {:g} --release-seed S adds the server's noise\n",
               options.mech.epsilon, options.mech.delta);
  } else {
    fmt::print("simulated {} devices: {} {}, epsilon {} (implemented {:.15g}), data {}, seed {}\n",
               format_count(data->devices()), block.mechanism->name, describe_block(block.params), options.mech.epsilon,
               block.epsilon_impl, o.data, o.seed);
  }
  if (block.params.mech == wire::mechanism::smooth_queries) {
    fmt::print("columns scaled to [-1, 1] from their ranges {} (queries use the scaled coordinates)\n",
               describe(scaling_of(*data)));
  }
  fmt::print("wrote {}: {}, parameter fingerprint {:016x}\n", o.out, format_bytes(batch.bytes), block.fingerprint);
  if (!o.truth_out.empty()) fmt::print("wrote {}: the exact answer\n", o.truth_out);
  fmt::print("randomize: {} ({})\n", format_seconds(batch.timing.randomize_seconds),
             format_rate(static_cast<double>(data->devices()) / batch.timing.randomize_seconds, "reports"));
}

}  // namespace

command add_simulate(CLI::App& parent) {
  auto o = std::make_shared<simulate_options>();
  CLI::App* app = parent.add_subcommand("simulate", "run the device code for a simulated fleet and write a batch file");
  add_mechanism_options(*app, o->mech);
  app->add_option("--devices,-n", o->run.devices, "number of devices (default for csv and npy data: one per row)");
  app->add_option(
         "--data", o->run.data,
         "zipf:<s>, uniform, builtin, csv:<path>[:<column>], npy:<path>, or text:<path>[:words] (pem, treehist, sfp)")
      ->required();
  app->add_option("--seed", o->run.seed, "seed of the simulation's randomness (docs/cli.md)")->required();
  app->add_option("--out,-o", o->run.out, "batch file to write")->required();
  app->add_option("--truth-out", o->run.truth_out, "also write the exact answer as CSV");
  app->add_option("--round1-out", o->run.round1_out, "kent, winsorized-mean: also write the round-1 batch");
  app->add_option("--release-out", o->run.release_out,
                  "winsorized-mean, kent with --dim d > 1: also write the estimates as ldp estimate's JSON");
  app->add_option("--windows-out", o->run.windows_out,
                  "winsorized-mean: also write the broadcast window list (for ldp aggregate --windows)");
  app->add_option("--threads", o->run.threads,
                  "worker threads (default: one per hardware thread); the output does not depend on it");
  add_max_state_bytes_option(*app, &o->max_state_bytes, "refuse a block whose state or item data needs more memory");
  days_options& d = o->days;
  app->add_option("--days", d.days, "report once a day for N days: batches OUT.day0 ... (docs/cli.md)")
      ->check(CLI::Range(1u, 1000000u));
  o->days_given = {
      {"--change-prob", app->add_option("--change-prob", d.change_prob,
                                        "--days: probability that a device redraws its value each day (default 0)")},
      {"--memoize", app->add_flag("--memoize", d.memoize,
                                  "--days: memoized reports (a permanent response per value, from a device secret)")},
      {"--epsilon-longitudinal",
       app->add_option("--epsilon-longitudinal", d.epsilon_longitudinal,
                       "--memoize: epsilon of the permanent responses, what all reports of one value reveal together")},
      {"--use-case",
       app->add_option("--use-case", d.use_case, "--memoize: use case id of the memoization (default 0)")},
      {"--memo-grid",
       app->add_option("--memo-grid", d.memo_grid,
                       "--memoize duchi: values round to k + 1 points of the range (default 1: its ends)")
           ->check(CLI::Range(1u, 1u << 24))},
      {"--attack",
       app->add_flag("--attack", d.attack, "--days: print what an attacker averaging each device's reports guesses")},
      {"--attack-devices",
       app->add_option("--attack-devices", d.attack_devices, "--attack: devices the attacker follows (default 10000)")},
      {"--attack-window", app->add_option("--attack-window", d.attack_window,
                                          "--attack: average only the last W days' reports (default: all)")
                              ->check(CLI::Range(1u, 1000000u))},
  };
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
