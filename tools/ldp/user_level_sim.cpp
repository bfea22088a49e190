#include "user_level_sim.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "batch_io.h"
#include "block_text.h"
#include "datasets.h"
#include "errors.h"
#include "estimates.h"
#include "files.h"
#include "fleet.h"
#include "kent_sparse_sim.h"
#include "ldp/server/user_level.h"
#include "mechanism_options.h"
#include "output.h"
#include "randomizers.h"
#include "seeding.h"
#include "truth.h"

namespace ldp::tools {
namespace {

// The smallest alpha the protocol accepts with everything else of `config` fixed, for the refusal
// of a tiny --epsilon (issue 21); "" when a larger one would not help either.
std::string protocol_epsilon_hint(const server::user_level_config& config) {
  return smallest_epsilon_hint(config.alpha, [&](double alpha) {
    server::user_level_config at = config;
    at.alpha = alpha;
    server::user_level_protocol probe;
    return server::user_level_protocol::create(at, &probe) == status::ok;
  });
}

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

// PATH with ".fold<f>" before its extension (kent.ldpb -> kent.fold3.ldpb).
std::string fold_path(const std::string& path, uint32_t fold) { return indexed_path(path, "fold", fold); }

// M3's data must lie in the l2 ball of radius R (C.1): each observation (d consecutive reals) is
// projected onto it, x -> x R / |x|_2 when |x|_2 > R. The synthetic data are generated per
// coordinate in [lo, hi] / sqrt(d), so they are inside already; CSV rows may be clipped.
class ball_view final : public dataset {
 public:
  ball_view(const dataset& data, uint32_t d, double radius)
      : dataset(data.devices(), data.width()), data_(data), d_(d), radius_(radius) {}
  void values(uint64_t device, span<double> out) const override {
    data_.values(device, out);
    for (std::size_t t = 0; t + d_ <= out.size(); t += d_) {
      double norm2 = 0;
      for (std::size_t j = 0; j < d_; ++j) norm2 += out[t + j] * out[t + j];
      const double norm = std::sqrt(norm2);
      if (norm <= radius_) continue;
      for (std::size_t j = 0; j < d_; ++j) out[t + j] *= radius_ / norm;
    }
  }

