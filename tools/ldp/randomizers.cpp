#include "randomizers.h"

#include <cstddef>
#include <utility>
#include <vector>

#include "errors.h"
#include "ldp/base/int128.h"
#include "ldp/device/distribution.h"
#include "ldp/device/frequency.h"
#include "ldp/device/kent_support.h"
#include "ldp/device/kway_marginals.h"
#include "ldp/device/mean.h"
#include "ldp/device/projected_unit.h"
#include "ldp/device/smooth_queries.h"
#include "ldp/device/sparse_projection.h"
#include "ldp/device/string.h"
#include "ldp/device/unit_vector.h"
#include "ldp/device/user_level.h"
#include "ldp/device/vector_mean.h"
#include "ldp/device/winsorized.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/distribution_params.h"
#include "ldp/wire/mean_params.h"
#include "ldp/wire/oracle_params.h"
#include "memo_devices.h"
#include "smooth_scaling.h"

namespace ldp::tools {
namespace {

using wire::field;

// A real on the block's grid (wire::to_fixed, half to even); saturated values stay saturated, the
// device clamps them.
int64_t fixed(const wire::params& p, double x) {
  int64_t out = 0;
  const status s = wire::to_fixed(x, static_cast<unsigned>(p.get(field::frac_bits)), &out);
  if (s != status::ok && s != status::overflow) fail("internal: {} does not convert to fixed point", x);
  return out;
}

// A sum of int64 values, exact in 128 bits, and its mean in real units.
class exact_sum {
 public:
  void add(int64_t v) { sum_ += to_i128(v); }
  double mean(uint64_t n, int frac_bits) const {
    // The sum rounded once to long double (64-bit mantissa on x86), divided, then rounded to double.
    const long double m = to_long_double(sum_) / static_cast<long double>(n);
    return static_cast<double>(std::ldexp(m, -frac_bits));
  }

 private:
  i128 sum_{};
};

// What a device of the block holds, as the fixed-point integers it randomizes.
class device_input {
 public:
  device_input(const wire::params& p, const dataset& data)
      : params_(p), data_(data), reals_(data.width()), fixed_(reals_.size()) {}

  span<const int64_t> of(uint64_t device) {
    data_.values(device, reals_);
    for (std::size_t j = 0; j < reals_.size(); ++j) fixed_[j] = fixed(params_, reals_[j]);
    return fixed_;
  }

 private:
  const wire::params& params_;
  const dataset& data_;
  std::vector<double> reals_;
  std::vector<int64_t> fixed_;
};

// A frequency oracle device's item.
class item_input {
 public:
  explicit item_input(const dataset& data) : data_(data) {}
  uint32_t of(uint64_t device) { return data_.item(device); }

 private:
  const dataset& data_;
};

// A pem, treehist or sfp device's string.
class string_input {
 public:
  explicit string_input(const dataset& data) : data_(data) {}
  span<const unsigned char> of(uint64_t device) {
    const std::string_view s = data_.text(device);
    return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
  }

 private:
  const dataset& data_;
};

// A smooth-queries device's p reals, each column scaled to [-1, 1] by its range over the data
// (smooth_scaling.h), on the block's grid.
class smooth_input {
 public:
  smooth_input(const wire::params& p, const dataset& data)
      : params_(p), data_(data), scaling_(scaling_of(data)), reals_(data.width()), fixed_(reals_.size()) {}

  span<const int64_t> of(uint64_t device) {
    data_.values(device, reals_);
    scale_row(scaling_, reals_);
    for (std::size_t j = 0; j < reals_.size(); ++j) fixed_[j] = fixed(params_, reals_[j]);
    return fixed_;
  }

 private:
  const wire::params& params_;
  const dataset& data_;
  column_scaling scaling_;
  std::vector<double> reals_;
  std::vector<int64_t> fixed_;
};

// A laplace or duchi device's one value.
class value_input {
 public:
  value_input(const wire::params& p, const dataset& data) : values_(p, data) {}
  int64_t of(uint64_t device) { return values_.of(device)[0]; }

