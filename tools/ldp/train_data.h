// ldp train's data (docs/cli.md "ldp train", docs/mechanisms.md H.7): a CSV's feature and label
// columns, a seeded held-out split, the features scaled to [0, 1] by the training split's minimum
// and maximum (taken as public), the labels mapped to what the loss expects (wire/loss.h), and one
// user per training row.
#ifndef LDP_TOOLS_TRAIN_DATA_H
#define LDP_TOOLS_TRAIN_DATA_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
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

// A column's least and largest value over the training rows (public, docs/cli.md "ldp train").
struct column_bounds {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  // v mapped to [0, 1] (clamped: held-out rows may pass the training split's bounds); a constant
  // column maps to 0.
  double scaled(double v) const { return hi > lo ? std::clamp((v - lo) / (hi - lo), 0.0, 1.0) : 0.0; }
};

// The selected columns of --data (or the table), shuffled and split: what --loss and --model share.
struct split_table {
  std::string source;                 // the file's path or "the table", for messages
  std::vector<std::string> features;  // the feature columns as selected
  std::size_t width = 0;              // the features, the label, then the extra columns
  std::vector<double> table;          // row-major, in the source's order
  std::vector<uint64_t> order;        // shuffled row i is the source's row order[i]
  uint64_t rows = 0;
  uint64_t train_rows = 0;           // shuffled rows [0, train_rows) train, the rest are held out
  std::vector<column_bounds> range;  // each column over the training rows
  double value(uint64_t shuffled, std::size_t column) const { return table[order[shuffled] * width + column]; }
  std::size_t label_column() const { return features.size(); }
};

// Reads and splits; `extra` columns (names or numbers) follow the label. A file whose name ends in
// .gz is decompressed. Throws cli_error as load_train_data.
split_table read_split_table(const train_data_options& o, const std::vector<std::string>& extra);

// The two-class rule of --positive (class 1 = that value, or every value above the smallest label).
struct binary_labels {
  double positive = 0;
  bool exact = false;  // --positive given: class 1 is y == positive, else y > positive
  std::string rule;    // for the report
  double operator()(double y) const { return (exact ? y == positive : y > positive) ? 1.0 : 0.0; }
};
binary_labels binary_label_rule(const train_data_options& o, const split_table& t);

// Throws cli_error naming the option or file at fault (no data rows, too few for the split, a
// classification label that is not two classes after the mapping, unknown columns).
train_data load_train_data(const train_data_options& o, wire::loss_kind loss);

}  // namespace ldp::tools

#endif
