#include "kent_sparse_sim.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "batch_io.h"
#include "datasets.h"
#include "errors.h"
#include "estimates.h"
#include "files.h"
#include "fleet.h"
#include "ldp/server/kent_sparse.h"
#include "output.h"
#include "seeding.h"
#include "truth.h"

namespace ldp::tools {
namespace {

server::sparse_method method_of(const std::string& name) {
  if (name == "select") return server::sparse_method::select;
  if (name == "threshold") return server::sparse_method::threshold;
  return server::sparse_method::choose;
}

std::vector<const server::aggregator*> views_of(const std::vector<std::unique_ptr<server::aggregator>>& states) {
  std::vector<const server::aggregator*> views;
  for (const auto& s : states) views.push_back(s.get());
  return views;
}

}  // namespace

void simulate_kent_sparse(const mechanism_options& m, const user_level_run& r, const tool_mechanism& mech, double lo,
                          double hi) {
  const uint32_t d = m.dim;
  if (d < 2) fail("--sparse needs --dim d >= 2, got {}", d);
  if (m.sparse > d) fail("--sparse must be in [1, --dim], got {}", m.sparse);
  if (m.ball == "l2") fail("--sparse takes the l-infinity shape (M2 folds), not --ball l2");
  if (given(m, "--plan") || given(m, "--public-seed")) fail("--plan and --public-seed do not apply to --sparse");
  if (m.density) fail("--density (M5) and --sparse (M4) are different protocols: give one");
  if (uint64_t{d} * m.observations > (uint64_t{1} << 24)) {
    fail("--dim {} times --observations {} is above 2^24 reals per user", d, m.observations);
  }
  data_shape shape;
  shape.input = input_kind::observations;
  shape.dim = d * m.observations;
  shape.lo = lo;
  shape.hi = hi;
  const std::unique_ptr<dataset> data = run_dataset(r, shape);

  server::kent_sparse_config config;
  config.method = method_of(m.sparse_method);
  config.alpha = m.epsilon;
  config.users = data->devices();
  config.observations = m.observations;
  config.cap = m.cap;
  config.frac_bits = m.frac_bits;
  config.lo = lo;
  config.hi = hi;
  config.dimension = d;
  config.sparsity = m.sparse;
  server::kent_sparse_protocol protocol;
  const status created = server::kent_sparse_protocol::create(config, &protocol);
  if (created != status::ok) {
    fail("cannot set up kent --sparse {} (M4) for {} users, --dim {}, --observations {}, --range {}, --epsilon {}: {}",
         m.sparse, data->devices(), d, m.observations, m.range, m.epsilon, describe(created));
  }
  fmt::print(r.log,
             "kent (M4, {}-sparse mean): {} users with {} observations of {} reals each in [{:g}, {:g}], "
             "epsilon {} per user, data {}, seed {}\n",
             m.sparse, format_count(data->devices()), m.observations, d, lo, hi, m.epsilon, r.data, r.seed);
  fmt::print(r.log, "method: {} (predicted squared l2 error {:.4g} select, {:.4g} threshold; the support vote is {})\n",
             protocol.selects() ? "M4a, support selection" : "M4b, thresholded M2", protocol.predicted_error(true),
             protocol.predicted_error(false), protocol.vote_reliable() ? "reliable" : "not reliable");

  // --round1-out takes M4a's support vote, so the M2 folds keep their round 1 in memory.
  user_level_run folds_run = r;
  folds_run.round1_out.clear();
  double epsilon_impl = 0;
  uint32_t used = m.observations;  // T~ of the M2 folds that ran, for the exact answer
  std::vector<server::estimate> all;
  std::vector<std::unique_ptr<server::aggregator>> states;
  const double confidence = 0.95;
  if (protocol.selects()) {
    std::vector<uint64_t> voters, others;
    for (uint64_t u = 0; u < data->devices(); ++u) (u < protocol.voters() ? voters : others).push_back(u);
    const parameter_block vote = block_of(protocol.support_block(), mech);
    epsilon_impl = vote.epsilon_impl;
    const std::unique_ptr<server::aggregator> votes =
        run_vote_round(vote, *subset(*data, voters), r.seed, r.round1_out, r, "support vote");
    std::vector<uint32_t> selected;
    const status chosen = protocol.select(*votes, &selected);
    if (chosen != status::ok) fail("internal: no selection from the votes: {}", describe(chosen));
    fmt::print(r.log,
               "round 1: {} users vote for their coordinates with |local mean| >= tau = {:g} (kent-support, "
               "epsilon {:.15g} implemented); selected: [{}]\n",
               format_count(voters.size()), protocol.threshold(), vote.epsilon_impl, fmt::join(selected, ", "));
    server::user_level_protocol stage;
    if (!selected.empty()) {
      const status staged = protocol.stage(selected, &stage);
      if (staged != status::ok) fail("internal: no M2 stage on the selection: {}", describe(staged));
      const std::unique_ptr<dataset> stage_users = subset(*data, others);  // the stage's user v is others[v]
      fold_run run = run_folds(stage, *stage_users, mech, folds_run, "coordinate");
      epsilon_impl = std::max(epsilon_impl, run.epsilon_impl);
      states = std::move(run.refine_states);
      used = stage.used_observations();
    }
    const std::vector<const server::aggregator*> views = views_of(states);
    const status estimated =
        protocol.estimate_selected(selected, selected.empty() ? nullptr : &stage, views, confidence, &all);
    if (estimated != status::ok) fail("internal: no estimates: {}", describe(estimated));
  } else {
    fold_run run = run_folds(protocol.dense(), *data, mech, folds_run, "coordinate");
    epsilon_impl = run.epsilon_impl;
    states = std::move(run.refine_states);
    used = protocol.dense().used_observations();
    const std::vector<const server::aggregator*> views = views_of(states);
    const status estimated = protocol.estimate_thresholded(views, confidence, &all);
    if (estimated != status::ok) fail("internal: no estimates: {}", describe(estimated));
  }

  estimate_report report = make_estimate_report(std::move(all), true, confidence, 0);
  release_summary summary;
  summary.epsilon_impl = epsilon_impl;
  summary.text = fmt::format(
      "kent M4 ({}): each user sends one report, epsilon {:.15g} implemented (the largest over the blocks); "
      "coordinates outside the {} are 0",
      protocol.selects() ? "M4a" : "M4b", epsilon_impl, protocol.selects() ? "selection" : "kept set");
  summary.details = {{"kind", "kent"},
                     {"method", protocol.selects() ? "M4a" : "M4b"},
                     {"dim", d},
                     {"sparsity", m.sparse},
                     {"users", data->devices()}};
  report.release = std::move(summary);
  if (!r.truth_out.empty()) {
    truth_table truth = vector_truth(*data, d, used, lo, hi);
    write_truth(r.truth_out, truth);
    attach_truth(report, std::move(truth));
    fmt::print(r.log, "wrote {}: the exact answer (the mean local mean of all users, per coordinate)\n", r.truth_out);
  }
  if (!r.release_out.empty()) {
    if (states.empty()) fail("--release-out: nothing was selected, no state to describe");
    nlohmann::ordered_json j = estimate_json(*states[0], report);
    atomic_output out(r.release_out, "release file");
    out.write(j.dump(2) + "\n");
    out.commit();
    fmt::print(r.log, "wrote {}: the estimates as ldp estimate's JSON\n", r.release_out);
  }
  fmt::print(r.log, "{}\n", report.release->text);
  print_estimate_table(stdout, report);
}

}  // namespace ldp::tools