 private:
  device_input values_;
};

// A sparse-projection device's d reals as a dense candidate list (it keeps the s largest).
class dense_input {
 public:
  dense_input(const wire::params& p, const dataset& data) : values_(p, data), indices_(data.width()) {
    for (std::size_t j = 0; j < indices_.size(); ++j) indices_[j] = static_cast<uint32_t>(j);
  }
  device::sparse_input of(uint64_t device) { return {indices_, values_.of(device)}; }

 private:
  device_input values_;
  std::vector<uint32_t> indices_;
};

// A kway-marginals device's record (docs/mechanisms.md H.5): bit j is 1 when its real j is at
// least 1/2, so a CSV of 0/1 columns is read exactly and the synthetic data are bits of chance
// 1/2 (uniform) or P(K(u) >= 1/2) (builtin).
class record_input {
 public:
  explicit record_input(const dataset& data) : data_(data), reals_(data.width()) {}
  uint64_t of(uint64_t device) {
    data_.values(device, reals_);
    uint64_t record = 0;
    for (std::size_t j = 0; j < reals_.size(); ++j) record |= uint64_t{reals_[j] >= 0.5} << j;
    return record;
  }

 private:
  const dataset& data_;
  std::vector<double> reals_;
};

// The device context of the block (lib/device) on this program's own workspace; each device is one
// randomize() of its input into a batch payload. `extra` is the round-2 window list of winsorized.
template <class Context, class Input>
class context_program : public device_program {
 public:
  template <class... Extra>
  context_program(const wire::params& p, Input input, Extra... extra)
      : input_(std::move(input)), workspace_(Context::workspace_size(p)) {
    const status s = Context::init(workspace_, p, extra..., &context_);
    if (s != status::ok) fail("internal: the device context refused its block: {}", describe(s));
  }

  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override {
    return context_.randomize(input_.of(device), rng, out, device::framing::payload, written);
  }

 protected:
  Input input_;
  std::vector<std::byte> workspace_;  // operator new aligns it for any context
  Context context_;
};

using frequency_program = context_program<device::frequency_context, item_input>;
using value_program = context_program<device::mean_context, value_input>;
using distribution_program = context_program<device::distribution_context, value_input>;
using vector_program = context_program<device::vector_mean_context, device_input>;
using winsorized_program = context_program<device::winsorized_context, device_input>;
using unit_vector_program = context_program<device::unit_vector_context, device_input>;
using projected_unit_program = context_program<device::projected_unit_context, device_input>;
using string_program = context_program<device::string_context, string_input>;
using kent_support_program = context_program<device::kent_support_context, device_input>;

// kway-marginals: the vector context randomizes the conjunction indicators of the record.
class record_program final : public device_program {
 public:
  record_program(const wire::params& p, const dataset& data)
      : input_(data), workspace_(device::vector_mean_context::workspace_size(p)) {
    const status s = device::vector_mean_context::init(workspace_, p, &context_);
    if (s != status::ok) fail("internal: the device context refused its block: {}", describe(s));
  }
  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override {
    return device::randomize_kway_marginals(context_, input_.of(device), rng, out, device::framing::payload, written);
  }

