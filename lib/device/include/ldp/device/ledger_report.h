// Reports under the privacy ledger, dummy reports included (docs/ledger.md "Dummy reports"). A
// frequency block reserves its last item, d - 1, for "nothing to report": a device with no value
// randomizes that item under the same mechanism, so its report has the same size and distribution
// family as a real one, and the ledger charges it like any report. The server's estimate of item
// d - 1 counts the devices that had nothing to report; the other estimates stay unbiased.
#ifndef LDP_DEVICE_LEDGER_REPORT_H
#define LDP_DEVICE_LEDGER_REPORT_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/device/context.h"
#include "ldp/device/frequency.h"
#include "ldp/device/ledger.h"
#include "ldp/random/drbg.h"

namespace ldp::device {

// The input of ledger_report meaning "this device has nothing to report".
inline constexpr uint32_t no_item = 0xFFFFFFFFu;

// One report of `item` in [0, d - 1), or of the dummy item d - 1 for no_item, charged to
// `use_case`: the item is randomized into `out` first (out_of_range for item d - 1 or above, and
// nothing is charged), then the block's implemented epsilon is charged (ledger::charge). The
// report stays in `out` only when the charge is durable; on any failure `out` is wiped and
// *written is 0, so a refused charge (budget_exhausted) never leaves a report to send.
[[nodiscard]] status ledger_report(ledger& budget, uint32_t use_case, uint64_t now, frequency_context& oracle,
                                   uint32_t item, random::drbg& rng, span<unsigned char> out, framing f,
                                   std::size_t* written) noexcept;

}  // namespace ldp::device

#endif
