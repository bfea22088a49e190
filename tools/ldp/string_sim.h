// ldp simulate for the string-discovery mechanisms pem, treehist and sfp (docs/cli.md "Strings"):
// the devices hold the strings of a text: file, one each in file order or --devices N drawn i.i.d.
// from them, and each runs device::string_context once.
#ifndef LDP_TOOLS_STRING_SIM_H
#define LDP_TOOLS_STRING_SIM_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "datasets.h"
#include "mechanism_options.h"
#include "text_input.h"
#include "user_level_sim.h"

namespace ldp::tools {

// The devices' strings: the distinct strings once, and each device's index among them.
class string_dataset final : public dataset {
 public:
  string_dataset(std::vector<std::string> distinct, std::vector<uint32_t> of_device);
  std::string_view text(uint64_t device) const override { return distinct_[of_device_[device]]; }
  // The exact counts of the devices' strings, ranked (text_input.h ranks_before).
  std::vector<string_count> counts() const;

 private:
  std::vector<std::string> distinct_;
  std::vector<uint32_t> of_device_;
};

// The devices of --data text:... for strings of at most `max_bytes` bytes: every item once, or
// `devices` > 0 draws with replacement by the DRBG of (seed, string_draw, 0). Sets *skipped to the
// word tokens longer than max_bytes that were left out.
std::unique_ptr<string_dataset> make_string_dataset(const std::string& spec, std::size_t max_bytes, uint64_t devices,
                                                    uint64_t seed, uint64_t* skipped);

void simulate_strings(const parameter_block& block, const user_level_run& r);

}  // namespace ldp::tools

#endif