 private:
  record_input input_;
  std::vector<std::byte> workspace_;
  device::vector_mean_context context_;
};

// smooth-queries: the vector context randomizes the Chebyshev features of the scaled reals.
class smooth_program final : public context_program<device::vector_mean_context, smooth_input> {
 public:
  smooth_program(const wire::params& p, const dataset& data) : context_program(p, smooth_input(p, data)) {}
  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override {
    return device::randomize_smooth_queries(context_, input_.of(device), rng, out, device::framing::payload, written);
  }
};

// kent-vote, kent-refine: the device's T observations.
class user_level_program final : public context_program<device::user_level_context, device_input> {
 public:
  user_level_program(const wire::params& p, const dataset& data) : context_program(p, device_input(p, data)) {}
  // The fixed-point local mean the device reports on.
  int64_t value(uint64_t device) {
    int64_t v = 0;
    const status s = context_.value(input_.of(device), &v);
    if (s != status::ok) fail("internal: no local mean for device {}: {}", device, describe(s));
    return v;
  }
};

// sparse-projection: no randomness, the server adds the noise.
class sparse_program final : public context_program<device::sparse_projection_context, dense_input> {
 public:
  sparse_program(const wire::params& p, const dataset& data) : context_program(p, dense_input(p, data)) {}
  // The report fields the device sends (indices and values point into the workspace).
  wire::report fields(uint64_t device) {
    wire::report r;
    const status s = context_.fields(input_.of(device), &r);
    if (s != status::ok) fail("internal: no sparse report for device {}: {}", device, describe(s));
    return r;
  }
};

// The mean of each Chebyshev feature the devices compute (H.6): what each coordinate estimates.
truth_table smooth_truth(const wire::params& p, const dataset& data) {
  truth_table t;
  t.means = true;
  smooth_input input(p, data);
  const auto n = static_cast<std::size_t>(p.get(field::domain));
  std::vector<int64_t> features(n);
  std::vector<exact_sum> sums(n);
  for (uint64_t i = 0; i < data.devices(); ++i) {
    wire::chebyshev_features(input.of(i), static_cast<unsigned>(p.get(field::frac_bits)),
                             static_cast<uint32_t>(p.get(field::degree)), features);
    for (std::size_t j = 0; j < n; ++j) sums[j].add(features[j]);
  }
  for (const exact_sum& s : sums) t.values.push_back(s.mean(data.devices(), static_cast<int>(p.get(field::frac_bits))));
  return t;
}

}  // namespace

std::unique_ptr<device_program> make_device_program(const parameter_block& block, const dataset& data, uint64_t seed) {
  const wire::params& p = block.params;
  if (wire::needs_device_secret(p)) return std::make_unique<memoized_program>(p, &data, seed, 0);
  switch (device::family_of(p.mech)) {  // the device context that takes its input
    case device::family::frequency: return std::make_unique<frequency_program>(p, item_input(data));
    case device::family::mean: return std::make_unique<value_program>(p, value_input(p, data));
    case device::family::vector_mean:
      if (p.mech == wire::mechanism::kway_marginals) return std::make_unique<record_program>(p, data);
      if (p.mech == wire::mechanism::smooth_queries) return std::make_unique<smooth_program>(p, data);
      return std::make_unique<vector_program>(p, device_input(p, data));
    case device::family::user_level: return std::make_unique<user_level_program>(p, data);
    case device::family::sparse_projection: return std::make_unique<sparse_program>(p, data);
    case device::family::winsorized:
      return std::make_unique<winsorized_program>(p, device_input(p, data), span<const unsigned char>(block.windows));
    case device::family::unit_vector: return std::make_unique<unit_vector_program>(p, device_input(p, data));
    case device::family::projected_unit: return std::make_unique<projected_unit_program>(p, device_input(p, data));
    case device::family::string: return std::make_unique<string_program>(p, string_input(data));
    case device::family::distribution: return std::make_unique<distribution_program>(p, value_input(p, data));
    case device::family::kent_support: return std::make_unique<kent_support_program>(p, device_input(p, data));
    case device::family::public_coin:  // not a simulate mechanism (mechanism_options.cpp): `ldp train` (H.7)
    case device::family::glm:          // labelled examples: ldp train's wang-glm method runs these devices (H.7)
    case device::family::none: break;
  }
  fail("internal: no device program for mechanism {}", static_cast<unsigned>(p.mech));
}

truth_table truth_of(const parameter_block& block, const dataset& data) {
  const wire::params& p = block.params;
  truth_table t;
  if (block.mechanism->input == input_kind::item) {
    const std::vector<uint64_t> counts = item_counts(data, static_cast<uint32_t>(p.get(field::domain)));
    t.values.assign(counts.begin(), counts.end());
    return t;
  }
  if (block.mechanism->input == input_kind::record) {
    // The fraction of the records holding each conjunction: what each coordinate estimates (H.5).
    t.means = true;
    record_input input(data);
    std::vector<int64_t> features(static_cast<std::size_t>(p.get(field::domain)));
    std::vector<uint64_t> counts(features.size());
    for (uint64_t i = 0; i < data.devices(); ++i) {
      if (!device::conjunction_features(p, input.of(i), features)) fail("internal: a record wider than its block");
      for (std::size_t j = 0; j < features.size(); ++j) counts[j] += features[j] != 0 ? 1 : 0;
    }
    for (uint64_t c : counts) t.values.push_back(static_cast<double>(c) / static_cast<double>(data.devices()));
    return t;
  }
  if (p.mech == wire::mechanism::smooth_queries) return smooth_truth(p, data);
  if (wire::in_family(p.mech, wire::mechanism_family::distribution)) {
    // The devices' buckets (docs/mechanisms.md G.0): what estimate_all counts.
    t.values.assign(static_cast<std::size_t>(p.get(field::domain)), 0);
    value_input input(p, data);
    for (uint64_t i = 0; i < data.devices(); ++i) ++t.values[wire::range_cell(p, input.of(i))];
    return t;
  }
  // The mean of the integers the devices randomize, summed exactly in 128 bits: the local mean of
  // a kent device (already clamped to the range), a value clamped to the range, or a vector
  // clipped to the ball (device::clip_to_ball).
  t.means = true;
  const bool winsorized = device::family_of(p.mech) == device::family::winsorized;
  const std::size_t width = winsorized ? static_cast<std::size_t>(p.get(field::vector_dim)) : data.width();
  std::vector<exact_sum> sums(device::is_user_level(p) ? 1 : width);
  if (winsorized) {
    // The users' means before rotation and winsorization: each of the m samples clamped to the
    // range, averaged and rounded half to even on the grid, as the device does.
    device_input input(p, data);
    const std::size_t m = data.width() / width;
    for (uint64_t i = 0; i < data.devices(); ++i) {
      const span<const int64_t> x = input.of(i);
      for (std::size_t j = 0; j < width; ++j) {
        int64_t sum = 0;
        for (std::size_t k = 0; k < m; ++k) sum += wire::clamp_to_range(p, x[k * width + j]);
        sums[j].add(wire::rounded_mean(sum, m));
      }
    }
  } else if (p.mech == wire::mechanism::sparse_projection) {
    // What the devices send: their s largest coordinates clipped to the ball.
    sparse_program program(p, data);
    for (uint64_t i = 0; i < data.devices(); ++i) {
      const wire::report r = program.fields(i);
      for (std::size_t k = 0; k < r.indices.size(); ++k) sums[r.indices[k]].add(r.values[k]);
    }
  } else if (device::is_user_level(p)) {
    user_level_program program(p, data);
    for (uint64_t i = 0; i < data.devices(); ++i) sums[0].add(program.value(i));
  } else {
    device_input input(p, data);
    const bool ball = p.has(field::radius);
    const auto d = static_cast<uint32_t>(width);
    std::vector<int32_t> clipped(ball ? padded_dim(d) : 0);
    for (uint64_t i = 0; i < data.devices(); ++i) {
      const span<const int64_t> x = input.of(i);
      if (ball) device::clip_to_ball(x, p.get_signed(field::radius), padded_log2(d), clipped);
      for (std::size_t j = 0; j < x.size(); ++j) sums[j].add(ball ? clipped[j] : wire::clamp_to_range(p, x[j]));
    }
  }
  for (const exact_sum& s : sums) t.values.push_back(s.mean(data.devices(), static_cast<int>(p.get(field::frac_bits))));
  return t;
}

}  // namespace ldp::tools
