#include "train_data.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "csv.h"
#include "errors.h"
#include "files.h"
#include "ldp/random/samplers.h"
#include "output.h"
#include "seeding.h"

namespace ldp::tools {
namespace {

bool is_number(const std::string& column) {
  return !column.empty() && column.find_first_not_of("0123456789") == std::string::npos;
}

// The column names: the table's, or the file's first line.
// csv:FILE.gz is read through zlib (docs/cli.md "ldp train").
csv_limits limits_for(const std::string& path) {
  csv_limits limits;
  limits.gunzip = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  return limits;
}

std::vector<std::string> header_of(const train_data_options& o, const std::string& path) {
  return o.table ? o.table->names : csv_first_line(path, limits_for(path));
}

// --features, or the first --dim columns other than the label and the user column (header names when the label is a
// name, column numbers otherwise).
std::vector<std::string> feature_columns(const train_data_options& o, const std::string& path) {
  if (!o.features.empty()) {
    if (o.dim != 0) fail("give --features or --dim, not both");
    for (const std::string& f : o.features) {
      if (f == o.label) fail("--features names the label column {}", escaped(f, 40));
      if (f == o.user_column) fail("--features names the user column {}", escaped(f, 40));
    }
    return o.features;
  }
  if (o.dim == 0) fail("ldp train needs --features a,b,c or --dim p");
  std::vector<std::string> out;
  if (is_number(o.label)) {
    const uint64_t label = std::strtoull(o.label.c_str(), nullptr, 10);
    for (uint64_t c = 1; out.size() < o.dim; ++c) {
      if (c != label && std::to_string(c) != o.user_column) out.push_back(std::to_string(c));
    }
    return out;
  }
  for (const std::string& name : header_of(o, path)) {
    if (name != o.label && name != o.user_column && out.size() < o.dim) out.push_back(name);
  }
  if (out.size() < o.dim) fail("--dim {}: the header of {} names only {} other columns", o.dim, path, out.size());
  return out;
}

// The table's column `column` (a name or a 1-based number), as read_csv_columns finds a file's.
const std::vector<double>& table_column(const train_table& t, const std::string& column) {
  if (is_number(column)) {
    const uint64_t number = std::strtoull(column.c_str(), nullptr, 10);
    if (number == 0 || number > t.columns.size()) {
      fail("the table has {} columns, no column {}", t.columns.size(), escaped(column, 40));
    }
    return t.columns[number - 1];
  }
  for (std::size_t c = 0; c < t.names.size(); ++c) {
    if (t.names[c] == column) return t.columns[c];
  }
  fail("the table has no column named '{}'", escaped(column, 40));
}

// The selected columns' values, row-major, from the table or the file.
std::vector<double> selected_rows(const train_data_options& o, const std::string& path,
                                  const std::vector<std::string>& columns) {
  std::vector<double> out;
  if (!o.table) {
    read_csv_columns(
        path, columns,
        [&](span<const double> values, uint64_t) { out.insert(out.end(), values.begin(), values.end()); },
        limits_for(path));
    return out;
  }
  const train_table& t = *o.table;
  if (t.names.size() != t.columns.size())
    fail("the table has {} names for {} columns", t.names.size(), t.columns.size());
  std::vector<const std::vector<double>*> picked;
  for (const std::string& c : columns) picked.push_back(&table_column(t, c));
  const std::size_t rows = picked.empty() ? 0 : picked[0]->size();
  for (std::size_t i = 0; i < rows; ++i) {
    for (const std::vector<double>* c : picked) {
      if (c->size() != rows) fail("the table's columns differ in length");
      if (!std::isfinite((*c)[i])) fail("the table holds a value that is not finite in row {}", i);
      out.push_back((*c)[i]);
    }
  }
  return out;
}

// Fisher-Yates under the split's DRBG: row order[i] is the i-th of the shuffled file.
std::vector<uint64_t> shuffled_rows(uint64_t rows, uint64_t seed) {
  std::vector<uint64_t> order(rows);
  for (uint64_t i = 0; i < rows; ++i) order[i] = i;
  random::drbg rng = seeded_drbg(seed, seed_purpose::train_split, 0);
  for (uint64_t i = rows; i > 1; --i) std::swap(order[i - 1], order[random::uniform_below64(rng, i)]);
  return order;
}

}  // namespace

split_table read_split_table(const train_data_options& o, const std::vector<std::string>& extra) {
  if (o.table && !o.data.empty()) fail("give --data or a table, not both");
  if (!o.table && o.data.rfind("csv:", 0) != 0) fail("--data must be csv:<path>, got '{}'", escaped(o.data, 200));
  split_table t;
  t.source = o.table ? std::string("the table") : o.data.substr(4);
  if (t.source.empty()) fail("--data csv: needs a file name");
  if (o.label.empty()) fail("--label must name a column");
  if (!(o.test_fraction >= 0 && o.test_fraction < 1))
    fail("--test-fraction must be in [0, 1), got {}", o.test_fraction);
  t.features = feature_columns(o, t.source);
  std::vector<std::string> columns = t.features;
  columns.push_back(o.label);
  columns.insert(columns.end(), extra.begin(), extra.end());
  t.width = columns.size();
  t.table = selected_rows(o, t.source, columns);
  t.rows = t.table.size() / t.width;
  const uint64_t test_rows = static_cast<uint64_t>(std::floor(o.test_fraction * static_cast<double>(t.rows) + 0.5));
  if (t.rows < test_rows + 2)
    fail("{} has {} data rows: too few for a split with --test-fraction {}", t.source, t.rows, o.test_fraction);
  t.order = shuffled_rows(t.rows, o.seed);
  t.train_rows = t.rows - test_rows;
  t.range.resize(t.width);
  for (uint64_t i = 0; i < t.train_rows; ++i) {
    for (std::size_t c = 0; c < t.width; ++c) t.range[c].add(t.value(i, c));
  }
  return t;
}

binary_labels binary_label_rule(const train_data_options& o, const split_table& t) {
  binary_labels out;
  if (!o.positive.empty()) {
    char* end = nullptr;
    out.positive = std::strtod(o.positive.c_str(), &end);
    if (*end != '\0' || !std::isfinite(out.positive))
      fail("--positive must be a number, got '{}'", escaped(o.positive, 40));
    out.exact = true;
    out.rule = fmt::format("class 1: label = {}", o.positive);
    return out;
  }
  const std::size_t label = t.label_column();
  out.positive = t.table[label];
  for (uint64_t r = 0; r < t.rows; ++r) out.positive = std::min(out.positive, t.table[r * t.width + label]);
  out.rule = fmt::format("class 1: label > {}", out.positive);
  return out;
}

train_data load_train_data(const train_data_options& o, wire::loss_kind loss) {
  const split_table t = read_split_table(o, {});
  const std::vector<std::string>& features = t.features;
  const std::size_t width = t.width;
  const uint64_t rows = t.rows, train_rows = t.train_rows;
  const auto value = [&](uint64_t shuffled, std::size_t column) { return t.value(shuffled, column); };
  const std::vector<column_bounds>& range = t.range;

  // The label as the loss takes it (wire/loss.h): squared scales it like a feature; the
  // classification losses take class 1 by binary_label_rule.
  const bool classify = loss != wire::loss_kind::squared;
  train_data out;
  binary_labels binary;
  if (classify) {
    binary = binary_label_rule(o, t);
    out.label_rule = binary.rule;
  } else if (!o.positive.empty()) {
    fail("--positive applies to --loss logistic and hinge only");
  } else {
    out.label_rule = fmt::format("label scaled from [{}, {}] to [0, 1]", range[width - 1].lo, range[width - 1].hi);
  }
  const auto label = [&](uint64_t shuffled) {
    const double y = value(shuffled, width - 1);
    return classify ? binary(y) : range[width - 1].scaled(y);
  };

  const uint32_t p = static_cast<uint32_t>(features.size()) + (o.intercept ? 1 : 0);
  const auto fill = [&](examples& e, uint64_t shuffled) {
    for (std::size_t c = 0; c + 1 < width; ++c) e.x.push_back(range[c].scaled(value(shuffled, c)));
    if (o.intercept) e.x.push_back(1.0);
    e.y.push_back(label(shuffled));
  };
  out.train.p = out.test.p = out.objective.p = p;
  const uint64_t users = o.users == 0 ? train_rows : o.users;
  for (uint64_t u = 0; u < users; ++u) fill(out.train, u % train_rows);
  for (uint64_t i = 0; i < std::min(users, train_rows); ++i) {
    fill(out.objective, i);
    out.objective.weight.push_back(static_cast<double>(users / train_rows + (i < users % train_rows ? 1 : 0)));
  }
  for (uint64_t i = train_rows; i < rows; ++i) fill(out.test, i);
  if (classify) {
    const auto ones = std::count(out.train.y.begin(), out.train.y.end(), 1.0);
    if (ones == 0 || static_cast<uint64_t>(ones) == users) {
      fail("--label {}: the training users hold one class only ({}); see --positive", escaped(o.label, 40),
           out.label_rule);
    }
  }
  out.file_rows = rows;
  out.train_rows = train_rows;
  out.feature_names = features;
  if (o.intercept) out.feature_names.push_back("intercept");
  return out;
}

}  // namespace ldp::tools
