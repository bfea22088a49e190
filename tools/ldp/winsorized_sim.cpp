#include "winsorized_sim.h"

#include <cmath>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "batch_io.h"
#include "block_text.h"
#include "central_release.h"
#include "datasets.h"
#include "errors.h"
#include "estimates.h"
#include "files.h"
#include "fleet.h"
#include "ldp/random/drbg.h"
#include "ldp/server/winsorized.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/numeric_params.h"
#include "output.h"
#include "randomizers.h"
#include "seeding.h"

namespace ldp::tools {
namespace {

using wire::field;

int64_t fixed(double x, unsigned frac_bits) {
  int64_t out = 0;
  if (wire::to_fixed(x, frac_bits, &out) != status::ok) fail("--range {} does not fit the grid of --frac-bits {}", x, frac_bits);
  return out;
}

uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

std::unique_ptr<server::aggregator> make_aggregator(const wire::params& p) {
  std::unique_ptr<server::aggregator> agg;
  const status s = server::aggregator::create(p, &agg);
  if (s != status::ok) fail("internal: no aggregator for {}: {}", wire::mechanism_name(p.mech), describe(s));
  return agg;
}

// The round-1 block: bins over [-B, B], B = d M the largest |rotated coordinate| of a mean in the
// box (|H D x|_j <= |x|_1), and bin half width tau = tau' sqrt(d~) 2^f, tau' the rotated radius of
// the users' means (rotated_tau, Hoeffding, failure probability --beta), in rotated grid units.
wire::params round1_block(const mechanism_options& m, double lo, double hi, uint64_t users) {
  const uint32_t d = m.dim;
  const int64_t lo_f = fixed(lo, m.frac_bits), hi_f = fixed(hi, m.frac_bits);
  const uint64_t range = uint64_t{d} * std::max(magnitude(lo_f), magnitude(hi_f));
  uint32_t padded = 1;
  while (padded < d) padded *= 2;
  const double tau = m.tau > 0 ? m.tau : (hi - lo) / 2 * std::sqrt(static_cast<double>(d));
  const double rotated = server::rotated_tau(tau, padded, users, m.beta, server::tau_rule::hoeffding);
  if (!std::isfinite(rotated)) fail("cannot compute the rotated radius for --tau {} --beta {}", tau, m.beta);
  const double grid = std::ceil(std::ldexp(rotated * std::sqrt(static_cast<double>(padded)), static_cast<int>(m.frac_bits)));
  const auto width = static_cast<uint64_t>(std::clamp(grid, 1.0, static_cast<double>(std::max<uint64_t>(range, 1))));
  unsigned char seed[wire::seed_size];
  derive_seed(m.public_seed, seed_purpose::rotation_seed, 0, seed);
  wire::params p;
  if (wire::make_winsorized_bins(d, m.frac_bits, lo_f, hi_f, m.observations, range, width, seed, &p) != status::ok) {
    fail("cannot build a winsorized-bins block for --dim {} --range {} --frac-bits {} (bins over [-{}, {}] of half "
         "width {} grid units): docs/wire_format.md 3.3 needs d M < 2^31, B + 3 tau < 2^31 and at most 2^24 bins; use "
         "fewer --frac-bits or a larger --tau",
         d, m.range, m.frac_bits, range, range, width);
  }
  if (p.get(field::hadamard_dim) != padded) fail("internal: the block pads d to {}, not {}", p.get(field::hadamard_dim), padded);
  return p;
}

}  // namespace

void simulate_winsorized(const mechanism_options& m, const user_level_run& r) {
  const tool_mechanism& mech = checked_mechanism(m);
  double lo = 0, hi = 0;
  parse_range(m.range, &lo, &hi);
  if (m.dim < 1) fail("--dim must be at least 1, got {}", m.dim);
  if (m.observations < 1) fail("--observations must be at least 1, got {}", m.observations);
  if (m.frac_bits > 62) fail("--frac-bits must be at most 62, got {}", m.frac_bits);
  if (!(m.beta > 0 && m.beta < 1)) fail("--beta must be in (0, 1), got {}", m.beta);
  if (!(m.tau >= 0 && std::isfinite(m.tau))) fail("--tau must be positive, got {}", m.tau);
  check_delta(m.delta);
  data_shape shape;
  shape.input = input_kind::samples;
  shape.dim = m.dim;
  shape.samples = m.observations;
  shape.lo = lo;
  shape.hi = hi;
  const std::unique_ptr<dataset> data = make_dataset(r.data, shape, r.devices);
  const uint64_t n = data->devices();

  const parameter_block round1 = block_of(round1_block(m, lo, hi, n), mech);
  const uint64_t padded = round1.params.get(field::hadamard_dim);
  // The per-coordinate budget: the tight advanced composition over d~ coordinates, or basic
  // composition eps / d~ (also valid with delta > 0) when it is larger, as it is for small d~.
  double eps_coordinate = 0;
  if (server::step_epsilon(m.epsilon, m.delta, padded, server::budget_rule::tight, &eps_coordinate) != status::ok) {
    fail("cannot split --epsilon {} --delta {} over {} rotated coordinates", m.epsilon, m.delta, padded);
  }
  const double basic_step = m.epsilon / static_cast<double>(padded);
  const bool basic = basic_step >= eps_coordinate;
  if (basic) eps_coordinate = basic_step;
  fmt::print("winsorized-mean (Levy et al., central DP): {} users with {} samples of {} reals in [{:g}, {:g}] each, "
             "epsilon {} delta {:g} per user, data {}, seed {}\n",
             format_count(n), m.observations, m.dim, lo, hi, m.epsilon, m.delta, r.data, r.seed);

  // Round 1 in memory (and in --round1-out), then the windows from the server's DRBG.
  const std::unique_ptr<server::aggregator> bins = make_aggregator(round1.params);
  {
    batch_aggregator ingest(*bins, round1.params);
    const auto sink = [&](span<const unsigned char> chunks, uint64_t) { ingest.add(chunks); };
    if (!r.round1_out.empty()) {
      simulate_to_file(r.round1_out, round1, *data, r.seed, seed_purpose::vote_block, r.threads, "round 1", sink);
    } else {
      run_fleet(round1, *data, r.seed, seed_purpose::vote_block, r.threads, sink);
    }
  }
  unsigned char key[wire::seed_size];
  derive_seed(r.seed, seed_purpose::server_noise, 0, key);
  random::drbg rng(key);
  server::window_selection windows;
  const status selected = server::select_windows(*bins, eps_coordinate, server::window_rule::safe, rng, &windows);
  if (selected != status::ok) fail("the window selection refused round 1: {}", describe(selected));
  fmt::print("round 1: {} users report the bins of their rotated mean ({}){}\n", format_count(bins->reports()),
             describe_block(round1.params), r.round1_out.empty() ? "" : ", batch " + r.round1_out);
  fmt::print("         PrivateRange chose a window of +-3 tau per rotated coordinate at epsilon {:.6g} each "
             "(of {:.6g} per coordinate, {} composition over d~ = {})\n",
             windows.epsilon_impl, eps_coordinate, basic ? "basic" : "tight advanced", padded);

  // Round 2: the same users against the broadcast window list.
  parameter_block round2 = block_of(windows.round2, mech);
  round2.windows = windows.window_list;
  const std::unique_ptr<server::aggregator> sums = make_aggregator(round2.params);
  auto* sums_agg = dynamic_cast<server::winsorized_sums_aggregator*>(sums.get());
  if (sums_agg == nullptr || sums_agg->set_windows(windows.window_list) != status::ok) {
    fail("internal: the round-2 aggregator refused the window list");
  }
  batch_aggregator ingest(*sums, round2.params);
  const simulated_batch batch =
      simulate_to_file(r.out, round2, *data, r.seed, seed_purpose::device_block, r.threads, "round 2",
                       [&](span<const unsigned char> chunks, uint64_t) { ingest.add(chunks); });
  server::winsorized_release rel;
  const status released = server::release_winsorized_mean(*sums, eps_coordinate, n, rng, &rel);
  if (released != status::ok) fail("the release refused round 2: {}", describe(released));
  fmt::print("round 2: {} users report their rotated mean clamped to its window ({})\n", format_count(sums->reports()),
             describe_block(round2.params));
  fmt::print("wrote {}: {}, parameter fingerprint {:016x} (counting it needs the window list: the release is "
             "below)\n",
             r.out, format_bytes(batch.bytes), round2.fingerprint);

  const double per_coordinate = windows.epsilon_impl + rel.epsilon_impl;
  const double total = basic ? per_coordinate * static_cast<double>(padded)
                              : server::advanced_composition(per_coordinate, padded, m.delta);
  const double confidence = 0.95;
  estimate_report report = make_estimate_report(noise_estimates(rel.mean, rel.noise_variance, confidence), true, confidence, 0);
  release_summary summary;
  summary.epsilon_impl = total;
  summary.delta = basic ? 0 : m.delta;  // basic composition of pure-DP steps is pure DP
  summary.text = fmt::format(
      "central-DP release (WinsorizedMeanHighD, discrete Laplace noise on the rotated sums, server seed from --seed "
      "{}): epsilon {:.15g} implemented, delta {:g}; intervals of the noise alone (not of the winsorization)",
      r.seed, total, summary.delta);
  summary.details = {{"kind", "winsorized-mean"},
                     {"window_rule", "safe"},
                     {"epsilon_coordinate", per_coordinate},
                     {"composition", basic ? "basic" : "advanced"},
                     {"rotated_dim", padded},
                     {"users", rel.users},
                     {"sum_noise_scale", static_cast<double>(rel.scale_num) / static_cast<double>(rel.scale_den)},
                     {"noise_variance", rel.noise_variance}};
  report.release = std::move(summary);
  if (!r.truth_out.empty()) {
    const truth_table truth = truth_of(round2, *data);
    write_truth(r.truth_out, truth);
    attach_truth(report, truth);
    fmt::print("wrote {}: the exact answer (the mean of the users' means)\n", r.truth_out);
  }
  if (!r.release_out.empty()) {
    atomic_output out(r.release_out, "release file");
    out.write(estimate_json(*sums, report).dump(2) + "\n");
    out.commit();
    fmt::print("wrote {}: the release as ldp estimate's JSON\n", r.release_out);
  }
  print_estimate_text(stdout, *sums, report);
}

}  // namespace ldp::tools
