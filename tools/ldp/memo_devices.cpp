#include "memo_devices.h"

#include "errors.h"
#include "ldp/kernels/kernel_table.h"
#include "seeding.h"

namespace ldp::tools {

memoized_program::memoized_program(const wire::params& p, const dataset* data, uint64_t seed, uint32_t use_case)
    : data_(data), seed_(seed), use_case_(use_case), workspace_(device::frequency_context::workspace_size(p)) {
  const status s = device::frequency_context::init(workspace_, p, &context_);
  if (s != status::ok) fail("internal: the device context refused its memoized block: {}", describe(s));
}

device::memo_key memoized_program::key_of(uint64_t device) {
  static_assert(device::device_secret_size == wire::seed_size, "a device secret is one derived seed");
  derive_seed(seed_, seed_purpose::device_secret, device, secret_);
  return {secret_, use_case_};
}

status memoized_program::run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) {
  return context_.randomize_memoized(data_->item(device), key_of(device), rng, out, device::framing::payload, written);
}

wire::report memoized_program::permanent(uint64_t device, uint32_t item) {
  wire::report r;
  const status s = context_.permanent_fields(item, key_of(device), kernels::native(), &r);
  if (s != status::ok) fail("internal: no permanent response for device {}: {}", device, describe(s));
  return r;
}

}  // namespace ldp::tools
