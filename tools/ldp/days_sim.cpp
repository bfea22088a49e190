#include "days_sim.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attack.h"
#include "block_text.h"
#include "errors.h"
#include "files.h"
#include "fleet.h"
#include "ldp/base/int128.h"
#include "ldp/wire/mean_params.h"
#include "ldp/wire/oracle_params.h"
#include "memo_devices.h"
#include "output.h"
#include "randomizers.h"
#include "seeding.h"
#include "truth.h"

namespace ldp::tools {
namespace {

// A uniform integer below n from the DRBG, exactly (Lemire's multiply-and-reject).
uint64_t uniform_below(random::drbg& rng, uint64_t n) {
  const uint64_t reject_below = (0 - n) % n;  // 2^64 mod n
  for (;;) {
    const u128 m = mul_64x64(rng.next_u64(), n);
    if (m.lo >= reject_below) return m.hi;
  }
}

// Which row of the dataset each device holds today (docs/cli.md "Several days"): day 0 its own; on
// day k every device, in order, draws a 64-bit word u from derive_seed(--seed, value_change, k) and
// redraws iff u < P 2^64 (always for P = 1), taking the row of a uniform device (uniform_below).
class value_trajectory {
 public:
  value_trajectory(const dataset& data, double change_prob, uint64_t seed)
      : data_(data), seed_(seed), rows_(static_cast<std::size_t>(data.devices())) {
    for (std::size_t i = 0; i < rows_.size(); ++i) rows_[i] = i;
    always_ = change_prob >= 1;
    threshold_ = always_ ? 0 : static_cast<uint64_t>(std::ldexp(change_prob, 64));
  }

  // Moves to day `day` (> 0); returns the number of devices that redrew (the same value or not).
  uint64_t advance(uint64_t day) {
    random::drbg rng = seeded_drbg(seed_, seed_purpose::value_change, day);
    uint64_t redrawn = 0;
    for (uint64_t& row : rows_) {
      const uint64_t u = rng.next_u64();
      if (!always_ && u >= threshold_) continue;
      row = uniform_below(rng, data_.devices());
      ++redrawn;
    }
    return redrawn;
  }

  std::unique_ptr<dataset> today() const { return subset(data_, rows_); }

