#include "state_io.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "errors.h"
#include "files.h"
#include "ldp/wire/batch.h"
#include "ldp/wire/oracle_params.h"
#include "block_text.h"

namespace ldp::tools {

std::unique_ptr<server::aggregator> load_state(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file(path, "state file");
  if (bytes.size() >= 4 && std::equal(wire::batch_magic, wire::batch_magic + 4, bytes.begin())) {
    fail("{} is a batch, not an aggregator state: count it with ldp aggregate first", path);
  }
  std::unique_ptr<server::aggregator> agg;
  const status s = server::aggregator::deserialize(bytes, &agg);
  if (s != status::ok) fail("{} is not a readable aggregator state: {}", path, describe(s));
  return agg;
}

uint64_t save_state(const server::aggregator& agg, const std::string& path) {
  const std::vector<unsigned char> bytes = agg.serialize();
  if (bytes.empty()) fail("cannot serialize the aggregator state for {}: out of memory", path);
  write_file_atomically(path, "state file", bytes);
  return bytes.size();
}

std::string describe_state(const server::aggregator& agg) {
  const wire::params& p = agg.parameters();
  const double epsilon = wire::implemented_epsilon(p);
  // Central-DP blocks carry no epsilon: their devices add no noise, the server's release spends it.
  const std::string privacy = std::isnan(epsilon) ? "central DP (exact sums, no device noise)"
                                                  : fmt::format("epsilon {:.15g} implemented", epsilon);
  return fmt::format("{} ({}), {}, fingerprint {:016x}", wire::mechanism_name(p.mech), describe_block(p), privacy,
                     agg.fingerprint());
}

}  // namespace ldp::tools
