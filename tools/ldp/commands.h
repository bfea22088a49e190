// The subcommands of `ldp` (docs/cli.md), one file each. add_<name> registers the subcommand and
// its options on the application; main() runs the one the command line chose, after parsing.
#ifndef LDP_TOOLS_COMMANDS_H
#define LDP_TOOLS_COMMANDS_H

#include <functional>

#include <CLI/CLI.hpp>

namespace ldp::tools {

// --threads of simulate and demo: worker threads beyond this are a typo, not a machine (each holds
// a device program and a block's reports).
inline constexpr unsigned max_threads = 1024;

struct command {
  CLI::App* app;
  std::function<void()> run;  // throws cli_error on bad input
};

command add_simulate(CLI::App& parent);
command add_aggregate(CLI::App& parent);
command add_merge(CLI::App& parent);
command add_estimate(CLI::App& parent);
command add_inspect(CLI::App& parent);
command add_mechanisms(CLI::App& parent);
command add_demo(CLI::App& parent);
command add_ledger(CLI::App& parent);
command add_train(CLI::App& parent);

}  // namespace ldp::tools

#endif