 private:
  const dataset& data_;
  uint64_t seed_;
  std::vector<uint64_t> rows_;
  bool always_ = false;
  uint64_t threshold_ = 0;
};

// One fleet the attacker follows: its block, the programs its devices run, what they sent today,
// and the attacker's running sums.
struct followed_fleet {
  followed_fleet(const parameter_block& b, const std::vector<uint64_t>& sample)
      : block(b), recorder(b.params, sample), attacker(b.params, sample.size()) {}
  parameter_block block;
  report_recorder recorder;
  averaging_attacker attacker;
};

// The sampled devices' last-day items, or values (reals clamped to the range).
struct last_day {
  std::vector<uint32_t> items;
  std::vector<double> values;
};

double real_range_end(const wire::params& p, int64_t fixed_end) {
  return static_cast<double>(fixed_end) * std::ldexp(1.0, -static_cast<int>(p.get(wire::field::frac_bits)));
}

last_day last_day_of(const parameter_block& block, const dataset& today, const std::vector<uint64_t>& sample) {
  last_day out;
  if (block.mechanism->input == input_kind::item) {
    for (const uint64_t i : sample) out.items.push_back(today.item(i));
    return out;
  }
  const wire::value_range range = wire::range_of(block.params);
  double x = 0;
  for (const uint64_t i : sample) {
    today.values(i, span<double>(&x, 1));
    out.values.push_back(std::clamp(x, real_range_end(block.params, range.lo), real_range_end(block.params, range.hi)));
  }
  return out;
}

// The attack's summary (docs/cli.md "Several days"): the averaging attacker on the reports of the
// run (and with --memoize on fresh-coin reports at --epsilon too), the best guess from one report
// at the longitudinal epsilon, and the chance level.
void print_attack(const parameter_block& block, const days_options& d, uint64_t seed, const dataset& day0,
                  const dataset& today, const std::vector<uint64_t>& sample, const std::vector<followed_fleet>& fleets,
                  std::FILE* log) {
  const last_day truth = last_day_of(block, today, sample);
  const bool items = block.mechanism->input == input_kind::item;
  const uint32_t window = d.attack_window == 0 ? d.days : std::min(d.attack_window, d.days);
  fmt::print(log, "averaging attack on {} of {} devices over {} (the guess of the value on the last day: {}):\n",
             format_count(sample.size()), format_count(day0.devices()),
             window == d.days ? fmt::format("{} day{}", d.days, d.days == 1 ? "" : "s")
                              : fmt::format("the last {} of {} days", window, d.days),
             items ? "the item the most reports support" : "the mean of the decoded reports, clamped to the range");
  const char* measure = items ? "correct" : "mean absolute error";
  const auto result = [&](const followed_fleet& f) {
    return items ? f.attacker.accuracy(truth.items) : f.attacker.mean_abs_error(truth.values);
  };
  const followed_fleet& plain = fleets.back();
  fmt::print(log, "  fresh coins every report (epsilon {:.6g} per report):  {:.4f} {}\n", plain.block.epsilon_impl,
             result(plain), measure);
  if (d.memoize) {
    fmt::print(log, "  memoized (epsilon {:.6g} per report, {:.6g} longitudinal):  {:.4f} {}\n", block.epsilon_impl,
               wire::longitudinal_epsilon(block.params), result(fleets.front()), measure);
  }
  std::vector<double> prior;
  if (items) {
    const std::vector<uint64_t> counts =
        item_counts(day0, static_cast<uint32_t>(block.params.get(wire::field::domain)));
    for (const uint64_t c : counts) prior.push_back(static_cast<double>(c) / static_cast<double>(day0.devices()));
  }
  if (d.memoize && items) {
    // The permanent responses of the devices' last-day items: all an attacker with every report
    // of that value could learn (the instantaneous stage only adds noise to it).
    memoized_program devices(block.params, nullptr, seed, d.use_case);
    const double epsilon = wire::longitudinal_epsilon(block.params);
    double hits = 0;
    for (std::size_t slot = 0; slot < sample.size(); ++slot) {
      hits += bayes_score(block.params, epsilon, devices.permanent(sample[slot], truth.items[slot]), prior,
                          truth.items[slot]);
    }
    fmt::print(log, "  the permanent response alone (epsilon {:.6g}; the best guess, prior known):  {:.4f} {}\n",
               epsilon, hits / static_cast<double>(sample.size()), measure);
  }
  if (items) {
    fmt::print(log, "  chance (the most common value, prior known):  {:.4f} {}\n", chance_accuracy(prior, truth.items),
               measure);
  } else {
    const last_day everyone = last_day_of(block, day0, attack_sample(day0.devices(), day0.devices()));
    fmt::print(log, "  chance (the median of the data, prior known):  {:.4f} {}\n",
               chance_error(everyone.values, truth.values), measure);
  }
}

// Memoized duchi (docs/mechanisms.md E.2): the permanent bits at --epsilon-longitudinal on the
// k + 1 points of --memo-grid k (default 1: the range's ends), and the least output flip Phi / 2^32
// whose one-report level is at most --epsilon. The level falls as Phi grows (Phi = 0 is
// epsilon-infinity itself), so a bisection over the integers Phi in [0, 2^31) finds it.
parameter_block memoized_duchi_block(const tool_mechanism& tm, const mechanism_options& m, const days_options& d) {
  double lo = 0, hi = 0;
  parse_range(m.range, &lo, &hi);
  const uint32_t grid = d.memo_grid == 0 ? 1 : d.memo_grid;
  const auto build = [&](uint64_t phi) {
    return wire::make_memoized_duchi(lo, hi, m.frac_bits, d.epsilon_longitudinal, grid,
                                     std::ldexp(static_cast<double>(phi), -32));
  };
  const wire::derived_params none = build(0);
  if (none.code != status::ok) {
    fail(
        "cannot build a memoized duchi block for --range {} --frac-bits {} --epsilon-longitudinal {} --memo-grid {}: "
        "{} (k must divide (hi - lo) 2^f, at most 2^24)",
        m.range, m.frac_bits, d.epsilon_longitudinal, grid, describe(none.code));
  }
  const auto fits = [&](const wire::derived_params& b) { return b.code == status::ok && b.epsilon_impl <= m.epsilon; };
  uint64_t low = 0, high = (uint64_t{1} << 31) - 1;  // build(low) does not fit
  wire::derived_params best = build(high);
  if (!fits(best)) fail("no output flip makes one memoized duchi report as private as --epsilon {}", m.epsilon);
  while (high - low > 1) {
    const uint64_t mid = low + (high - low) / 2;
    const wire::derived_params at = build(mid);
    if (fits(at)) {
      high = mid;
      best = at;
    } else {
      low = mid;
    }
  }
  parameter_block out = block_of(best.block, tm);
  out.epsilon_impl = best.epsilon_impl;
  return out;
}

}  // namespace

void check_days_options(const days_options& d, const tool_mechanism& m) {
  const input_kind input = m.input;
  if ((input != input_kind::item && input != input_kind::value && input != input_kind::vector) ||
      wire::in_family(m.id, wire::mechanism_family::distribution)) {
    fail("--days applies to the frequency oracles and the laplace, duchi, laplace-vector and vector-mean mechanisms");
  }
  if (!(d.change_prob >= 0 && d.change_prob <= 1)) fail("--change-prob must be in [0, 1], got {}", d.change_prob);
  if (d.attack && d.attack_devices == 0) fail("--attack-devices must be at least 1");
  if (d.attack_window > d.days) fail("--attack-window must be at most --days {}, got {}", d.days, d.attack_window);
}

parameter_block days_block(const mechanism_options& m, const days_options& d) {
  if (!d.memoize) {
    if (d.epsilon_longitudinal != 0) fail("--epsilon-longitudinal applies with --memoize only");
    return build_block(m);
  }
  const tool_mechanism& tm = checked_mechanism(m);
  const auto memoizable = {wire::mechanism::sue, wire::mechanism::oue, wire::mechanism::olh, wire::mechanism::blh,
                           wire::mechanism::duchi};
  if (std::find(memoizable.begin(), memoizable.end(), tm.id) == memoizable.end()) {
    fail("--memoize applies to --mechanism sue, oue, olh, blh and duchi, not {}", tm.name);
  }
  if (d.memo_grid != 0 && tm.id != wire::mechanism::duchi) fail("--memo-grid applies to --mechanism duchi only");
  if (given(m, "--hash-range")) fail("--memoize: olh's hash range is make_olh's choice at --epsilon, not --hash-range");
  if (d.epsilon_longitudinal == 0) fail("--memoize needs --epsilon-longitudinal E (the permanent responses' epsilon)");
  if (!wire::valid_epsilon(d.epsilon_longitudinal)) {
    fail("--epsilon-longitudinal must be in {}, got {}", epsilon_range(), d.epsilon_longitudinal);
  }
  if (!(m.epsilon < d.epsilon_longitudinal)) {
    fail(
        "--epsilon {} (per report) must be below --epsilon-longitudinal {}: the instantaneous stage adds noise to "
        "the permanent response",
        m.epsilon, d.epsilon_longitudinal);
  }
  if (tm.id == wire::mechanism::duchi) return memoized_duchi_block(tm, m, d);
  if (m.domain < 2) fail("--domain must be at least 2, got {}", m.domain);
  const wire::derived_params derived = wire::make_memoized_oracle(tm.id, d.epsilon_longitudinal, m.epsilon, m.domain);
  if (derived.code != status::ok) {
    fail("cannot build a memoized {} block with --epsilon {} per report and --epsilon-longitudinal {}: {}", tm.name,
         m.epsilon, d.epsilon_longitudinal, describe(derived.code));
  }
  parameter_block out = block_of(derived.block, tm);
  out.epsilon_impl = derived.epsilon_impl;
  return out;
}

void simulate_days(const parameter_block& block, const mechanism_options& m, const days_options& d,
                   const user_level_run& r, const dataset& data) {
  if (d.attack && !attackable(block.params)) {
    fail("--attack applies to --mechanism grr, sue, oue, blh, olh, laplace and duchi, not {}", block.mechanism->name);
  }
  std::FILE* log = r.log;
  fmt::print(log, "simulated {} devices for {} day{}: {} {}, data {}, seed {}\n", format_count(data.devices()), d.days,
             d.days == 1 ? "" : "s", block.mechanism->name, describe_block(block.params), r.data, r.seed);
  if (d.memoize) {
    // The two levels of docs/mechanisms.md E.1: what one report reveals, and what every report of
    // one value together reveals (the permanent response), as asked and as implemented.
    fmt::print(log,
               "memoized: epsilon {} per report, {} longitudinal (all reports of one value together); implemented "
               "{:.15g} per report, {:.15g} longitudinal; use case {}, each device with its own secret\n",
               m.epsilon, d.epsilon_longitudinal, block.epsilon_impl, wire::longitudinal_epsilon(block.params),
               d.use_case);
  } else {
    fmt::print(log,
               "fresh coins every day: epsilon {} per report (implemented {:.15g}); k reports of one value add up "
               "to k epsilon\n",
               m.epsilon, block.epsilon_impl);
  }
  fmt::print(log, "values: each day after day 0 every device redraws its value with probability {} from the data\n",
             d.change_prob);

  const std::vector<uint64_t> sample =
      d.attack ? attack_sample(data.devices(), d.attack_devices) : std::vector<uint64_t>();
  // The attacker keeps a support count per followed device and item (8 bytes each, two fleets).
  const uint64_t items = block.mechanism->input == input_kind::item ? block.params.get(wire::field::domain) : 1;
  if (sample.size() * items > (uint64_t{1} << 25)) {
    fail("--attack: {} devices times {} items is more than 2^25 support counts; lower --attack-devices", sample.size(),
         items);
  }
  // The fleets the attacker follows: the run's, and with --memoize the same devices sending
  // fresh-coin reports at --epsilon (in memory), last.
  std::vector<followed_fleet> fleets;
  if (d.attack) {
    fleets.emplace_back(block, sample);
    if (d.memoize) fleets.emplace_back(build_block(m), sample);
  }

  value_trajectory trajectory(data, d.change_prob, r.seed);
  std::unique_ptr<dataset> today;
  for (uint32_t day = 0; day < d.days; ++day) {
    const uint64_t redrawn = day == 0 ? 0 : trajectory.advance(day);
    today = trajectory.today();
    const uint64_t seed = day_seed_of(r.seed, day);
    const std::string out = indexed_path(r.out, "day", day);
    const program_factory make = [&]() -> std::unique_ptr<device_program> {
      // Device secrets derive from --seed, not the day's seed: they are the same every day.
      std::unique_ptr<device_program> program =
          d.memoize || wire::needs_device_secret(block.params)
              ? std::make_unique<memoized_program>(block.params, today.get(), r.seed, d.use_case)
              : make_device_program(block, *today, r.seed);
      return d.attack ? fleets.front().recorder.record(std::move(program)) : std::move(program);
    };
    const simulated_batch batch = simulate_to_file(out, block, *today, seed, seed_purpose::device_block, r.threads,
                                                   r.bar(fmt::format("day {}", day)), {}, make);
    const bool observed = d.attack && (d.attack_window == 0 || day + uint64_t{d.attack_window} >= d.days);
    if (observed) fleets.front().attacker.observe_all(fleets.front().recorder);
    for (std::size_t f = 1; f < fleets.size() && observed; ++f) {
      followed_fleet& plain = fleets[f];
      run_fleet(
          plain.block, *today, seed, seed_purpose::device_block, r.threads, [](span<const unsigned char>, uint64_t) {},
          [&] { return plain.recorder.record(make_device_program(plain.block, *today, r.seed)); });
      plain.attacker.observe_all(plain.recorder);
    }
    std::string line = fmt::format("day {}: ", day);
    if (day > 0) line += fmt::format("{} devices redrew their value; ", format_count(redrawn));
    line += fmt::format("wrote {}: {}", out, format_bytes(batch.bytes));
    if (!r.truth_out.empty()) {
      const std::string truth = indexed_path(r.truth_out, "day", day);
      write_truth(truth, truth_of(block, *today));
      line += fmt::format(", {}: the exact answer", truth);
    }
    fmt::print(log, "{}\n", line);
  }
  fmt::print(log, "parameter fingerprint {:016x} (every day's batch; ldp aggregate and ldp estimate take each day's)\n",
             block.fingerprint);
  if (!d.attack) return;

  print_attack(block, d, r.seed, data, *today, sample, fleets, log);
}

}  // namespace ldp::tools
