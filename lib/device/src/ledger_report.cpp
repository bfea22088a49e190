#include "ldp/device/ledger_report.h"

#include "ldp/base/bits.h"
#include "ldp/wire/oracle_params.h"

namespace ldp::device {

status ledger_report(ledger& budget, uint32_t use_case, uint64_t now, frequency_context& oracle, uint32_t item,
                     random::drbg& rng, span<unsigned char> out, framing f, std::size_t* written) noexcept {
  if (written == nullptr) return status::invalid_argument;
  *written = 0;
  const uint64_t domain = oracle.parameters().get(wire::field::domain);
  if (item != no_item && item + uint64_t{1} >= domain) return status::out_of_range;
  const uint32_t randomized = item == no_item ? static_cast<uint32_t>(domain - 1) : item;
  std::size_t size = 0;
  status s = oracle.randomize(randomized, rng, out, f, &size);
  if (s == status::ok) s = budget.charge(use_case, wire::implemented_epsilon(oracle.parameters()), now);
  if (s != status::ok) {
    secure_zero(out.data(), out.size());
    return s;
  }
  *written = size;
  return status::ok;
}

}  // namespace ldp::device
