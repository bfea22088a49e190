// ldp train's data (docs/cli.md "ldp train", docs/mechanisms.md H.7): a CSV's feature and label
// columns, a seeded held-out split, the features scaled to [0, 1] by the training split's minimum
// and maximum (taken as public), the labels mapped to what the loss expects (wire/loss.h), and one
// user per training row.
#ifndef LDP_TOOLS_TRAIN_DATA_H
#define LDP_TOOLS_TRAIN_DATA_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ldp/wire/loss.h"

namespace ldp::tools {

// Columns held in memory (the Python package's DataFrame, docs/python.md "Training"): read like a
// CSV file with this header line, column c's values in columns[c].
struct train_table {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;  // one per name, all of one length
};

struct train_data_options {
  std::string data;                   // "csv:<path>" ("" when `table` is given)
  std::optional<train_table> table;   // used instead of `data`
  std::string label;                  // a header name or a 1-based column number
  std::vector<std::string> features;  // names or numbers; empty: the first `dim` other columns
  uint32_t dim = 0;
  bool intercept = false;  // add a feature that is always 1 (it counts in p)
  std::string positive;    // logistic, hinge: the label value of class 1 ("": any but the smallest)
  double test_fraction = 0.3;
  uint64_t users = 0;  // 0: one user per training row; else user i holds training row i mod rows
  // --model only (docs/cli.md "ldp train"): users of m consecutive shuffled training rows, or the
  // rows grouped by a column's value (0 / "": not given).
  uint64_t samples_per_user = 0;
  std::string user_column;
  uint64_t seed = 0;  // the split's shuffle: derive_seed(seed, train_split, 0)
};

// Examples with p features in [0, 1] each and a label as wire::loss_value takes it.
struct examples {
  uint32_t p = 0;
  std::vector<double> x;  // row-major, size() rows of p
  std::vector<double> y;
  std::vector<double> weight;  // how many users hold each row (empty: one each)
  std::size_t size() const { return y.size(); }
  const double* row(std::size_t i) const { return x.data() + i * p; }
};

struct train_data {
  examples train;      // one row per user: what the devices hold
  examples objective;  // the distinct training rows, weighted by their users: the same empirical risk, cheaper
  examples test;       // the held-out rows (scaled by the training split's bounds, clamped to [0, 1])
  uint64_t file_rows = 0;
  uint64_t train_rows = 0;                 // distinct training rows (train.size() differs with --users)
  std::vector<std::string> feature_names;  // as given, "intercept" for the added one
  std::string label_rule;                  // how the label was mapped, for the report
};

// Throws cli_error naming the option or file at fault (no data rows, too few for the split, a
// classification label that is not two classes after the mapping, unknown columns).
train_data load_train_data(const train_data_options& o, wire::loss_kind loss);

}  // namespace ldp::tools

#endif
