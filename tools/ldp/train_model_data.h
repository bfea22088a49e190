// ldp train --model's data (docs/cli.md "ldp train", docs/mechanisms.md I.4): the split of
// train_data.h, the features scaled to [0, 1] by the training rows' bounds, the labels as
// wire/model.h takes them, and the training rows grouped into users (each a device's samples).
#ifndef LDP_TOOLS_TRAIN_MODEL_DATA_H
#define LDP_TOOLS_TRAIN_MODEL_DATA_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ldp/wire/model.h"
#include "ldp/wire/model_broadcast.h"
#include "train_data.h"

namespace ldp::tools {

// More classes than this are refused: a label column of reals is not a softmax target.
inline constexpr std::size_t model_max_label_classes = 100;

// Samples of p features each and their labels (linear: real; logistic: 0 or 1; softmax: the class).
struct model_samples {
  uint32_t p = 0;
  std::vector<double> x;  // row-major
  std::vector<double> y;
  std::size_t size() const { return y.size(); }
  const double* row(std::size_t i) const { return x.data() + i * p; }
};

struct model_data {
  wire::model_shape shape;
  model_samples train;             // the users' samples, user after user
  std::vector<std::size_t> first;  // user u holds train samples [first[u], first[u + 1])
  model_samples test;              // the held-out rows
  uint32_t max_samples = 0;        // m: the largest user's sample count
  uint64_t train_rows = 0;         // distinct training rows (train.size() differs with repetition)
  std::vector<std::string> feature_names;
  std::string label_rule;
  std::string user_rule;  // how the rows became users, for the report
  uint64_t users() const { return first.size() - 1; }
};

// Throws cli_error naming the option at fault: more than one user rule, a user rule leaving no
// user, a logistic label of one class only, a softmax label of fewer than 2 or more than 100 values.
model_data load_model_data(const train_data_options& o, wire::model_kind kind);

}  // namespace ldp::tools

#endif
