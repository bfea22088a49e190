#include "winsorized_sim.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

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
#include "ldp/server/central/winsorized.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/mean_params.h"
#include "output.h"
#include "randomizers.h"
#include "seeding.h"
#include "truth.h"
#include "winsorized_session.h"

namespace ldp::tools {
namespace {

using wire::field;

int64_t fixed(double x, unsigned frac_bits) {
  int64_t out = 0;
  if (wire::to_fixed(x, frac_bits, &out) != status::ok)
    fail("--range {} does not fit the grid of --frac-bits {}", x, frac_bits);
  return out;
}

uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

std::unique_ptr<server::aggregator> make_aggregator(const wire::params& p) {
  std::unique_ptr<server::aggregator> agg;
  const status s = server::aggregator::create(p, &agg);
  if (s == status::limit_exceeded) {  // the server's default ceiling (docs/security_model.md "Memory contract")
    fail("the {} state for these options needs more than the server's {} bytes: use a larger --tau or a smaller --dim",
         wire::mechanism_name(p.mech), server::limits{}.max_state_bytes);
  }
  if (s != status::ok) fail("internal: no aggregator for {}: {}", wire::mechanism_name(p.mech), describe(s));
  return agg;
}

// The l2 radius of the users' means: --tau, or Levy et al. Cor. 1's from m, n, d and --gamma
// (server::user_mean_tau; docs/mechanisms.md C.2 "The default tau (Cor. 1)").
double users_tau(const mechanism_options& m, double lo, double hi, uint64_t users) {
  if (m.tau > 0) return m.tau;
  const double tau = server::user_mean_tau(hi - lo, m.dim, m.observations, users, m.gamma);
  if (!std::isfinite(tau)) fail("cannot compute the default --tau for --gamma {}", m.gamma);
  return tau;
}

// The round-1 block of query q: bins over [-B, B], B = d M the largest |rotated coordinate| of a
// mean in the box (|H D x|_j <= |x|_1), and bin half width tau = tau' sqrt(d~) 2^f, tau' the
// rotated radius of the users' means (rotated_tau, Hoeffding, failure probability --beta), in
// rotated grid units; the rotation signs are query q's (a fresh rotation per query, Thm 3).
wire::params round1_block(const mechanism_options& m, double lo, double hi, uint64_t users, uint32_t query) {
  const uint32_t d = m.dim;
  const int64_t lo_f = fixed(lo, m.frac_bits), hi_f = fixed(hi, m.frac_bits);
  const uint64_t range = uint64_t{d} * std::max(magnitude(lo_f), magnitude(hi_f));
  uint32_t padded = 1;
  while (padded < d) padded *= 2;
  const double tau = users_tau(m, lo, hi, users);
  const uint64_t width = server::rotated_bin_half_width(tau, padded, users, m.beta, m.frac_bits, range);
  if (width == 0) fail("cannot compute the rotated radius for --tau {} --beta {}", tau, m.beta);
  unsigned char seed[wire::seed_size];
  derive_seed(m.public_seed, seed_purpose::rotation_seed, query, seed);
  wire::params p;
  if (wire::make_winsorized_bins(d, m.frac_bits, lo_f, hi_f, m.observations, range, width, seed, &p) != status::ok) {
    fail(
        "cannot build a winsorized-bins block for --dim {} --range {} --frac-bits {} (bins over [-{}, {}] of half "
        "width {} grid units): docs/wire_format.md 3.3 needs d M < 2^31, B + 3 tau < 2^31 and at most 2^24 bins; use "
        "fewer --frac-bits or a larger --tau",
        d, m.range, m.frac_bits, range, range, width);
  }
  if (p.get(field::hadamard_dim) != padded)
    fail("internal: the block pads d to {}, not {}", p.get(field::hadamard_dim), padded);
  return p;
}

// What every query of one simulate run shares.
struct session {
  const mechanism_options& m;
  const user_level_run& r;
  const tool_mechanism& mech;
  double lo = 0, hi = 0;
  const dataset& data;
  server::winsorized_session budget;
  std::optional<truth_table> truth;
};

// The file of query q: the name itself for a single query, ".query<q>" before the extension for K.
std::string query_path(const session& s, const std::string& path, uint32_t q) {
  return path.empty() || s.budget.queries() == 1 ? path : indexed_path(path, "query", q);
}

struct query_result {
  std::unique_ptr<server::aggregator> sums;
  estimate_report report;
};

// One WinsorizedMeanHighD query over all users: round 1 in memory (and in --round1-out), the
// windows from the server's DRBG, round 2 against the broadcast list, the release.
query_result run_query(session& s, uint32_t q) {
  const mechanism_options& m = s.m;
  const user_level_run& r = s.r;
  const uint64_t n = s.data.devices();
  double eps = 0;
  if (s.budget.next_query(&eps) != status::ok)
    fail("internal: query {} beyond the session's {}", q, s.budget.queries());
  const parameter_block round1 = block_of(round1_block(m, s.lo, s.hi, n, q), s.mech);
  const std::unique_ptr<server::aggregator> bins = make_aggregator(round1.params);
  const std::string round1_out = query_path(s, r.round1_out, q);
  {
    batch_aggregator ingest(*bins, round1.params);
    const auto sink = [&](span<const unsigned char> chunks, uint64_t) { ingest.add(chunks); };
    if (!round1_out.empty()) {
      simulate_to_file(round1_out, round1, s.data, r.seed, seed_purpose::vote_block, r.threads, r.bar("round 1"), sink);
    } else {
      run_fleet(round1, s.data, r.seed, seed_purpose::vote_block, r.threads, sink);
    }
  }
  random::drbg rng = seeded_drbg(r.seed, seed_purpose::server_noise, q);
  server::window_selection windows;
  const server::window_rule rule = window_rule_of(m.window);
  const status selected = server::select_windows(*bins, eps, rule, rng, &windows);
  if (selected != status::ok) fail("the window selection refused round 1: {}", describe(selected));
  if (windows.epsilon_impl != private_range_level(eps / 2)) fail("internal: PrivateRange ran at another level");
  if (s.budget.queries() > 1) {
    fmt::print(r.log, "query {} of {}: rotation signs from --public-seed {} index {}\n", q, s.budget.queries(),
               m.public_seed, q);
  }
  fmt::print(r.log, "round 1: {} users report the bins of their rotated mean ({}){}\n", format_count(bins->reports()),
             describe_block(round1.params), round1_out.empty() ? "" : ", batch " + round1_out);
  const uint64_t tau = round1.params.get(field::bin_half_width);
  fmt::print(r.log,
             "         PrivateRange chose a window per rotated coordinate at epsilon {:.6g} each: half width w = {} "
             "tau = {} grid units (--window {})\n",
             windows.epsilon_impl, server::window_half_width(tau, rule) / tau, server::window_half_width(tau, rule),
             m.window);

  // Round 2: the same users against the broadcast window list.
  parameter_block round2 = block_of(windows.round2, s.mech);
  round2.windows = windows.window_list;
  query_result out;
  out.sums = make_aggregator(round2.params);
  auto* sums_agg = dynamic_cast<server::winsorized_sums_aggregator*>(out.sums.get());
  if (sums_agg == nullptr || sums_agg->set_windows(windows.window_list) != status::ok) {
    fail("internal: the round-2 aggregator refused the window list");
  }
  const std::string windows_out = query_path(s, r.windows_out, q), round2_out = query_path(s, r.out, q);
  if (!windows_out.empty()) write_file_atomically(windows_out, "window list file", windows.window_list);
  batch_aggregator ingest(*out.sums, round2.params);
  const simulated_batch batch =
      simulate_to_file(round2_out, round2, s.data, r.seed, seed_purpose::device_block, r.threads, r.bar("round 2"),
                       [&](span<const unsigned char> chunks, uint64_t) { ingest.add(chunks); });
  fmt::print(r.log, "round 2: {} users report their rotated mean clamped to its window ({})\n",
             format_count(out.sums->reports()), describe_block(round2.params));
  if (!windows_out.empty()) {
    fmt::print(r.log, "wrote {}: the broadcast window list, {} (ldp aggregate --windows {} counts round 2)\n",
               windows_out, format_bytes(windows.window_list.size()), windows_out);
  }
  fmt::print(r.log, "wrote {}: {}, parameter fingerprint {:016x}{}\n", round2_out, format_bytes(batch.bytes),
             round2.fingerprint,
             windows_out.empty() ? " (counting it needs the window list: --windows-out writes it)" : "");

  release_request release;
  release.epsilon = m.epsilon;
  release.delta = m.delta;
  release.seed = release_seed_of(r.seed, q);
  release.queries = m.queries;
  release.budget = m.budget;
  release.users = n;
  out.report = winsorized_release_report(*out.sums, release, 0.95, 0);
  fmt::print(r.log,
             "release seed {} (ldp estimate STATE --epsilon {} --delta {:g}{} --release-seed {} repeats the release)\n",
             release.seed, m.epsilon, m.delta,
             (s.budget.queries() > 1 ? fmt::format(" --queries {}", s.budget.queries()) : std::string()) +
                 (m.budget != "tight" ? " --budget " + m.budget : std::string()),
             release.seed);
  if (s.truth) attach_truth(out.report, *s.truth);
  print_estimate_text(stdout, *out.sums, out.report);
  return out;
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
  if (!(m.gamma > 0 && m.gamma < 1)) fail("--gamma must be in (0, 1), got {}", m.gamma);
  check_delta(m.delta);
  data_shape shape;
  shape.input = input_kind::samples;
  shape.dim = m.dim;
  shape.samples = m.observations;
  shape.lo = lo;
  shape.hi = hi;
  const std::unique_ptr<dataset> data = run_dataset(r, shape);
  const uint64_t n = data->devices();

  // Every query's block has the same d~ (only the rotation signs differ).
  const parameter_block first = block_of(round1_block(m, lo, hi, n, 0), mech);
  const uint64_t padded = first.params.get(field::hadamard_dim);
  session s{m, r, mech, lo, hi, *data, plan_session(m.epsilon, m.delta, m.queries, padded, budget_rule_of(m.budget)),
            {}};
  fmt::print(r.log,
             "winsorized-mean (Levy et al., central DP): {} users with {} samples of {} reals in [{:g}, {:g}] each, "
             "epsilon {} delta {:g} per user, data {}, seed {}\n",
             format_count(n), m.observations, m.dim, lo, hi, m.epsilon, m.delta, r.data, r.seed);
  if (m.tau == 0) {
    fmt::print(r.log,
               "tau: the users' means lie within {:.6g} (l2) of the population mean except with probability {:g} "
               "(Levy et al. Cor. 1 from m = {}: users i.i.d.; give --tau when they differ)\n",
               users_tau(m, lo, hi, n), m.gamma, m.observations);
  }
  fmt::print(r.log,
             "budget: {} {} x d~ = {} coordinate mechanisms at epsilon' {:.6g} each (--budget {}), half to "
             "PrivateRange, half to the noise\n",
             m.queries, m.queries == 1 ? "query" : "queries", padded, s.budget.eps_coordinate(), m.budget);
  if (!r.truth_out.empty()) {
    s.truth = truth_of(first, *data);
    write_truth(r.truth_out, *s.truth);
    fmt::print(r.log, "wrote {}: the exact answer (the mean of the users' means)\n", r.truth_out);
  }

  std::vector<query_result> results;
  for (uint32_t q = 0; q < m.queries; ++q) results.push_back(run_query(s, q));
  if (r.release_out.empty()) return;
  // One query: ldp estimate's object. K queries: theirs in a list, under the session's loss.
  nlohmann::ordered_json j;
  if (results.size() == 1) {
    j = estimate_json(*results[0].sums, results[0].report);
  } else {
    const release_summary& loss = *results[0].report.release;
    j = {{"mechanism", wire::mechanism_name(wire::mechanism::winsorized_sums)},
         {"epsilon", loss.epsilon_impl},
         {"delta", loss.delta},
         {"queries", nlohmann::ordered_json::array()}};
    for (const query_result& q : results) j["queries"].push_back(estimate_json(*q.sums, q.report));
  }
  atomic_output out(r.release_out, "release file");
  out.write(j.dump(2) + "\n");
  out.commit();
  fmt::print(r.log, "wrote {}: the release{} as ldp estimate's JSON\n", r.release_out, results.size() == 1 ? "" : "s");
}

}  // namespace ldp::tools
