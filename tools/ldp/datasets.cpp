#include "datasets.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "csv.h"
#include "errors.h"
#include "ldp/base/bits.h"
#include "ldp/wire/checksum.h"
#include "ldp/wire/det_math.h"
#include "npy.h"

namespace ldp::tools {
namespace {

using wire::field;

// x^y with the wire module's deterministic exp/log (libm's pow differs between hosts).
double power(double x, double y) { return wire::det_exp(y * wire::det_log(x)); }

// The Kumaraswamy(2, 5) quantile: a right-skewed shape on [0, 1].
double skewed(double u) { return power(1 - power(1 - u, 0.2), 0.5); }

// A uniform in [0, 1) for (device, coordinate): 53 bits of SipHash-2-4.
double hashed_uniform(uint64_t device, uint32_t coordinate) {
  static const unsigned char key[16] = {'l', 'd', 'p', '-', 't', 'o', 'o', 'l', '-', 'd', 'a', 't', 'a', '-', 'v', '1'};
  unsigned char input[12];
  store_le64(input, device);
  store_le32(input + 8, coordinate);
  return std::ldexp(static_cast<double>(wire::siphash24(key, input) >> 11), -53);
}

// N devices shared out in proportion to `weights`, by largest remainder (ties to the lower index).
std::vector<uint64_t> allocate(const std::vector<double>& weights, uint64_t n) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<uint64_t> counts(weights.size());
  std::vector<std::pair<double, std::size_t>> remainders(weights.size());
  uint64_t assigned = 0;
  for (std::size_t v = 0; v < weights.size(); ++v) {
    const double share = static_cast<double>(n) * (weights[v] / total);
    counts[v] = static_cast<uint64_t>(std::floor(share));
    assigned += counts[v];
    remainders[v] = {share - std::floor(share), v};
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (assigned > n) fail("internal: dataset allocation gave {} devices for {}", assigned, n);
  for (std::size_t i = 0; assigned < n; ++i, ++assigned) ++counts[remainders[i % remainders.size()].second];
  return counts;
}

// Devices hold items in increasing order, item v by counts[v] of them.
class allocated_items final : public dataset {
 public:
  explicit allocated_items(const std::vector<uint64_t>& counts)
      : dataset(std::accumulate(counts.begin(), counts.end(), uint64_t{0}), 1), ends_(counts.size()) {
    std::partial_sum(counts.begin(), counts.end(), ends_.begin());
  }
  uint32_t item(uint64_t device) const override {
    return static_cast<uint32_t>(std::upper_bound(ends_.begin(), ends_.end(), device) - ends_.begin());
  }

 private:
  std::vector<uint64_t> ends_;  // ends_[v]: devices holding items <= v
};

std::vector<double> zipf_weights(uint32_t d, double s) {
  std::vector<double> w(d);
  for (uint32_t v = 0; v < d; ++v) w[v] = power(v + 1.0, -s);
  return w;
}

std::vector<double> builtin_weights(uint32_t d) {
  uint64_t a = static_cast<uint64_t>(std::ceil(0.618 * d));
  while (std::gcd(a, uint64_t{d}) != 1) ++a;
  std::vector<double> w(d);
  for (uint64_t r = 0; r < d; ++r)
    w[static_cast<std::size_t>((r * a + 7) % d)] = power(static_cast<double>(r) + 2.7, -1.1);
  return w;
}

// The synthetic reals of the header comment.
class synthetic_values final : public dataset {
 public:
  synthetic_values(const data_shape& shape, bool skew, uint64_t devices)
      : dataset(devices, shape.dim * shape.samples), shape_(shape), skew_(skew), direction_(shape.dim) {
    double norm = 0;
    for (uint32_t j = 0; j < shape.dim; ++j) norm += power(0.49, j);  // (0.7^j)^2
    for (uint32_t j = 0; j < shape.dim; ++j) direction_[j] = power(0.7, j) / std::sqrt(norm);
  }

  void values(uint64_t device, span<double> out) const override {
    const double width = shape_.hi - shape_.lo;
    const double u = (static_cast<double>(device) + 0.5) / static_cast<double>(devices());
    if (shape_.input == input_kind::value) {
      out[0] = shape_.lo + width * (skew_ ? skewed(u) : u);
      return;
    }
    if (shape_.input == input_kind::sparse) return sparse(device, out);
    if (shape_.input == input_kind::samples) return samples(device, out);
    if (shape_.input == input_kind::observations) {
      for (uint32_t j = 0; j < shape_.dim; ++j) {
        const double v = hashed_uniform(device, j);
        out[j] = shape_.lo + width * (skew_ ? skewed(v) : v);
      }
      return;
    }
    const double spread = shape_.radius / std::sqrt(static_cast<double>(shape_.dim));
    for (uint32_t j = 0; j < shape_.dim; ++j) {
      const double v = hashed_uniform(device, j);
      if (shape_.radius == 0) {
        out[j] = shape_.lo + width * (skew_ ? skewed(v) : v);
      } else {
        out[j] = skew_ ? 0.6 * shape_.radius * direction_[j] + 0.4 * (2 * v - 1) * spread : (2 * v - 1) * spread;
      }
    }
  }

