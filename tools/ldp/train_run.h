// ldp train as a library call (docs/cli.md "ldp train"): the request holds every option of the
// command line, run_train checks it against the method's row, trains and returns the JSON document
// `ldp train --format json` prints. cmd_train.cpp parses into a request and prints; the Python
// package's train() (docs/python.md "Training") fills one from keyword arguments, so both answer
// alike for the same arguments.
#ifndef LDP_TOOLS_TRAIN_RUN_H
#define LDP_TOOLS_TRAIN_RUN_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train_data.h"
#include "train_methods.h"

namespace ldp::tools {

struct train_request {
  std::string method;  // --method
  std::string loss;    // --loss: issue 14's learners on [0, 1]^p (docs/mechanisms.md H.7)
  std::string model;   // --model: chapter I's training; exactly one of loss and model is non-empty
  train_data_options data;
  train_settings settings;
  // The method options given ("--epsilon", "--steps", ...): those outside the method's row are
  // refused, those its row requires must be here (a value of 0 is the default, not an absence).
  std::vector<std::string> given;
  std::string plot;  // --plot: an SVG of the training-loss curve ("" = none)
};

// train_progress (train_methods.h): called as training proceeds with the step, the steps and the loss.

// Trains as the request says and returns `ldp train --format json`'s document (docs/cli.md). Throws
// cli_error naming the option or file at fault.
nlohmann::ordered_json run_train(const train_request& r, const train_progress& progress);

// The text output of `ldp train` (--format text) from run_train's document.
std::string train_text(const nlohmann::ordered_json& j);

}  // namespace ldp::tools

#endif
