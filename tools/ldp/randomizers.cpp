#include "randomizers.h"

#include <vector>

#include "errors.h"
#include "ldp/device/frequency.h"
#include "ldp/device/sparse_projection.h"
#include "ldp/device/winsorized.h"
#include "ldp/device/mean.h"
#include "ldp/device/user_level.h"
#include "ldp/device/vector_mean.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/mean_params.h"

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

// A sum of int64 values, exact in 128 bits (host tool: GCC and Clang have __int128), and its mean
// in real units.
class exact_sum {
 public:
  void add(int64_t v) { sum_ += v; }
  double mean(uint64_t n, int frac_bits) const {
    // One rounding to long double (64-bit mantissa on x86), then one to double.
    const long double m = static_cast<long double>(sum_) / static_cast<long double>(n);
    return static_cast<double>(std::ldexp(m, -frac_bits));
  }

 private:
  __extension__ __int128 sum_ = 0;
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

class frequency_program final : public device_program {
 public:
  frequency_program(const wire::params& p, const dataset& data)
      : params_(p), data_(data), workspace_(device::workspace_words(p)) {}

  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override {
    return device::randomize_payload(params_, data_.item(device), rng, workspace_, out, written);
  }

 private:
  const wire::params& params_;
  const dataset& data_;
  std::vector<uint64_t> workspace_;
};

// laplace, duchi (device/mean.h).
class value_program final : public device_program {
 public:
  value_program(const wire::params& p, const dataset& data) : params_(p), input_(p, data) {}

  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override {
    return device::randomize_value_payload(params_, input_.of(device)[0], rng, out, written);
  }

 private:
  const wire::params& params_;
  device_input input_;
};

// laplace-vector (device/mean.h).
class laplace_vector_program final : public device_program {
 public:
  laplace_vector_program(const wire::params& p, const dataset& data)
      : params_(p), input_(p, data), workspace_(device::vector_workspace_values(p)) {}

  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override {
    return device::randomize_vector_payload(params_, input_.of(device), rng, workspace_, out, written);
  }

 private:
  const wire::params& params_;
  device_input input_;
  std::vector<int64_t> workspace_;
};

// vector-duchi, vector-laplace (device/vector_mean.h): the rotation signs derived once per program.
class vector_mean_program final : public device_program {
 public:
  vector_mean_program(const wire::params& p, const dataset& data)
      : input_(p, data),
        signs_(device::vector_mean_context::sign_words(p)),
        workspace_(device::vector_mean_context::workspace_values(p)) {
    const status s = context_.init(p, signs_);
    if (s != status::ok) fail("internal: the vector mean context refused its block: {}", describe(s));
  }

  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override {
    return context_.randomize_payload(input_.of(device), rng, workspace_, out, written);
  }

 private:
  device_input input_;
  std::vector<uint32_t> signs_;
  std::vector<int32_t> workspace_;
  device::vector_mean_context context_;
};

// kent-vote, kent-refine (device/user_level.h): the device's T observations.
class user_level_program final : public device_program {
 public:
  user_level_program(const wire::params& p, const dataset& data)
      : params_(p),
        input_(p, data),
        bits_(device::user_level_vote_words(p)),
        rotation_(device::user_level_rotation_values(p)),
        signs_(device::user_level_sign_words(p)) {}

  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override {
    return device::randomize_user_level_payload(params_, input_.of(device), rng, workspace(), out, written);
  }
  // The fixed-point local mean the device reports on.
  int64_t value(uint64_t device) {
    int64_t v = 0;
    const status s = device::user_level_value(params_, input_.of(device), workspace(), &v);
    if (s != status::ok) fail("internal: no local mean for device {}: {}", device, describe(s));
    return v;
  }

 private:
  device::user_level_workspace workspace() { return {bits_, rotation_, signs_}; }

  const wire::params& params_;
  device_input input_;
  std::vector<uint64_t> bits_;
  std::vector<int32_t> rotation_;
  std::vector<uint32_t> signs_;
};

// sparse-projection (device/sparse_projection.h): the device's d reals as a dense candidate list; it keeps
// the s largest and clips them to the ball. No randomness: the server adds the noise.
class sparse_program final : public device_program {
 public:
  sparse_program(const wire::params& p, const dataset& data)
      : params_(p),
        input_(p, data),
        indices_(data.width()),
        kept_indices_(device::sparse_workspace_size(p)),
        kept_values_(kept_indices_.size()) {
    for (std::size_t j = 0; j < indices_.size(); ++j) indices_[j] = static_cast<uint32_t>(j);
  }