 private:
  const dataset& data_;
  std::size_t d_;
  double radius_;
};

}  // namespace

truth_table vector_truth(const dataset& data, uint32_t d, uint32_t used, double lo, double hi) {
  truth_table t;
  t.means = true;
  std::vector<long double> sums(d);
  std::vector<double> x(data.width());
  for (uint64_t u = 0; u < data.devices(); ++u) {
    data.values(u, x);
    for (uint32_t j = 0; j < d; ++j) {
      long double local = 0;
      for (uint32_t k = 0; k < used; ++k) local += std::clamp(x[std::size_t{k} * d + j], lo, hi);
      sums[j] += local / used;
    }
  }
  for (long double s : sums) t.values.push_back(static_cast<double>(s / static_cast<long double>(data.devices())));
  return t;
}

std::unique_ptr<server::aggregator> run_vote_round(const parameter_block& vote, const dataset& voters, uint64_t seed,
                                                   const std::string& out, const user_level_run& r,
                                                   const std::string& bar) {
  std::unique_ptr<server::aggregator> votes;
  const status s = server::aggregator::create(vote.params, &votes);
  if (s != status::ok) fail("internal: no aggregator for the vote block: {}", describe(s));
  batch_aggregator ingest(*votes, vote.params);
  const auto sink = [&](span<const unsigned char> chunks, uint64_t) { ingest.add(chunks); };
  if (!out.empty()) {
    simulate_to_file(out, vote, voters, seed, seed_purpose::vote_block, r.threads, r.bar(bar), sink);
  } else {
    run_fleet(vote, voters, seed, seed_purpose::vote_block, r.threads, sink);
  }
  return votes;
}

fold_run run_folds(const server::user_level_protocol& protocol, const dataset& data, const tool_mechanism& mech,
                   const user_level_run& r, const char* unit) {
  const uint32_t folds = protocol.folds();
  std::vector<std::vector<uint64_t>> voters(folds), refiners(folds);
  for (uint64_t u = 0; u < data.devices(); ++u) {
    const server::user_assignment a = protocol.assign(u);
    (a.round == 1 ? voters : refiners)[a.fold].push_back(u);
  }

  fold_run run;
  run.refine_states.resize(folds);
  for (uint32_t f = 0; f < folds; ++f) {
    const uint64_t seed = fold_seed_of(r.seed, f);
    wire::params refine = protocol.single_stage_block(f);
    std::string voted;
    if (protocol.two_stage()) {
      const parameter_block vote = block_of(protocol.vote_block(f), mech);
      const std::unique_ptr<server::aggregator> votes =
          run_vote_round(vote, *subset(data, voters[f]), seed, r.round1_out.empty() ? "" : fold_path(r.round1_out, f),
                         r, fmt::format("fold {} round 1", f));
      const status built = protocol.refine_block(f, *votes, &refine);
      if (built != status::ok) fail("internal: no round-2 block from the votes: {}", describe(built));
      run.epsilon_impl = std::max(run.epsilon_impl, vote.epsilon_impl);
      voted = fmt::format("{} voted for {}, ", format_count(voters[f].size()), interval_of(refine));
    }
    const parameter_block block = block_of(refine, mech);
    run.epsilon_impl = std::max(run.epsilon_impl, block.epsilon_impl);
    const status s = server::aggregator::create(block.params, &run.refine_states[f]);
    if (s != status::ok) fail("internal: no aggregator for the refine block: {}", describe(s));
    batch_aggregator ingest(*run.refine_states[f], block.params);
    const std::unique_ptr<dataset> refining = subset(data, refiners[f]);
    const std::string out = fold_path(r.out, f);
    const simulated_batch batch = simulate_to_file(
        out, block, *refining, seed, seed_purpose::device_block, r.threads, r.bar(fmt::format("fold {}", f)),
        [&](span<const unsigned char> chunks, uint64_t) { ingest.add(chunks); });
    run.reports += run.refine_states[f]->reports();
    run.fingerprints.push_back(fmt::format("{:016x}", block.fingerprint));
    fmt::print(r.log, "fold {} ({} {}): {}{} refine; wrote {}: {}\n", f, unit,
               block.params.get(wire::field::fold_coordinate), voted, format_count(refiners[f].size()), out,
               format_bytes(batch.bytes));
  }

  return run;
}

namespace {

// M2 (--ball linf) and M3 (--ball l2) for --dim d > 1: every fold's two rounds in memory, fold f's
// batches in fold_path(--out, f) (and fold_path(--round1-out, f)), the d estimates combined by the
// protocol, printed and written to --release-out as ldp estimate's JSON.
void simulate_folds(const mechanism_options& m, const user_level_run& r, const tool_mechanism& mech, double lo,
                    double hi) {
  const uint32_t d = m.dim;
  const bool l2 = m.ball == "l2";
  if (l2 && lo != -hi) fail("--ball l2 needs --range -R:R (R the l2 radius of the observations), got '{}'", m.range);
  if (!l2 && given(m, "--public-seed")) fail("--public-seed applies to kent with --ball l2 only (the rotation)");
  // The T d reals of a user are one dataset row (a uint32 width), held per worker thread.
  if (uint64_t{d} * m.observations > (uint64_t{1} << 24)) {
    fail("--dim {} times --observations {} is above 2^24 reals per user", d, m.observations);
  }
  const double scale = l2 ? 1 / std::sqrt(static_cast<double>(d)) : 1;
  data_shape shape;
  shape.input = input_kind::observations;
  shape.dim = d * m.observations;
  shape.lo = lo * scale;
  shape.hi = hi * scale;
  const std::unique_ptr<dataset> source = run_dataset(r, shape);
  const std::unique_ptr<dataset> clipped = l2 ? std::make_unique<ball_view>(*source, d, hi) : nullptr;
  const dataset& data = l2 ? *clipped : *source;

  server::user_level_config config;
  config.method = l2 ? server::user_level_method::m3 : server::user_level_method::m2;
  config.plan = plan_of(m.plan);
  config.alpha = m.epsilon;
  config.users = data.devices();
  config.observations = m.observations;
  config.cap = m.cap;
  config.frac_bits = m.frac_bits;
  config.lo = lo;
  config.hi = hi;
  config.dimension = d;
  if (l2) derive_seed(m.public_seed, seed_purpose::rotation_seed, 0, config.rotation_seed);
  server::user_level_protocol protocol;
  const status created = server::user_level_protocol::create(config, &protocol);
  if (created != status::ok) {
    fail(
        "cannot set up the kent protocol ({}) for {} users, --dim {}, --observations {}, --range {}, --epsilon {}: "
        "{}{}",
        l2 ? "M3" : "M2", data.devices(), d, m.observations, m.range, m.epsilon, describe(created),
        protocol_epsilon_hint(config));
  }
  if (!protocol.two_stage() && !r.round1_out.empty()) fail("--round1-out: the single-stage plan has no round 1");
  const uint32_t folds = protocol.folds();
  fmt::print(
      r.log, "kent ({}): {} users with {} observations of {} reals each ({}), epsilon {} per user, data {}, seed {}\n",
      l2 ? "M3, l2 ball, rotated" : "M2, l-infinity ball", format_count(data.devices()), m.observations, d,
      l2 ? fmt::format("radius {:g}", hi) : fmt::format("each in [{:g}, {:g}]", lo, hi), m.epsilon, r.data, r.seed);
  fmt::print(r.log,
             "plan: {} (predicted error per coordinate {:.4g} two-stage, {:.4g} single-stage); T~ = {} observations "
             "used; {} folds{}\n",
             protocol.two_stage() ? "two stages" : "single stage", protocol.predicted_error(true),
             protocol.predicted_error(false), protocol.used_observations(), folds,
             l2 ? fmt::format(" (d~ = {} rotated coordinates)", folds) : std::string());
  if (protocol.two_stage()) {
    fmt::print(r.log, "round 1: each fold's voters vote over {} cells of width {:g} (kent-vote)\n", protocol.cells(),
               protocol.cell_width());
  }

  fold_run run = run_folds(protocol, data, mech, r, l2 ? "rotated coordinate" : "coordinate");
  std::vector<std::unique_ptr<server::aggregator>>& refine_states = run.refine_states;
  const double epsilon_impl = run.epsilon_impl;
  const uint64_t reports = run.reports;
  const nlohmann::ordered_json& fingerprints = run.fingerprints;

  const double confidence = 0.95;
  std::vector<const server::aggregator*> states;
  for (const auto& s : refine_states) states.push_back(s.get());
  std::vector<server::estimate> all;
  const status estimated = protocol.estimate_all(states, confidence, &all);
  if (estimated != status::ok) fail("internal: the protocol cannot combine the folds: {}", describe(estimated));
  estimate_report report = make_estimate_report(std::move(all), true, confidence, 0);
  release_summary summary;
  summary.epsilon_impl = epsilon_impl;
  summary.text = fmt::format(
      "kent {}: each user sends one report in one of {} folds, epsilon {:.15g} implemented "
      "(the largest over the folds' blocks); intervals conditional on the users' local means",
      l2 ? "M3" : "M2", folds, epsilon_impl);
  summary.details = {{"kind", "kent"},
                     {"method", l2 ? "M3" : "M2"},
                     {"dim", d},
                     {"folds", folds},
                     {"two_stage", protocol.two_stage()},
                     {"used_observations", protocol.used_observations()},
                     {"users", data.devices()},
                     {"fold_fingerprints", fingerprints}};
  report.release = std::move(summary);
  if (!r.truth_out.empty()) {
    truth_table truth = vector_truth(data, d, protocol.used_observations(), lo, hi);
    write_truth(r.truth_out, truth);
    attach_truth(report, std::move(truth));
    fmt::print(r.log, "wrote {}: the exact answer (the mean local mean of all users, per coordinate)\n", r.truth_out);
  }
  if (!r.release_out.empty()) {
    // estimate's object for fold 0's state, with the totals of all folds: "parameters" and
    // "fingerprint" are fold 0's block, "release" lists every fold's fingerprint.
    nlohmann::ordered_json j = estimate_json(*refine_states[0], report);
    j["reports"] = reports;
    atomic_output out(r.release_out, "release file");
    out.write(j.dump(2) + "\n");
    out.commit();
    fmt::print(r.log, "wrote {}: the estimates as ldp estimate's JSON\n", r.release_out);
  }
  fmt::print(r.log, "{}\nreports: {} accepted\n", report.release->text, format_count(reports));
  print_estimate_table(stdout, report);
}

// M5's observations on [0, 1] (C.1 M5): x -> (x - lo) / (hi - lo), clamped, for data on [lo, hi].
class unit_view final : public dataset {
 public:
  unit_view(const dataset& data, double lo, double hi)
      : dataset(data.devices(), data.width()), data_(data), lo_(lo), width_(hi - lo) {}
  void values(uint64_t device, span<double> out) const override {
    data_.values(device, out);
    for (double& x : out) x = std::clamp((x - lo_) / width_, 0.0, 1.0);
  }