 private:
  void sparse(uint64_t device, span<double> out) const {
    const uint32_t d = shape_.dim, s = shape_.sparsity;
    const double u = hashed_uniform(device, 0), size = shape_.radius / std::sqrt(static_cast<double>(s));
    const auto first = std::min(d - 1, static_cast<uint32_t>(std::floor(d * (skew_ ? skewed(u) : u))));
    std::fill(out.begin(), out.end(), 0.0);
    for (uint32_t k = 0; k < s; ++k) {
      const double v = hashed_uniform(device, k + 1);
      out[(first + k) % d] = skew_ ? (1 + v) * size / 2 : (2 * v - 1) * size;
    }
  }

  void samples(uint64_t device, span<double> out) const {
    const uint32_t d = shape_.dim;
    const double width = shape_.hi - shape_.lo;
    for (uint32_t k = 0; k < shape_.samples; ++k) {
      for (uint32_t j = 0; j < d; ++j) {
        const double v = hashed_uniform(device, d + k * d + j);
        double x = shape_.lo + width * v;
        if (skew_) {
          const double center = shape_.lo + width * skewed(hashed_uniform(device, j));
          x = std::clamp(center + width * (2 * v - 1) / 10, shape_.lo, shape_.hi);
        }
        out[static_cast<std::size_t>(k) * d + j] = x;
      }
    }
  }

  data_shape shape_;
  bool skew_;
  std::vector<double> direction_;
};

// Rows of a CSV or .npy file, held in memory: items or reals.
class held_rows final : public dataset {
 public:
  held_rows(std::vector<double> values, uint32_t width)
      : dataset(values.size() / width, width), values_(std::move(values)) {}
  uint32_t item(uint64_t device) const override {
    return static_cast<uint32_t>(values_[static_cast<std::size_t>(device)]);
  }
  void values(uint64_t device, span<double> out) const override {
    std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>(device * width()), width(), out.begin());
  }

 private:
  std::vector<double> values_;
};

class subset_view final : public dataset {
 public:
  subset_view(const dataset& data, std::vector<uint64_t> ids)
      : dataset(ids.size(), data.width()), data_(data), ids_(std::move(ids)) {}
  uint32_t item(uint64_t device) const override { return data_.item(ids_[static_cast<std::size_t>(device)]); }
  void values(uint64_t device, span<double> out) const override {
    data_.values(ids_[static_cast<std::size_t>(device)], out);
  }

 private:
  const dataset& data_;
  std::vector<uint64_t> ids_;
};

// Items or reals the caller holds.
class item_view final : public dataset {
 public:
  explicit item_view(span<const int64_t> items) : dataset(items.size(), 1), items_(items) {}
  uint32_t item(uint64_t device) const override { return static_cast<uint32_t>(items_[device]); }

 private:
  span<const int64_t> items_;
};

class value_view final : public dataset {
 public:
  value_view(span<const double> values, uint32_t width) : dataset(values.size() / width, width), values_(values) {}
  void values(uint64_t device, span<double> out) const override {
    std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>(device * width()), width(), out.begin());
  }

 private:
  span<const double> values_;
};

// Whether a data file's number is an item of the domain (the file names it when it is not).
bool is_item(double v, const data_shape& shape) { return v >= 0 && v < shape.domain && v == std::floor(v); }

std::unique_ptr<dataset> csv_dataset(const std::string& spec, const data_shape& shape, uint64_t devices) {
  std::string path, column;
  split_csv_spec(spec, &path, &column);
  const uint32_t width = width_of(shape);
  std::vector<double> values;
  uint64_t rows = 0;
  read_csv(path, column, width, [&](span<const double> v, uint64_t line) {
    if (devices != 0 && rows == devices) return;
    if (shape.input == input_kind::item && !is_item(v[0], shape)) {
      fail("CSV file {} line {}: item {} is not an integer in [0, {}) (--domain)", path, line, v[0], shape.domain);
    }
    values.insert(values.end(), v.begin(), v.end());
    ++rows;
  });
  if (rows == 0) fail("CSV file {} has no data rows", path);
  if (devices != 0 && rows < devices) fail("--devices {} but CSV file {} has only {} data rows", devices, path, rows);
  return std::make_unique<held_rows>(std::move(values), width);
}

std::unique_ptr<dataset> npy_dataset(const std::string& path, const data_shape& shape, uint64_t devices) {
  if (path.empty()) fail("--data npy: needs a file name (npy:<path>)");
  const uint32_t width = width_of(shape);
  npy_rows data = read_npy(path, width, devices);
  if (devices != 0 && data.rows < devices) {
    fail("--devices {} but npy file {} has only {} data rows", devices, path, data.rows);
  }
  if (shape.input == input_kind::item) {
    for (std::size_t i = 0; i < data.values.size(); ++i) {
      if (!is_item(data.values[i], shape)) {
        fail("npy file {} row {}: item {} is not an integer in [0, {}) (--domain)", path, i + 1, data.values[i],
             shape.domain);
      }
    }
  }
  return std::make_unique<held_rows>(std::move(data.values), width);
}

