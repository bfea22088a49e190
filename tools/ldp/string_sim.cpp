#include "string_sim.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "block_text.h"
#include "errors.h"
#include "fleet.h"
#include "ldp/random/samplers.h"
#include "ldp/wire/string_params.h"
#include "output.h"
#include "seeding.h"

namespace ldp::tools {

string_dataset::string_dataset(std::vector<std::string> distinct, std::vector<uint32_t> of_device)
    : dataset(of_device.size(), 1), distinct_(std::move(distinct)), of_device_(std::move(of_device)) {}

std::vector<string_count> string_dataset::counts() const {
  std::vector<uint64_t> n(distinct_.size());
  for (uint32_t i : of_device_) ++n[i];
  std::vector<string_count> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (n[i] != 0) out.push_back({distinct_[i], n[i]});
  }
  std::sort(out.begin(), out.end(), ranks_before);
  return out;
}

std::unique_ptr<string_dataset> make_string_dataset(const std::string& spec, std::size_t max_bytes, uint64_t devices,
                                                    uint64_t seed, uint64_t* skipped) {
  if (spec.rfind("text:", 0) != 0)
    fail("the string mechanisms read --data text:FILE or text:FILE:words, got '{}'", spec);
  text_items read = read_text_items(parse_text_spec(spec.substr(5)), max_bytes);
  *skipped = read.skipped_long_words;
  if (read.items.empty()) fail("--data {} holds no strings", spec);
  if (read.items.size() > UINT32_MAX) fail("--data {} holds more than 2^32 - 1 strings", spec);
  // Each token's index among the distinct strings, in order of first appearance.
  std::vector<std::string> distinct;
  std::vector<uint32_t> token;
  token.reserve(read.items.size());
  std::unordered_map<std::string, uint32_t> index;
  for (std::string& s : read.items) {
    const auto [at, added] = index.try_emplace(s, static_cast<uint32_t>(distinct.size()));
    if (added) distinct.push_back(std::move(s));
    token.push_back(at->second);
  }
  if (devices == 0) return std::make_unique<string_dataset>(std::move(distinct), std::move(token));
  // N devices, each a uniform draw among the tokens: the text's word frequencies as a distribution.
  random::drbg rng = seeded_drbg(seed, seed_purpose::string_draw, 0);
  std::vector<uint32_t> of_device(devices);
  for (uint32_t& d : of_device) d = token[random::uniform_below64(rng, token.size())];
  return std::make_unique<string_dataset>(std::move(distinct), std::move(of_device));
}

void simulate_strings(const parameter_block& block, const user_level_run& r) {
  uint64_t skipped = 0;
  const auto length = static_cast<std::size_t>(block.params.get(wire::field::string_length));
  const std::unique_ptr<string_dataset> data = make_string_dataset(r.data, length, r.devices, r.seed, &skipped);
  const simulated_batch batch =
      simulate_to_file(r.out, block, *data, r.seed, seed_purpose::device_block, r.threads, r.bar("simulate"));
  std::FILE* log = r.log;
  fmt::print(log, "simulated {} devices: {} {}, epsilon {:.15g} implemented, data {}, seed {}\n",
             format_count(data->devices()), block.mechanism->name, describe_block(block.params), block.epsilon_impl,
             r.data, r.seed);
  if (skipped != 0) fmt::print(log, "left out {} word tokens longer than {} bytes\n", format_count(skipped), length);
  fmt::print(log, "each device sent one report in one of {} groups\n", wire::string_groups(block.params));
  fmt::print(log, "wrote {}: {}, parameter fingerprint {:016x}\n", r.out, format_bytes(batch.bytes), block.fingerprint);
  if (!r.truth_out.empty()) {
    write_string_truth(r.truth_out, data->counts());
    fmt::print(log, "wrote {}: the exact counts of the devices' strings\n", r.truth_out);
  }
  fmt::print(log, "randomize: {} ({})\n", format_seconds(batch.timing.randomize_seconds),
             format_rate(static_cast<double>(data->devices()) / batch.timing.randomize_seconds, "reports"));
}

}  // namespace ldp::tools
