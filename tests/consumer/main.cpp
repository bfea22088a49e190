// The C++ side of the installed-package check (tests/consumer/CMakeLists.txt): what main_c.c does,
// through ldp::device and ldp::server; the outputs must be identical.
#include <cstddef>
#include <cstdio>
#include <memory>
#include <vector>

#include "ldp/device.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire.h"

int main() {
  constexpr int devices = 2000;
  constexpr uint32_t items = 8;
  const unsigned char seed[ldp::random::drbg::seed_size] = {42};
  ldp::random::drbg rng(seed);
  const ldp::wire::derived_params p = ldp::wire::make_frequency_oracle(ldp::wire::mechanism::oue, 1.0, items);
  std::unique_ptr<ldp::server::aggregator> aggregator;
  if (p.code != ldp::status::ok || ldp::server::aggregator::create(p.block, &aggregator) != ldp::status::ok) {
    return 1;
  }
  std::vector<std::byte> workspace(ldp::device::frequency_context::workspace_size(p.block));
  ldp::device::frequency_context oracle;
  if (ldp::device::frequency_context::init(workspace, p.block, &oracle) != ldp::status::ok) return 2;
  std::vector<unsigned char> report(ldp::device::max_output_size(p.block, ldp::device::framing::report));
  for (int i = 0; i < devices; ++i) {
    std::size_t size = 0;
    if (oracle.randomize(static_cast<uint32_t>(i % 5), rng, report, ldp::device::framing::report, &size) !=
        ldp::status::ok) {
      return 2;
    }
    if (i == 0) {
      std::printf("report 0:");
      for (std::size_t b = 0; b < size; ++b) std::printf(" %02x", report[b]);
      std::printf("\n");
    }
    if (aggregator->add_report(ldp::span<const unsigned char>(report.data(), size)) != ldp::status::ok) return 3;
  }
  std::printf("reports: %llu\n", static_cast<unsigned long long>(aggregator->reports()));
  for (const ldp::server::estimate& e : aggregator->estimate_all(0.95)) {
    std::printf("item %lu: %.6f [%.6f, %.6f]\n", static_cast<unsigned long>(e.item), e.value, e.ci_low, e.ci_high);
  }
  return 0;
}
