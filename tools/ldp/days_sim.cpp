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
#include "ldp/base/int128.h"
#include "fleet.h"
#include "ldp/wire/mean_params.h"
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
void print_attack(const parameter_block& block, const days_options& d, const dataset& day0, const dataset& today,
                  const std::vector<uint64_t>& sample, const std::vector<followed_fleet>& fleets,
                  const report_recorder* reference, const parameter_block* reference_block, std::FILE* log) {
  const last_day truth = last_day_of(block, today, sample);
  const bool items = block.mechanism->input == input_kind::item;
  fmt::print(log, "averaging attack on {} of {} devices over {} day{} (the guess of the value on the last day: {}):\n",
             format_count(sample.size()), format_count(day0.devices()), d.days, d.days == 1 ? "" : "s",
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
               d.epsilon_longitudinal, result(fleets.front()), measure);
  }
  std::vector<double> prior;
  if (items) {
    const std::vector<uint64_t> counts = item_counts(day0, static_cast<uint32_t>(block.params.get(wire::field::domain)));
    for (const uint64_t c : counts) prior.push_back(static_cast<double>(c) / static_cast<double>(day0.devices()));
  }
  if (reference != nullptr && items) {
    fmt::print(log, "  one report at epsilon {:.6g} (the best guess from a permanent response alone, prior known):  {:.4f} {}\n",
               reference_block->epsilon_impl,
               bayes_accuracy(reference_block->params, reference_block->epsilon_impl, *reference, prior, truth.items),
               measure);
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

}  // namespace

void check_days_options(const days_options& d, const parameter_block& block) {
  const input_kind input = block.mechanism->input;
  if (input != input_kind::item && input != input_kind::value && input != input_kind::vector) {
    fail("--days applies to the frequency oracles and the laplace, duchi, laplace-vector and vector-mean mechanisms");
  }
  if (!(d.change_prob >= 0 && d.change_prob <= 1)) fail("--change-prob must be in [0, 1], got {}", d.change_prob);
  if (d.attack && !attackable(block.params)) {
    fail("--attack applies to --mechanism grr, sue, oue, blh, olh, laplace and duchi, not {}", block.mechanism->name);
  }
  if (d.attack && d.attack_devices == 0) fail("--attack-devices must be at least 1");
}

parameter_block days_block(const mechanism_options& m, const days_options& d) {
  if (d.memoize) fail("--memoize: not built yet");
  return build_block(m);
}

void simulate_days(const parameter_block& block, const mechanism_options& m, const days_options& d,
                   const user_level_run& r, const dataset& data) {
  std::FILE* log = r.log;
  fmt::print(log, "simulated {} devices for {} day{}: {} {}, epsilon {} per report (implemented {:.15g}), data {}, seed {}\n",
             format_count(data.devices()), d.days, d.days == 1 ? "" : "s", block.mechanism->name,
             describe_block(block.params), m.epsilon, block.epsilon_impl, r.data, r.seed);
  fmt::print(log, "values: day 0 as the data gives them; each later day every device redraws its value with probability {} from the data's distribution\n",
             d.change_prob);
  fmt::print(log, "reports: {}\n", d.memoize ? "memoized" : "fresh coins every day (no memoization)");

  const std::vector<uint64_t> sample = d.attack ? attack_sample(data.devices(), d.attack_devices) : std::vector<uint64_t>();
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
      std::unique_ptr<device_program> program = make_device_program(block, *today);
      return d.attack ? fleets.front().recorder.record(std::move(program)) : std::move(program);
    };
    const simulated_batch batch = simulate_to_file(out, block, *today, seed, seed_purpose::device_block, r.threads,
                                                   r.bar(fmt::format("day {}", day)), {}, make);
    if (d.attack) fleets.front().attacker.observe_all(fleets.front().recorder);
    for (std::size_t f = 1; f < fleets.size(); ++f) {
      followed_fleet& plain = fleets[f];
      run_fleet(plain.block, *today, seed, seed_purpose::device_block, r.threads, [](span<const unsigned char>, uint64_t) {},
                [&] { return plain.recorder.record(make_device_program(plain.block, *today)); });
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

  std::unique_ptr<report_recorder> reference;
  std::unique_ptr<parameter_block> reference_block;
  if (d.memoize && block.mechanism->input == input_kind::item) {
    mechanism_options at = m;
    at.epsilon = d.epsilon_longitudinal;
    reference_block = std::make_unique<parameter_block>(build_block(at));
    reference = std::make_unique<report_recorder>(reference_block->params, sample);
    run_fleet(*reference_block, *today, r.seed, seed_purpose::attack_reference, r.threads,
              [](span<const unsigned char>, uint64_t) {},
              [&] { return reference->record(make_device_program(*reference_block, *today)); });
  }
  print_attack(block, d, data, *today, sample, fleets, reference.get(), reference_block.get(), log);
}

}  // namespace ldp::tools
