// ldp simulate --mechanism kent (docs/cli.md "kent"): the user-level protocol of Kent, Berrett and
// Yu for one real per observation (docs/mechanisms.md C.1 M1), driven by server::user_level_protocol.
// Users are split by the protocol's fixed assignment; with two stages the voters run the round-1
// block, their votes are aggregated in memory, the protocol builds the round-2 block from them,
// and the other users run it. The batch written is round 2's (its state estimates the mean);
// round 1's can be kept with --round1-out. With --dim d > 1 it runs M2 (--ball linf) or M3
// (--ball l2) fold by fold in memory and prints the protocol's d estimates (docs/cli.md "kent with
// --dim"): fold f's batches go to --out and --round1-out with ".fold<f>", --release-out takes the
// estimates as ldp estimate's JSON.
#ifndef LDP_TOOLS_USER_LEVEL_SIM_H
#define LDP_TOOLS_USER_LEVEL_SIM_H

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "datasets.h"
#include "ldp/base/span.h"
#include "ldp/server/aggregator.h"
#include "ldp/server/user_level.h"
#include "mechanism_options.h"
#include "truth.h"

namespace ldp::tools {

// The fleet and the files of `ldp simulate`.
struct user_level_run {
  uint64_t devices = 0;
  std::string data;
  uint64_t seed = 0;
  std::string out;
  std::string truth_out;
  std::string round1_out;
  std::string release_out;  // winsorized-mean, kent --dim d > 1: the JSON of ldp estimate
  std::string windows_out;  // winsorized-mean: the broadcast window list (for ldp aggregate --windows)
  unsigned threads = 0;
  span<const double> values;  // if not empty: the users' rows of reals, `data` only names them (the Python package)
  std::FILE* log = stdout;    // where the run's summary goes (the Python package: a file it returns as text)
  bool progress = true;       // progress bars on stderr (a library caller's stderr is not the tool's)

  // The label of a progress bar, empty (no bar) when progress is off.
  std::string bar(std::string label) const { return progress ? label : std::string(); }
};

// The users' data: value_array(values) if it is not empty, else --data's dataset.
std::unique_ptr<dataset> run_dataset(const user_level_run& r, const data_shape& shape);

void simulate_user_level(const mechanism_options& m, const user_level_run& r);

// A vote round of a two-stage protocol (M1's, each M2 fold's, M4a's support vote): the voters'
// reports of `vote` under `seed` (the vote seed purpose) aggregated in memory, and written to `out`
// too unless it is empty; `bar` labels the progress bar. The aggregator of the votes.
std::unique_ptr<server::aggregator> run_vote_round(const parameter_block& vote, const dataset& voters, uint64_t seed,
                                                   const std::string& out, const user_level_run& r,
                                                   const std::string& bar);

// What run_folds leaves: every fold's refine aggregator and the totals of the release.
struct fold_run {
  std::vector<std::unique_ptr<server::aggregator>> refine_states;
  double epsilon_impl = 0;  // the largest over the folds' blocks
  uint64_t reports = 0;
  nlohmann::ordered_json fingerprints = nlohmann::ordered_json::array();
};

// Every fold's two rounds in memory, for every protocol made of M2 folds (M2, M3, M5, and M4's M2
// stages in kent_sparse_sim.cpp): the users of `data` split by the protocol's assignment (user u is
// the protocol's user u), fold f's votes aggregated, its round-2 block built from them, its refine
// batch written to --out with ".fold<f>" (round 1's to --round1-out with ".fold<f>" when given) and
// aggregated, with fold f's seed S_f (docs/cli.md "kent with --dim"). The log names each fold's
// coordinate (its block's fold_coordinate) as `unit`.
fold_run run_folds(const server::user_level_protocol& protocol, const dataset& data, const tool_mechanism& mech,
                   const user_level_run& r, const char* unit);

// The mean over users of their local means of the first `used` observations (d reals each), each
// coordinate clamped to [lo, hi], in real arithmetic (the devices' fixed-point rounding moves it
// by at most 2^-f per coordinate).
truth_table vector_truth(const dataset& data, uint32_t d, uint32_t used, double lo, double hi);

}  // namespace ldp::tools

#endif
