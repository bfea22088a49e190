// ldp simulate --days N (docs/cli.md "Several days"): the same fleet reporting once a day for N
// days. Day 0's values are those of a one-day simulate; on each later day every device redraws its
// value with probability --change-prob from the data's distribution (the value of a uniformly
// chosen device of the dataset). Day k's batch goes to --out with ".day<k>" before the extension
// (and --truth-out likewise). Without --memoize every report draws fresh coins, day k from the
// simulation seed day_seed_of(--seed, k); with it each device keeps its own secret (seeding.h
// device_secret) and sends memoized reports. --attack runs the averaging attacker (attack.h).
#ifndef LDP_TOOLS_DAYS_SIM_H
#define LDP_TOOLS_DAYS_SIM_H

#include <cstdint>
#include <string>

#include "datasets.h"
#include "mechanism_options.h"
#include "user_level_sim.h"

namespace ldp::tools {

struct days_options {
  uint32_t days = 0;  // 0: --days not given, a one-day simulate
  double change_prob = 0;
  bool memoize = false;
  double epsilon_longitudinal = 0;  // --memoize: epsilon-infinity of the permanent responses
  uint32_t use_case = 0;            // --memoize: the memoization scope's use case (the ledger's id)
  uint32_t memo_grid = 0;           // --memoize duchi: k of the k + 1 rounding points (0: not given, 1)
  bool attack = false;
  uint64_t attack_devices = 10000;  // devices the attacker follows (evenly spread)
  uint32_t attack_window = 0;       // the attacker averages the last W days' reports (0: all days)

  bool given() const { return days != 0; }
};

// Refuses --days for mechanisms without one report per device and day or without a per-day mean or
// count to attack (the distribution family), and values out of range (cli_error naming the option).
void check_days_options(const days_options& d, const tool_mechanism& m);

// The block of the run: the mechanism options' block, or with --memoize the memoized block with
// --epsilon per report and --epsilon-longitudinal for the permanent responses.
parameter_block days_block(const mechanism_options& m, const days_options& d);

// Runs the N days of `block` on `data` (day 0's values) and prints the summary (and the attack).
void simulate_days(const parameter_block& block, const mechanism_options& m, const days_options& d,
                   const user_level_run& r, const dataset& data);

}  // namespace ldp::tools

#endif