 private:
  const dataset& data_;
  double lo_, width_;
};

// --density: Kent M5 on the observations' range [lo, hi] mapped to [0, 1], every fold's two rounds
// in memory (run_folds), the k - 1 feature estimates printed, then the density in real units
// (f-hat((y - lo) / W) / W at y = lo + x W, the 100 midpoints x of [0, 1]) with its 95% intervals
// and the clip-and-renormalize post-processing; --release-out writes them as ldp estimate's JSON
// with a "density" array.
void simulate_density(const mechanism_options& m, const user_level_run& r, const tool_mechanism& mech, double lo,
                      double hi) {
  if (given(m, "--dim") || !m.ball.empty() || given(m, "--public-seed")) {
    fail("--density (Kent M5) takes no --dim, --ball or --public-seed: the folds are the basis functions");
  }
  if (!r.truth_out.empty()) fail("--truth-out does not apply to kent --density");
  data_shape shape;
  shape.input = input_kind::observations;
  shape.dim = m.observations;
  shape.lo = lo;
  shape.hi = hi;
  const std::unique_ptr<dataset> source = run_dataset(r, shape);
  const unit_view data(*source, lo, hi);

  server::user_level_config config;
  config.method = server::user_level_method::m5;
  config.plan = plan_of(m.plan);
  config.alpha = m.epsilon;
  config.users = data.devices();
  config.observations = m.observations;
  config.cap = m.cap;
  config.frac_bits = m.frac_bits;
  server::user_level_protocol protocol;
  const status created = server::user_level_protocol::create(config, &protocol);
  if (created != status::ok) {
    fail("cannot set up the kent protocol (M5) for {} users, --observations {}, --epsilon {}: {}{}", data.devices(),
         m.observations, m.epsilon, describe(created), protocol_epsilon_hint(config));
  }
  if (!protocol.two_stage() && !r.round1_out.empty()) fail("--round1-out: the single-stage plan has no round 1");
  const uint32_t k = protocol.config().basis_size;
  fmt::print(r.log,
             "kent (M5, density): {} users with {} observations each in [{:g}, {:g}], epsilon {} per user, data {}, "
             "seed {}\n",
             format_count(data.devices()), m.observations, lo, hi, m.epsilon, r.data, r.seed);
  fmt::print(r.log,
             "basis: k = {} trigonometric functions (rule of docs/mechanisms.md C.1 M5, beta {:g}, C {:g}), {} folds; "
             "plan: {}; T~ = {} observations used\n",
             k, config.smoothness, config.basis_constant, protocol.folds(),
             protocol.two_stage() ? "two stages" : "single stage", protocol.used_observations());
  fold_run run = run_folds(protocol, data, mech, r, "feature");

  const double confidence = 0.95;
  std::vector<const server::aggregator*> states;
  for (const auto& s : run.refine_states) states.push_back(s.get());
  std::vector<server::estimate> features;
  const status estimated = protocol.estimate_all(states, confidence, &features);
  if (estimated != status::ok) fail("internal: the protocol cannot combine the folds: {}", describe(estimated));
  constexpr uint32_t points = 100;
  std::vector<server::density_point> density, clipped;
  if (protocol.density(features, points, confidence, false, &density) != status::ok ||
      protocol.density(features, points, confidence, true, &clipped) != status::ok) {
    fail("internal: no density from the features");
  }
  const double width = hi - lo;
  nlohmann::ordered_json points_json = nlohmann::ordered_json::array();
  for (uint32_t i = 0; i < points; ++i) {
    points_json.push_back({{"x", lo + density[i].x * width},
                           {"value", density[i].value / width},
                           {"ci_low", density[i].ci_low / width},
                           {"ci_high", density[i].ci_high / width},
                           {"clipped", clipped[i].value / width}});
  }
  estimate_report report = make_estimate_report(std::move(features), true, confidence, 0);
  release_summary summary;
  summary.epsilon_impl = run.epsilon_impl;
  summary.text = fmt::format(
      "kent M5: each user sends one report in one of {} folds (feature j: cos or sin of 2 pi (j / 2 + 1) x), "
      "epsilon {:.15g} implemented (the largest over the folds' blocks); intervals conditional on the users' local "
      "means, without the truncation bias of k = {}",
      protocol.folds(), run.epsilon_impl, k);
  summary.details = {{"kind", "kent"},
                     {"method", "M5"},
                     {"basis_size", k},
                     {"range", {lo, hi}},
                     {"folds", protocol.folds()},
                     {"two_stage", protocol.two_stage()},
                     {"used_observations", protocol.used_observations()},
                     {"users", data.devices()},
                     {"fold_fingerprints", run.fingerprints}};
  report.release = std::move(summary);
  if (!r.release_out.empty()) {
    nlohmann::ordered_json j = estimate_json(*run.refine_states[0], report);
    j["reports"] = run.reports;
    j["density"] = points_json;
    atomic_output out(r.release_out, "release file");
    out.write(j.dump(2) + "\n");
    out.commit();
    fmt::print(r.log, "wrote {}: the features and the density as ldp estimate's JSON\n", r.release_out);
  }
  fmt::print(r.log, "{}\nreports: {} accepted\n", report.release->text, format_count(run.reports));
  print_estimate_table(stdout, report);
  fmt::print(stdout, "density ({}% intervals; clipped: clip and renormalize), every 5th of {} points:\n",
             confidence * 100, points);
  fmt::print(stdout, "{:>12} {:>12} {:>12} {:>12} {:>12}\n", "x", "density", "ci_low", "ci_high", "clipped");
  for (uint32_t i = 2; i < points; i += 5) {
    const auto& p = points_json[i];
    fmt::print(stdout, "{:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g}\n", p["x"].get<double>(),
               p["value"].get<double>(), p["ci_low"].get<double>(), p["ci_high"].get<double>(),
               p["clipped"].get<double>());
  }
}

}  // namespace

std::unique_ptr<dataset> run_dataset(const user_level_run& r, const data_shape& shape) {
  return r.values.empty() ? make_dataset(r.data, shape, r.devices) : value_array(r.values, shape);
}

void simulate_user_level(const mechanism_options& m, const user_level_run& r) {
  const tool_mechanism& mech = checked_mechanism(m);
  double lo = 0, hi = 0;
  parse_range(m.range, &lo, &hi);
  if (m.observations < 1) fail("--observations must be at least 1, got {}", m.observations);
  if (m.frac_bits > 62) fail("--frac-bits must be at most 62, got {}", m.frac_bits);
  if (given(m, "--dim") && m.dim < 1) fail("--dim must be at least 1, got {}", m.dim);
  if (given(m, "--sparse-method") && m.sparse == 0) fail("--sparse-method applies to kent --sparse s only");
  if (m.sparse > 0) return simulate_kent_sparse(m, r, mech, lo, hi);  // M4 (C.1)
  if (m.density) return simulate_density(m, r, mech, lo, hi);
  if (m.dim > 1) return simulate_folds(m, r, mech, lo, hi);
  if (!m.ball.empty()) fail("--ball applies to kent with --dim d > 1 only");
  if (given(m, "--public-seed")) fail("--public-seed applies to kent with --dim d > 1 --ball l2 only");
  if (!r.release_out.empty()) fail("--release-out applies to kent with --dim d > 1 only (M1 writes a batch)");
  data_shape shape;
  shape.input = input_kind::observations;
  shape.dim = m.observations;
  shape.lo = lo;
  shape.hi = hi;
  const std::unique_ptr<dataset> data = run_dataset(r, shape);

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
    fail("cannot set up the kent protocol for {} users, --observations {}, --range {}, --epsilon {}: {}{}",
         data->devices(), m.observations, m.range, m.epsilon, describe(created), protocol_epsilon_hint(config));
  }
  std::vector<uint64_t> voters, refiners;
  for (uint64_t u = 0; u < data->devices(); ++u) (protocol.assign(u).round == 1 ? voters : refiners).push_back(u);

