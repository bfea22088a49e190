#include "user_level_sim.h"

#include <cmath>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "batch_io.h"
#include "block_text.h"
#include "datasets.h"
#include "errors.h"
#include "fleet.h"
#include "ldp/server/user_level.h"
#include "output.h"
#include "randomizers.h"
#include "truth.h"

namespace ldp::tools {
namespace {

server::user_level_plan plan_of(const std::string& name) {
  if (name == "two-stage") return server::user_level_plan::two_stage;
  if (name == "single-stage") return server::user_level_plan::single_stage;
  return server::user_level_plan::choose;
}

std::string interval_of(const wire::params& p) {
  const int f = static_cast<int>(p.get(wire::field::frac_bits));
  return fmt::format("[{:g}, {:g}]", std::ldexp(static_cast<double>(p.get_signed(wire::field::interval_lo)), -f),
                     std::ldexp(static_cast<double>(p.get_signed(wire::field::interval_hi)), -f));
}

}  // namespace

void simulate_user_level(const mechanism_options& m, const user_level_run& r) {
  const tool_mechanism& mech = checked_mechanism(m);
  double lo = 0, hi = 0;
  parse_range(m.range, &lo, &hi);
  if (m.observations < 1) fail("--observations must be at least 1, got {}", m.observations);
  if (m.frac_bits > 62) fail("--frac-bits must be at most 62, got {}", m.frac_bits);
  data_shape shape;
  shape.input = input_kind::observations;
  shape.dim = m.observations;
  shape.lo = lo;
  shape.hi = hi;
  const std::unique_ptr<dataset> data = make_dataset(r.data, shape, r.devices);

  server::user_level_config config;
  config.method = server::user_level_method::m1;
  config.plan = plan_of(m.plan);
  config.alpha = m.epsilon;
  config.users = data->devices();
  config.observations = m.observations;
  config.cap = m.cap;
  config.frac_bits = m.frac_bits;
  config.lo = lo;
  config.hi = hi;
  server::user_level_protocol protocol;
  const status created = server::user_level_protocol::create(config, &protocol);
  if (created != status::ok) {
    fail("cannot set up the kent protocol for {} users, --observations {}, --range {}, --epsilon {}: {}",
         data->devices(), m.observations, m.range, m.epsilon, describe(created));
  }
  std::vector<uint64_t> voters, refiners;
  for (uint64_t u = 0; u < data->devices(); ++u) (protocol.assign(u).round == 1 ? voters : refiners).push_back(u);

  fmt::print("kent (M1): {} users with {} observations each, epsilon {} per user, data {}, seed {}\n",
             format_count(data->devices()), m.observations, m.epsilon, r.data, r.seed);
  fmt::print("plan: {} (predicted error {:.4g} two-stage, {:.4g} single-stage); T~ = {} observations used\n",
             protocol.two_stage() ? "two stages" : "single stage", protocol.predicted_error(true),
             protocol.predicted_error(false), protocol.used_observations());

  wire::params refine = protocol.single_stage_block(0);
  if (protocol.two_stage()) {
    const parameter_block vote = block_of(protocol.vote_block(0), mech);
    std::unique_ptr<server::aggregator> votes;
    const status s = server::aggregator::create(vote.params, &votes);
    if (s != status::ok) fail("internal: no aggregator for the vote block: {}", describe(s));
    batch_aggregator ingest(*votes, vote.params);
    const std::unique_ptr<dataset> voting = subset(*data, voters);
    const auto sink = [&](span<const unsigned char> chunks, uint64_t) { ingest.add(chunks); };
    if (!r.round1_out.empty()) {
      simulate_to_file(r.round1_out, vote, *voting, r.seed, seed_purpose::vote_block, r.threads, "round 1", sink);
    } else {
      run_fleet(vote, *voting, r.seed, seed_purpose::vote_block, r.threads, sink);
    }
    const status built = protocol.refine_block(0, *votes, &refine);
    if (built != status::ok) fail("internal: no round-2 block from the votes: {}", describe(built));
    fmt::print("round 1: {} users vote over {} cells of width {:g} (kent-vote, epsilon {:.15g} implemented){}\n",
               format_count(voters.size()), protocol.cells(), protocol.cell_width(), vote.epsilon_impl,
               r.round1_out.empty() ? "" : ", batch " + r.round1_out);
    fmt::print("         the votes chose the broadcast interval {}\n", interval_of(refine));
  } else if (!r.round1_out.empty()) {
    fail("--round1-out: the single-stage plan has no round 1");
  }

  const parameter_block block = block_of(refine, mech);
  const std::unique_ptr<dataset> refining = subset(*data, refiners);
  const simulated_batch batch = simulate_to_file(r.out, block, *refining, r.seed, seed_purpose::device_block, r.threads,
                                                 protocol.two_stage() ? "round 2" : "simulate");
  fmt::print("{}: {} users report their local mean clamped to {} with discrete Laplace noise (kent-refine, epsilon "
             "{:.15g} implemented)\n",
             protocol.two_stage() ? "round 2" : "single stage", format_count(refiners.size()), interval_of(refine),
             block.epsilon_impl);
  fmt::print("wrote {}: {}, parameter fingerprint {:016x} (its state estimates the mean)\n", r.out,
             format_bytes(batch.bytes), block.fingerprint);
  if (!r.truth_out.empty()) {
    write_truth(r.truth_out, truth_of(block, *data));
    fmt::print("wrote {}: the exact answer (the mean local mean of all users)\n", r.truth_out);
  }
}

}  // namespace ldp::tools
