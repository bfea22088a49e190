// Aggregator state files (docs/wire_format.md section 7, written by server::aggregator::serialize
// with its header and CRC32C): loading with a message naming the file and the failed check, and
// atomic saving.
#ifndef LDP_TOOLS_STATE_IO_H
#define LDP_TOOLS_STATE_IO_H

#include <memory>
#include <string>

#include "ldp/server/aggregator.h"

namespace ldp::tools {

std::unique_ptr<server::aggregator> load_state(const std::string& path);
// Returns the number of bytes written.
uint64_t save_state(const server::aggregator& agg, const std::string& path);

// "olh (d=1000 g=8), epsilon 1.9999 implemented, fingerprint 0x..." for summaries.
std::string describe_state(const server::aggregator& agg);

}  // namespace ldp::tools

#endif
