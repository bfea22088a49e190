// Mechanism names and options, the same in every subcommand (issue 6, docs/cli.md "Mechanisms"):
// the frequency oracles grr sue oue blh olh hr cms hcms take --domain (olh also --hash-range,
// cms/hcms --sketch k:m). Turns the options into the parameter block the devices and the server
// share, built by the wire routines (so thresholds and epsilon are the implemented ones).
#ifndef LDP_TOOLS_MECHANISM_OPTIONS_H
#define LDP_TOOLS_MECHANISM_OPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ldp/wire/params.h"

namespace ldp::tools {

// What a mechanism's devices hold, which decides the datasets it accepts and its truth file.
enum class input_kind {
  item,  // one item in [0, d): frequency oracles (truth: item,count)
};

struct tool_mechanism {
  const char* name;  // as typed on the command line
  wire::mechanism id;
  input_kind input;
  const char* options;  // the options it takes, for help and errors
};

// Every mechanism the tool can simulate, in the order of docs/cli.md.
const std::vector<tool_mechanism>& tool_mechanisms();
// The entry for a wire mechanism id (nullptr if the tool does not simulate it).
const tool_mechanism* find_tool_mechanism(wire::mechanism id);

struct mechanism_options {
  std::string name;
  double epsilon = 0;
  uint32_t domain = 0;
  uint32_t hash_range = 0;
  std::string sketch;  // "k:m"
  uint64_t public_seed = 0;  // the deployment's public randomness (hash functions)

  // Set by add_mechanism_options: which options the command line gave, and whether the values
  // above are defaults that stand for missing required options (the demo).
  std::vector<std::pair<const char*, CLI::Option*>> given;
  bool defaults = false;
};

// --mechanism, --epsilon and the mechanism options, on a subcommand. `defaults` makes --mechanism
// and --epsilon optional (the demo), otherwise they are required.
void add_mechanism_options(CLI::App& app, mechanism_options& o, bool defaults = false);

struct parameter_block {
  wire::params params;
  uint64_t fingerprint = 0;
  double epsilon_impl = 0;
  const tool_mechanism* mechanism = nullptr;
};

// The block for the options; public seeds (CMS/HCMS hash functions) derive from --public-seed
// (seeding.h), not from the simulation's --seed, so fleets simulated with different seeds share
// one block and their states merge. Throws cli_error naming the option at fault.
parameter_block build_block(const mechanism_options& o);

}  // namespace ldp::tools

#endif
