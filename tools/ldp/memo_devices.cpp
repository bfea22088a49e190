#include "memo_devices.h"

#include "errors.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/wire/mean_params.h"
#include "seeding.h"

namespace ldp::tools {

memoized_program::memoized_program(const wire::params& p, const dataset* data, uint64_t seed, uint32_t use_case)
    : data_(data), seed_(seed), use_case_(use_case), items_(p.mech != wire::mechanism::duchi) {
  status s = status::ok;
  if (items_) {
    workspace_.resize(device::frequency_context::workspace_size(p));
    s = device::frequency_context::init(workspace_, p, &items_context_);
  } else {
    s = device::mean_context::init(workspace_, p, &values_context_);
  }
  if (s != status::ok) fail("internal: the device context refused its memoized block: {}", describe(s));
}

device::memo_key memoized_program::key_of(uint64_t device) {
  static_assert(device::device_secret_size == wire::seed_size, "a device secret is one derived seed");
  derive_seed(seed_, seed_purpose::device_secret, device, secret_);
  return {secret_, use_case_};
}

status memoized_program::run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) {
  if (items_) {
    return items_context_.randomize_memoized(data_->item(device), key_of(device), rng, out, device::framing::payload,
                                             written);
  }
  double x = 0;
  data_->values(device, span<double>(&x, 1));
  int64_t fixed = 0;
  const status s =
      wire::to_fixed(x, static_cast<unsigned>(values_context_.parameters().get(wire::field::frac_bits)), &fixed);
  // A saturated value stays saturated: the device clamps it to the range.
  if (s != status::ok && s != status::overflow) return s;
  return values_context_.randomize_memoized(fixed, key_of(device), rng, out, device::framing::payload, written);
}

wire::report memoized_program::permanent(uint64_t device, uint32_t item) {
  wire::report r;
  const status s = items_context_.permanent_fields(item, key_of(device), kernels::native(), &r);
  if (s != status::ok) fail("internal: no permanent response for device {}: {}", device, describe(s));
  return r;
}

}  // namespace ldp::tools
