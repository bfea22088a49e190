#include "train_model_data.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "errors.h"
#include "output.h"

namespace ldp::tools {
namespace {

// The label of shuffled row i as the model takes it.
struct label_map {
  wire::model_kind kind;
  binary_labels binary;        // logistic
  std::vector<double> values;  // softmax: the sorted distinct label values, class c = values[c]
  double operator()(double y) const {
    switch (kind) {
      case wire::model_kind::linear: return y;
      case wire::model_kind::logistic: return binary(y);
      case wire::model_kind::softmax:
        return static_cast<double>(std::lower_bound(values.begin(), values.end(), y) - values.begin());
    }
    return y;
  }
};

label_map labels_of(const train_data_options& o, const split_table& t, wire::model_kind kind, std::string* rule) {
  label_map out{kind, {}, {}};
  if (kind != wire::model_kind::logistic && !o.positive.empty()) fail("--positive applies to --model logistic only");
  const std::size_t label = t.label_column();
  switch (kind) {
    case wire::model_kind::linear: *rule = "label as given (real)"; break;
    case wire::model_kind::logistic:
      out.binary = binary_label_rule(o, t);
      *rule = out.binary.rule;
      break;
    case wire::model_kind::softmax:
      for (uint64_t r = 0; r < t.rows; ++r) out.values.push_back(t.table[r * t.width + label]);
      std::sort(out.values.begin(), out.values.end());
      out.values.erase(std::unique(out.values.begin(), out.values.end()), out.values.end());
      if (out.values.size() < 2)
        fail("--model softmax: the label column {} holds one value only (it needs 2 classes at least)",
             escaped(o.label, 40));
      if (out.values.size() > model_max_label_classes)
        fail("--model softmax: the label column {} holds more than {} distinct values", escaped(o.label, 40),
             model_max_label_classes);
      *rule = fmt::format("classes 0..{}: the labels {}", out.values.size() - 1,
                          out.values.size() <= 12 ? fmt::format("{}", fmt::join(out.values, ", "))
                                                  : fmt::format("{} .. {}", out.values.front(), out.values.back()));
      break;
  }
  return out;
}

// Which training rows (shuffled indices) each user holds (docs/cli.md "ldp train": --samples-per-user,
// --users, --user-column; default one row per user).
std::vector<std::vector<uint64_t>> users_of(const train_data_options& o, const split_table& t, std::string* rule) {
  const int rules = (o.samples_per_user != 0) + (o.users != 0) + !o.user_column.empty();
  if (rules > 1) fail("give at most one of --samples-per-user, --users and --user-column");
  const uint64_t rows = t.train_rows;
  std::vector<std::vector<uint64_t>> users;
  if (!o.user_column.empty()) {
    std::map<double, std::vector<uint64_t>> groups;  // ordered by the column's value: deterministic
    for (uint64_t i = 0; i < rows; ++i) groups[t.value(i, t.width - 1)].push_back(i);
    for (auto& [value, group] : groups) users.push_back(std::move(group));
    *rule = fmt::format("grouped by column {}", escaped(o.user_column, 40));
  } else if (o.users != 0) {
    users.resize(o.users);
    for (uint64_t i = 0; i < std::max(rows, o.users); ++i) users[i % o.users].push_back(i % rows);
    *rule = o.users > rows ? fmt::format("{} users: user u holds row u mod {} (rows repeated)", o.users, rows)
                           : fmt::format("{} users: the rows dealt round-robin", o.users);
  } else {
    const uint64_t m = o.samples_per_user == 0 ? 1 : o.samples_per_user;
    if (m > rows) fail("--samples-per-user {} is more than the {} training rows", m, rows);
    users.resize(rows / m);
    for (uint64_t u = 0; u < users.size(); ++u) {
      for (uint64_t k = 0; k < m; ++k) users[u].push_back(u * m + k);
    }
    *rule = o.samples_per_user == 0 ? std::string("one row per user")
                                    : fmt::format("{} rows per user (the last {} rows dropped)", m, rows % m);
  }
  return users;
}

}  // namespace

model_data load_model_data(const train_data_options& o, wire::model_kind kind) {
  if (o.intercept) fail("--intercept applies to --loss only (every model has its bias)");
  const split_table t =
      read_split_table(o, o.user_column.empty() ? std::vector<std::string>() : std::vector<std::string>{o.user_column});
  model_data out;
  const label_map label = labels_of(o, t, kind, &out.label_rule);
  const uint32_t p = static_cast<uint32_t>(t.features.size());
  out.shape = {kind, p, kind == wire::model_kind::softmax ? static_cast<uint32_t>(label.values.size()) : 1};
  if (!wire::model_shape_valid(out.shape)) fail("--model: {} features are more than the wire format takes", p);
  out.train.p = out.test.p = p;
  const auto fill = [&](model_samples& e, uint64_t shuffled) {
    for (uint32_t c = 0; c < p; ++c) e.x.push_back(t.range[c].scaled(t.value(shuffled, c)));
    e.y.push_back(label(t.value(shuffled, t.label_column())));
  };
  const std::vector<std::vector<uint64_t>> users = users_of(o, t, &out.user_rule);
  out.first.push_back(0);
  for (const std::vector<uint64_t>& user : users) {
    for (uint64_t i : user) fill(out.train, i);
    out.first.push_back(out.train.size());
    out.max_samples = std::max(out.max_samples, static_cast<uint32_t>(user.size()));
  }
  for (uint64_t i = t.train_rows; i < t.rows; ++i) fill(out.test, i);
  if (kind == wire::model_kind::logistic) {
    const auto ones = std::count(out.train.y.begin(), out.train.y.end(), 1.0);
    if (ones == 0 || static_cast<std::size_t>(ones) == out.train.size()) {
      fail("--label {}: the training users hold one class only ({}); see --positive", escaped(o.label, 40),
           out.label_rule);
    }
  }
  out.train_rows = t.train_rows;
  out.feature_names = t.features;
  return out;
}

}  // namespace ldp::tools