  fmt::print(r.log, "kent (M1): {} users with {} observations each, epsilon {} per user, data {}, seed {}\n",
             format_count(data->devices()), m.observations, m.epsilon, r.data, r.seed);
  fmt::print(r.log, "plan: {} (predicted error {:.4g} two-stage, {:.4g} single-stage); T~ = {} observations used\n",
             protocol.two_stage() ? "two stages" : "single stage", protocol.predicted_error(true),
             protocol.predicted_error(false), protocol.used_observations());

  wire::params refine = protocol.single_stage_block(0);
  if (protocol.two_stage()) {
    const parameter_block vote = block_of(protocol.vote_block(0), mech);
    const std::unique_ptr<server::aggregator> votes =
        run_vote_round(vote, *subset(*data, voters), r.seed, r.round1_out, r, "round 1");
    const status built = protocol.refine_block(0, *votes, &refine);
    if (built != status::ok) fail("internal: no round-2 block from the votes: {}", describe(built));
    fmt::print(r.log, "round 1: {} users vote over {} cells of width {:g} (kent-vote, epsilon {:.15g} implemented){}\n",
               format_count(voters.size()), protocol.cells(), protocol.cell_width(), vote.epsilon_impl,
               r.round1_out.empty() ? "" : ", batch " + r.round1_out);
    fmt::print(r.log, "         the votes chose the broadcast interval {}\n", interval_of(refine));
  } else if (!r.round1_out.empty()) {
    fail("--round1-out: the single-stage plan has no round 1");
  }

  const parameter_block block = block_of(refine, mech);
  const std::unique_ptr<dataset> refining = subset(*data, refiners);
  const simulated_batch batch = simulate_to_file(r.out, block, *refining, r.seed, seed_purpose::device_block, r.threads,
                                                 r.bar(protocol.two_stage() ? "round 2" : "simulate"));
  fmt::print(r.log,
             "{}: {} users report their local mean clamped to {} with discrete Laplace noise (kent-refine, epsilon "
             "{:.15g} implemented)\n",
             protocol.two_stage() ? "round 2" : "single stage", format_count(refiners.size()), interval_of(refine),
             block.epsilon_impl);
  fmt::print(r.log, "wrote {}: {}, parameter fingerprint {:016x} (its state estimates the mean)\n", r.out,
             format_bytes(batch.bytes), block.fingerprint);
  if (!r.truth_out.empty()) {
    write_truth(r.truth_out, truth_of(block, *data));
    fmt::print(r.log, "wrote {}: the exact answer (the mean local mean of all users)\n", r.truth_out);
  }
}

}  // namespace ldp::tools
