#include "state_io.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "block_text.h"
#include "errors.h"
#include "files.h"
#include "ldp/base/bits.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/peek.h"
#include "ldp/wire/state.h"

namespace ldp::tools {

void add_max_state_bytes_option(CLI::App& app, uint64_t* bytes, const char* help) {
  *bytes = server::limits{}.max_state_bytes;
  app.add_option("--max-state-bytes", *bytes, fmt::format("{} (default 1 GiB = {})", help, *bytes));
}

std::vector<unsigned char> read_state_file(const std::string& path, const server::limits& lim) {
  input_file in(path, "state file");
  std::vector<unsigned char> bytes;
  in.read_append(wire::state_header_size, bytes);
  wire::header_info info;
  const status s = wire::peek_header(bytes, &info);
  if (info.kind == wire::file_kind::batch) {
    fail("{} is a batch, not an aggregator state: count it with ldp aggregate first", path);
  }
  if (s != status::ok || info.kind != wire::file_kind::state) {
    fail("{} is not a readable aggregator state: {}", path, describe(s != status::ok ? s : status::malformed_report));
  }
  uint64_t size = 0;
  if (!checked_add(uint64_t{info.header_size}, info.body_size, &size) || size > lim.max_state_bytes) {
    fail("{} is not loaded: its header states a body of {} bytes, above --max-state-bytes {}: {}", path, info.body_size,
         lim.max_state_bytes, describe(status::limit_exceeded));
  }
  // In pieces, so a header that claims more than the file holds costs only what is there.
  constexpr uint64_t piece = uint64_t{1} << 20;
  bytes.reserve(static_cast<std::size_t>(std::min(size, std::max(in.size(), piece))));
  while (bytes.size() < size) {
    const std::size_t want = static_cast<std::size_t>(std::min(piece, size - bytes.size()));
    if (in.read_append(want, bytes) < want) break;
  }
  std::vector<unsigned char> extra;
  if (bytes.size() < size || in.read_append(1, extra) != 0) {
    fail("{} is not a readable aggregator state: {} (its header states {} bytes of body)", path,
         describe(status::wrong_length), info.body_size);
  }
  return bytes;
}

std::unique_ptr<server::aggregator> decode_state_file(const std::string& path, span<const unsigned char> bytes,
                                                      const server::limits& lim) {
  std::unique_ptr<server::aggregator> agg;
  const status s = server::aggregator::deserialize(bytes, lim, &agg);
  if (s == status::limit_exceeded) {
    fail("{} is not loaded: its aggregator needs more than --max-state-bytes {}: {}", path, lim.max_state_bytes,
         describe(s));
  }
  if (s != status::ok) fail("{} is not a readable aggregator state: {}", path, describe(s));
  return agg;
}

std::unique_ptr<server::aggregator> load_state(const std::string& path, const server::limits& lim) {
  const std::vector<unsigned char> bytes = read_state_file(path, lim);
  return decode_state_file(path, bytes, lim);
}

uint64_t save_state(const server::aggregator& agg, const std::string& path) {
  const std::vector<unsigned char> bytes = agg.serialize();
  if (bytes.empty()) fail("cannot serialize the aggregator state for {}: out of memory", path);
  write_file_atomically(path, "state file", bytes);
  return bytes.size();
}

std::string describe_state(const server::aggregator& agg) {
  const wire::params& p = agg.parameters();
  const std::string epsilon = describe_epsilon(p);
  // Central-DP blocks carry no epsilon: their devices add no noise, the server's release spends it.
  const std::string privacy = epsilon.empty() ? "central DP (exact sums, no device noise)" : epsilon;
  return fmt::format("{} ({}), {}, fingerprint {:016x}", wire::mechanism_name(p.mech), describe_block(p), privacy,
                     agg.fingerprint());
}

}  // namespace ldp::tools
