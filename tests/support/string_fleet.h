// Reports of a string-discovery block for server tests, built the way a device does it (docs/mechanisms.md
// F.1; the device's string_context): the group g drawn uniformly from the DRBG first, then the item
// group g derives from the string, then the inner oracle's fields (device::frequency_context on
// wire::string_inner_block), encoded as the outer block's report with r.group = g.
#ifndef LDP_TESTS_SUPPORT_STRING_FLEET_H
#define LDP_TESTS_SUPPORT_STRING_FLEET_H

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "device_context.h"
#include "ldp/device/coins.h"
#include "ldp/device/frequency.h"
#include "ldp/random/drbg.h"
#include "ldp/wire.h"

namespace ldp::test {

class string_fleet {
 public:
  explicit string_fleet(const wire::params& p)
      : params_(p), fingerprint_(wire::fingerprint(p)), oracle_(wire::string_inner_block(p)) {
    REQUIRE(oracle_.code == status::ok);
  }

  // One device's report of s (REQUIREs that s is a string of the block).
  std::vector<unsigned char> report(const std::string& s, random::drbg& rng) {
    device::drbg_coins coins(rng);
    const uint32_t g = coins.uniform_below(wire::string_groups(params_));
    wire::padded_string padded;
    REQUIRE(wire::pad_string(params_, {reinterpret_cast<const unsigned char*>(s.data()), s.size()}, &padded) ==
            status::ok);
    wire::report r;
    REQUIRE(oracle_->fields(wire::string_item(params_, g, padded), coins, &r) == status::ok);
    r.mech = params_.mech;
    r.fingerprint = fingerprint_;
    r.group = g;
    std::vector<unsigned char> out(wire::max_report_size(params_));
    std::size_t size = 0;
    REQUIRE(wire::encode_report(params_, fingerprint_, r, out, &size) == status::ok);
    out.resize(size);
    return out;
  }

 private:
  wire::params params_;
  uint64_t fingerprint_;
  owned_context<device::frequency_context> oracle_;
};

}  // namespace ldp::test

#endif
