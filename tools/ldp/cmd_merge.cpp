// ldp merge (docs/cli.md): adds aggregator states of the same parameters into one.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.h"
#include "errors.h"
#include "files.h"
#include "output.h"
#include "state_io.h"

namespace ldp::tools {
namespace {

struct merge_options {
  std::vector<std::string> states;
  std::string out;
  bool allow_duplicates = false;
  server::limits limits;
};

void run(const merge_options& o) {
  std::vector<named_file> inputs;
  for (const std::string& path : o.states) inputs.push_back({"input state", path});
  refuse_overlaps(inputs, {{"--out", o.out}});
  if (!o.allow_duplicates) refuse_duplicate_inputs(inputs, "--allow-duplicates");
  std::unique_ptr<server::aggregator> total = load_state(o.states.front(), o.limits);
  for (std::size_t i = 1; i < o.states.size(); ++i) {
    const std::unique_ptr<server::aggregator> next = load_state(o.states[i], o.limits);
    const status s = total->merge(*next);
    if (s == status::parameter_mismatch) {
      fail(
          "{} has other parameters than {} (fingerprint {:016x}, not {:016x}): states merge only with the same "
          "parameters",
          o.states[i], o.states.front(), next->fingerprint(), total->fingerprint());
    }
    if (s != status::ok) fail("cannot merge {}: {}", o.states[i], describe(s));
  }
  const uint64_t bytes = save_state(*total, o.out);
  fmt::print("merged {} states: {} reports accepted, {} rejected{}\n", o.states.size(), format_count(total->reports()),
             format_count(total->rejected_total()), damaged_text(total->damaged_chunks()));
  fmt::print("wrote {}: {}, {}\n", o.out, format_bytes(bytes), describe_state(*total));
}

}  // namespace

command add_merge(CLI::App& parent) {
  auto o = std::make_shared<merge_options>();
  CLI::App* app = parent.add_subcommand("merge", "add aggregator states of the same parameters into one");
  app->add_option("states", o->states, "state files")->required();
  app->add_option("--out,-o", o->out, "state file to write (atomically)")->required();
  app->add_flag("--allow-duplicates", o->allow_duplicates,
                "merge a state given twice (the same file, or a byte-identical copy) instead of refusing");
  add_max_state_bytes_option(*app, &o->limits.max_state_bytes, "refuse a state that needs more memory");
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