double parse_exponent(const std::string& text) {
  char* end = nullptr;
  const double s = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(s >= 0 && s <= 100)) {
    fail("--data zipf:<s> needs an exponent s in [0, 100], got '{}'", text);
  }
  return s;
}

}  // namespace

uint32_t dataset::item(uint64_t) const { fail("internal: this dataset holds reals, not items"); }
void dataset::values(uint64_t, span<double>) const { fail("internal: this dataset holds items, not reals"); }
std::string_view dataset::text(uint64_t) const { fail("internal: this dataset holds numbers, not strings"); }

data_shape shape_of(const parameter_block& block) {
  const wire::params& p = block.params;
  data_shape s;
  s.input = block.mechanism->input;
  const int f = static_cast<int>(p.get(field::frac_bits));
  const auto real = [&](field which) { return std::ldexp(static_cast<double>(p.get_signed(which)), -f); };
  switch (s.input) {
    case input_kind::item: s.domain = static_cast<uint32_t>(p.get(field::domain)); break;
    case input_kind::value:
      s.lo = real(field::clip_lo);
      s.hi = real(field::clip_hi);
      break;
    case input_kind::observations:
    case input_kind::samples: fail("internal: a user-level protocol's data shape comes from its options");
    case input_kind::string: fail("internal: string data comes from text: (string_sim.h)");
    case input_kind::sparse:
      s.dim = static_cast<uint32_t>(p.get(field::domain));
      s.sparsity = static_cast<uint32_t>(p.get(field::sparsity));
      s.radius = real(field::clip_hi);
      break;
    case input_kind::record:  // p reals in [0, 1], thresholded at 1/2 (randomizers.cpp)
      s.dim = static_cast<uint32_t>(p.get(field::vector_dim));
      s.hi = 1;
      break;
    case input_kind::vector:  // smooth-queries: p reals, the features come from them
      s.dim =
          static_cast<uint32_t>(p.get(p.mech == wire::mechanism::smooth_queries ? field::vector_dim : field::domain));
      if (p.has(field::radius)) {
        s.radius = real(field::radius);
      } else {
        s.lo = real(field::clip_lo);
        s.hi = real(field::clip_hi);
      }
      break;
  }
  return s;
}

std::unique_ptr<dataset> make_dataset(const std::string& spec, const data_shape& shape, uint64_t devices) {
  if (spec.rfind("csv:", 0) == 0) return csv_dataset(spec.substr(4), shape, devices);
  if (spec.rfind("npy:", 0) == 0) return npy_dataset(spec.substr(4), shape, devices);
  if (devices == 0) fail("--data {} needs --devices N (N >= 1)", spec);
  const bool items = shape.input == input_kind::item;
  const uint32_t d = shape.domain;
  if (spec.rfind("zipf:", 0) == 0) {
    if (!items) fail("--data zipf:<s> describes items: use it with a frequency oracle");
    return std::make_unique<allocated_items>(allocate(zipf_weights(d, parse_exponent(spec.substr(5))), devices));
  }
  if (spec == "uniform") {
    if (items) return std::make_unique<allocated_items>(allocate(std::vector<double>(d, 1.0), devices));
    return std::make_unique<synthetic_values>(shape, false, devices);
  }
  if (spec == "builtin") {
    if (items) return std::make_unique<allocated_items>(allocate(builtin_weights(d), devices));
    return std::make_unique<synthetic_values>(shape, true, devices);
  }
  fail("unknown --data '{}' (zipf:<s>, uniform, builtin, csv:<path>[:<column>], npy:<path>)", spec);
}

std::string data_file(const std::string& spec) {
  if (spec.rfind("npy:", 0) == 0) return spec.substr(4);
  if (spec.rfind("csv:", 0) != 0) return "";
  std::string path, column;
  split_csv_spec(spec.substr(4), &path, &column);
  return path;
}

uint32_t width_of(const data_shape& shape) { return shape.input == input_kind::item ? 1 : shape.dim * shape.samples; }

std::unique_ptr<dataset> item_array(span<const int64_t> items, uint32_t domain) {
  if (items.empty()) fail("no devices: the item array is empty");
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i] < 0 || items[i] >= domain)
      fail("item {} of device {} is not in [0, {}) (domain)", items[i], i, domain);
  }
  return std::make_unique<item_view>(items);
}

std::unique_ptr<dataset> value_array(span<const double> values, const data_shape& shape) {
  const uint32_t width = width_of(shape);
  if (values.empty()) fail("no devices: the value array is empty");
  if (values.size() % width != 0) fail("{} values are not whole rows of {} reals per device", values.size(), width);
  return std::make_unique<value_view>(values, width);
}

std::unique_ptr<dataset> subset(const dataset& data, std::vector<uint64_t> ids) {
  return std::make_unique<subset_view>(data, std::move(ids));
}

std::vector<uint64_t> item_counts(const dataset& data, uint32_t domain) {
  std::vector<uint64_t> counts(domain);
  for (uint64_t i = 0; i < data.devices(); ++i) ++counts[data.item(i)];
  return counts;
}

}  // namespace ldp::tools
