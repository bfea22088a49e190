#include "randomizers.h"

#include <vector>

#include "errors.h"
#include "ldp/device/frequency.h"
#include "ldp/device/numeric.h"
#include "ldp/device/user_level.h"
#include "ldp/device/vector_mean.h"
#include "ldp/wire/numeric_params.h"

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

// laplace, duchi (device/numeric.h).
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

// laplace-vector (device/numeric.h).
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
  std::vector<exact_sum> sums(device::is_user_level(p) ? 1 : data.width());
  if (device::is_user_level(p)) {
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
