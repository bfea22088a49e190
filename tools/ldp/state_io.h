// Aggregator state files (docs/wire_format.md section 7, written by server::aggregator::serialize
// with its header and CRC32C): loading with a message naming the file and the failed check, and
// atomic saving.
#ifndef LDP_TOOLS_STATE_IO_H
#define LDP_TOOLS_STATE_IO_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/server/aggregator.h"

namespace CLI {
class App;
}

namespace ldp::tools {

// --max-state-bytes of every command that holds an aggregator or plans one (docs/cli.md "Memory"):
// the ceiling of server::limits, 1 GiB by default. `help` says what the command refuses above it.
void add_max_state_bytes_option(CLI::App& app, uint64_t* bytes, const char* help);

// The bytes of a state file, read incrementally (docs/security_model.md "Memory contract"): the
// 32-byte header is checked first (magic, version, CRC: wire::peek_header), then only the body
// length it states is read, and only when header and body fit the ceiling; a longer file is
// wrong_length. So /dev/zero or a large file of zeros fails after 32 bytes.
std::vector<unsigned char> read_state_file(const std::string& path, const server::limits& lim);
// The aggregator of bytes read by read_state_file (errors name `path`).
std::unique_ptr<server::aggregator> decode_state_file(const std::string& path, span<const unsigned char> bytes,
                                                      const server::limits& lim);
std::unique_ptr<server::aggregator> load_state(const std::string& path, const server::limits& lim);
// Returns the number of bytes written.
uint64_t save_state(const server::aggregator& agg, const std::string& path);

// "olh (d=1000 g=8), epsilon 1.9999 implemented, fingerprint 0x..." for summaries.
std::string describe_state(const server::aggregator& agg);

}  // namespace ldp::tools

#endif
