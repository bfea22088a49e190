#include "train_users.h"

#include <chrono>
#include <vector>

#include "errors.h"
#include "ldp/wire/report.h"

namespace ldp::tools {

void run_users(uint64_t first, uint64_t count, const user_device& device, random::drbg& rng, server::aggregator& agg,
               device_cost& cost) {
  std::vector<unsigned char> payload(wire::max_payload_size(agg.parameters()));
  using clock = std::chrono::steady_clock;
  for (uint64_t user = first; user < first + count; ++user) {
    std::size_t written = 0;
    const clock::time_point start = clock::now();
    const status s = device(user, rng, span<unsigned char>(payload.data(), payload.size()), &written);
    cost.device_seconds += std::chrono::duration<double>(clock::now() - start).count();
    if (s != status::ok) fail("the device code refused user {}'s input: {}", user, describe(s));
    const status added = agg.add_payload(span<const unsigned char>(payload.data(), written));
    if (added != status::ok) fail("internal: the aggregator rejected user {}'s report: {}", user, describe(added));
    ++cost.reports;
    cost.report_bytes += wire::report_header_size + written;
  }
}

}  // namespace ldp::tools
