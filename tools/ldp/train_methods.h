// ldp train's methods (docs/cli.md "ldp train", docs/mechanisms.md H.7): one row per --method, its
// options and its solver. A new learner is a row here and a solver function (train_sgd.h,
// train_wang.h): cmd_train.cpp checks the options against the row, prints the result, and compares
// it with the non-private optimum whatever the method.
#ifndef LDP_TOOLS_TRAIN_METHODS_H
#define LDP_TOOLS_TRAIN_METHODS_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ldp/wire/loss.h"
#include "train_data.h"

namespace ldp::tools {

// The command line's method options; 0 (or empty) stands for the method's default.
struct train_settings {
  wire::loss_kind loss = wire::loss_kind::squared;
  double epsilon = 0;
  double delta = 0;
  uint32_t grid = 0;          // Bernstein learners: k, (k + 1)^p grid points
  uint32_t order = 0;         // Bernstein learners: h, the surrogate's order
  uint64_t steps = 0;         // SGD baselines: T steps, the users split across them; wang-glm: SIGM iterations
  uint32_t strings = 0;       // wang-genprot: T public samples per user
  uint32_t degree = 0;        // wang-glm: d, D = d (d + 1) + 1 copies a report
  std::string sgd_mechanism;  // ldp-sgd: the vector mechanism of the gradients
  uint64_t seed = 0;          // the devices' DRBG (seeding.h) and the solvers' searches
  // --model (docs/mechanisms.md I.4); run_train puts the defaults in.
  double lr = 0;        // learning rate eta
  double clip = 0;      // G: the users' averaged gradients clipped to this L2 norm
  double l2 = -1;       // lambda of the public regularizer lambda / 2 ||theta||^2 (< 0: the default)
  uint32_t phases = 0;  // levy-phased: Alg 4's phases
};

// Called as training proceeds: `step` of `steps` done, the training loss there (may be empty).
using train_progress = std::function<void(uint64_t step, uint64_t steps, double loss)>;

struct train_result {
  std::vector<double> w;           // the solution in C = [0, 1]^p
  double epsilon_impl = 0;         // what the reports' parameter blocks implement (0: no privacy)
  double delta = 0;                // the delta of an approximate-DP method (0: pure)
  uint64_t reports = 0;            // one per user
  uint64_t report_bytes = 0;       // summed over the reports, wire headers included
  double device_seconds = 0;       // the device code's wall time, summed over the reports
  std::string summary;             // one line for the text output (the mechanism and its parameters)
  nlohmann::ordered_json details;  // the method's own JSON fields (steps, grid, the stated error)
};

struct model_data;
struct model_run;
struct model_result;

struct train_method {
  const char* name;         // --method
  const char* description;  // for --help and the unknown-method error
  const char* options;      // the options it takes with --loss beyond the data's, space-separated; others are refused
  const char* required;     // the options it needs with --loss
  train_result (*solve)(const train_data& data,
                        const train_settings& settings);  // on data.train's users; null: no --loss
  const char* model_options;                              // the same with --model (train_models.h)
  const char* model_required;
  model_result (*train)(const model_run& run);  // null: no --model
};

// Every method, in the order of docs/cli.md's table.
const std::vector<train_method>& train_methods();

// The row of --method `name`, or cli_error listing the known ones.
const train_method& find_train_method(const std::string& name);

}  // namespace ldp::tools

#endif
