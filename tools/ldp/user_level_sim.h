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
#include <string>

#include "datasets.h"
#include "ldp/base/span.h"
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

// The mean over users of their local means of the first `used` observations (d reals each), each
// coordinate clamped to [lo, hi], in real arithmetic (the devices' fixed-point rounding moves it
// by at most 2^-f per coordinate).
truth_table vector_truth(const dataset& data, uint32_t d, uint32_t used, double lo, double hi);

}  // namespace ldp::tools

#endif
