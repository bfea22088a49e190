#include "randomizers.h"

#include <vector>

#include "errors.h"
#include "ldp/device/frequency.h"

namespace ldp::tools {
namespace {

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

}  // namespace

std::unique_ptr<device_program> make_device_program(const parameter_block& block, const dataset& data) {
  switch (block.mechanism->input) {
    case input_kind::item: return std::make_unique<frequency_program>(block.params, data);
  }
  fail("internal: no device program for {}", block.mechanism->name);
}

truth_table truth_of(const parameter_block& block, const dataset& data) {
  truth_table t;
  switch (block.mechanism->input) {
    case input_kind::item: {
      const std::vector<uint64_t> counts = item_counts(data, static_cast<uint32_t>(block.params.get(wire::field::domain)));
      t.values.assign(counts.begin(), counts.end());
      return t;
    }
  }
  fail("internal: no truth for {}", block.mechanism->name);
}

}  // namespace ldp::tools
