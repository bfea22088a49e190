// ldp train --model (docs/cli.md "ldp train", docs/mechanisms.md I.4): chapter I's training on the
// models of wire/model.h, user-level, against the non-private optimum of the same regularized
// objective F(theta) = (1/n) sum_u (mean loss of user u's samples) + lambda / 2 ||theta||^2.
#ifndef LDP_TOOLS_TRAIN_MODELS_H
#define LDP_TOOLS_TRAIN_MODELS_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "train_methods.h"
#include "train_model_data.h"

namespace ldp::tools {

// The defaults of docs/cli.md "ldp train" for --model.
inline constexpr uint64_t default_model_steps = 100;  // central methods
inline constexpr double default_model_lr = 0.5;
inline constexpr double default_model_clip = 1;
inline constexpr double default_model_l2 = 1e-3;
inline constexpr double default_model_delta = 1e-6;
inline constexpr uint32_t default_model_phases = 2;
inline constexpr unsigned model_frac_bits = 16;  // the devices' grid 2^-f (I.0)

// What a --model method gets: the data and the settings with their defaults in.
struct model_run {
  const model_data& data;
  const train_settings& settings;
  const train_progress& progress;
};

struct model_result {
  std::vector<double> theta;
  double epsilon_spent = 0;  // what ran: never above the request (0 for nonprivate)
  double delta_spent = 0;
  uint64_t steps = 0;                              // taken
  std::vector<std::pair<uint64_t, double>> curve;  // (step, training loss) at the sampled steps
  nlohmann::ordered_json budget = nlohmann::ordered_json::object();
  nlohmann::ordered_json details = nlohmann::ordered_json::object();
  std::string summary;                 // one line for the text output
  uint64_t contributions = 0;          // device calls (0: no device code runs)
  double device_seconds = 0;           // their wall time, summed
  double bytes_per_device_round = -1;  // broadcast + contribution bytes of a device in a round (< 0: none)
};

// F at theta (docs/mechanisms.md I.4): the users' mean of their samples' mean loss plus the regularizer.
double model_objective(const model_data& data, const std::vector<double>& theta, double l2);

// The mean loss over samples, and the share a classifier labels right (wire::model_predict).
double model_mean_loss(const wire::model_shape& shape, const model_samples& samples, const std::vector<double>& theta);
double model_accuracy(const wire::model_shape& shape, const model_samples& samples, const std::vector<double>& theta);

// The minimizer of F: accelerated gradient descent with backtracking and restarts from 0, to a
// gradient norm of 1e-8 or 20,000 iterations; deterministic.
std::vector<double> nonprivate_model(const model_data& data, double l2);

// The methods (rows in train_methods.cpp).
model_result train_model_nonprivate(const model_run& run);
model_result train_model_dp_sgd(const model_run& run);
model_result train_model_levy_sgd(const model_run& run);
model_result train_model_levy_phased(const model_run& run);
model_result train_model_ghazi_output(const model_run& run);
model_result train_model_ldp_sgd(const model_run& run);

// ghazi-output's constants for features in [0, 1]^p (docs/mechanisms.md I.4): the Lipschitz
// constant G and smoothness beta of one sample's loss in theta (linear: the residual clipped to
// +-clip, a Huber loss).
struct loss_constants {
  double lipschitz = 0;
  double smoothness = 0;
};
loss_constants model_loss_constants(const wire::model_shape& shape, double clip);

}  // namespace ldp::tools

#endif