  status run(uint64_t device, random::drbg&, span<unsigned char> out, std::size_t* written) override {
    return device::encode_sparse_projection_payload(params_, indices_, input_.of(device), workspace(), out, written);
  }
  // The report fields the device sends (indices and values point into the workspace).
  wire::report fields(uint64_t device) {
    wire::report r;
    const status s = device::sparse_projection_fields(params_, indices_, input_.of(device), workspace(), &r);
    if (s != status::ok) fail("internal: no sparse report for device {}: {}", device, describe(s));
    return r;
  }

 private:
  device::sparse_workspace workspace() { return {kept_indices_, kept_values_}; }

  const wire::params& params_;
  device_input input_;
  std::vector<uint32_t> indices_;
  std::vector<uint32_t> kept_indices_;
  std::vector<int64_t> kept_values_;
};

// winsorized-bins, winsorized-sums (device/winsorized.h): the user's m samples of d reals, and for
// round 2 the broadcast window list. No randomness: the server adds the noise.
class winsorized_program final : public device_program {
 public:
  winsorized_program(const parameter_block& block, const dataset& data)
      : params_(block.params),
        windows_(block.windows),
        input_(block.params, data),
        samples_(data.width() / block.params.get(field::vector_dim)),
        rotated_(device::winsorized_rotated_size(block.params)),
        signs_(device::winsorized_sign_words(block.params)),
        values_(rotated_.size()) {}

  status run(uint64_t device, random::drbg&, span<unsigned char> out, std::size_t* written) override {
    return device::encode_winsorized_payload(params_, windows_, input_.of(device), samples_,
                                             {rotated_, signs_, values_}, out, written);
  }

 private:
  const wire::params& params_;
  const std::vector<unsigned char>& windows_;
  device_input input_;
  std::size_t samples_;
  std::vector<int32_t> rotated_;
  std::vector<uint32_t> signs_;
  std::vector<int64_t> values_;
};

}  // namespace

std::unique_ptr<device_program> make_device_program(const parameter_block& block, const dataset& data) {
  const wire::params& p = block.params;
  switch (p.mech) {
    case wire::mechanism::laplace:
    case wire::mechanism::duchi: return std::make_unique<value_program>(p, data);
    case wire::mechanism::laplace_vector: return std::make_unique<laplace_vector_program>(p, data);
    case wire::mechanism::vector_duchi:
    case wire::mechanism::vector_laplace: return std::make_unique<vector_mean_program>(p, data);
    case wire::mechanism::kent_vote:
    case wire::mechanism::kent_refine: return std::make_unique<user_level_program>(p, data);
    case wire::mechanism::sparse_projection: return std::make_unique<sparse_program>(p, data);
    case wire::mechanism::winsorized_bins:
    case wire::mechanism::winsorized_sums: return std::make_unique<winsorized_program>(block, data);
    default: return std::make_unique<frequency_program>(p, data);
  }
}

truth_table truth_of(const parameter_block& block, const dataset& data) {
  const wire::params& p = block.params;
  truth_table t;
  if (block.mechanism->input == input_kind::item) {
    const std::vector<uint64_t> counts = item_counts(data, static_cast<uint32_t>(p.get(field::domain)));
    t.values.assign(counts.begin(), counts.end());
    return t;
  }
  // The mean of the integers the devices randomize, summed exactly in 128 bits: the local mean of
  // a kent device (already clamped to the range), a value clamped to the range, or a vector
  // clipped to the ball (device::clip_to_ball).
  t.means = true;
  const bool winsorized = p.mech == wire::mechanism::winsorized_bins || p.mech == wire::mechanism::winsorized_sums;
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
    std::vector<int32_t> clipped(ball ? static_cast<std::size_t>(p.get(field::hadamard_dim)) : 0);
    for (uint64_t i = 0; i < data.devices(); ++i) {
      const span<const int64_t> x = input.of(i);
      if (ball) device::clip_to_ball(x, p.get_signed(field::radius), wire::rotation_log2(p), clipped);
      for (std::size_t j = 0; j < x.size(); ++j) sums[j].add(ball ? clipped[j] : wire::clamp_to_range(p, x[j]));
    }
  }
  for (const exact_sum& s : sums) t.values.push_back(s.mean(data.devices(), static_cast<int>(p.get(field::frac_bits))));
  return t;
}

}  // namespace ldp::tools
