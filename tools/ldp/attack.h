// The averaging attacker of `ldp simulate --days N --attack` (docs/mechanisms.md "What an averaging
// attacker learns", docs/cli.md "Several days"): a server that keeps every report of a device and
// guesses the device's value on the last day. For a frequency oracle it adds up, item by item, how
// many of the device's reports support the item (GRR: the reported item; SUE, OUE: the item's bit;
// OLH, BLH: the item hashes to the reported bucket) and guesses the item with the most support; for
// a scalar mean (laplace, duchi) it guesses the mean of the device's decoded reports, clamped to the
// range. Ties are scored as a uniform choice among the tied items (a guess in a tie of t items
// counts 1/t when the true item is among them), so the accuracy has no randomness of its own.
#ifndef LDP_TOOLS_ATTACK_H
#define LDP_TOOLS_ATTACK_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "datasets.h"
#include "ldp/base/span.h"
#include "ldp/wire/report.h"
#include "mechanism_options.h"
#include "randomizers.h"

namespace ldp::tools {

// Whether the attack reads the block's reports: grr, sue, oue, blh, olh, laplace and duchi blocks
// (memoized or not).
bool attackable(const wire::params& p);

// k devices of n spread evenly, floor(j n / k) for j < k (all of them when k >= n): the devices in
// seeding order are grouped by value for the synthetic data, so the first k would hold few values.
std::vector<uint64_t> attack_sample(uint64_t devices, uint64_t k);

// The reports the sampled devices send in one run of the fleet. Programs from record() copy the
// payload of every sampled device into its own slot, so worker threads never share a slot.
class report_recorder {
 public:
  report_recorder(const wire::params& p, std::vector<uint64_t> sample);
  // `program` with the sampled devices' payloads recorded.
  std::unique_ptr<device_program> record(std::unique_ptr<device_program> program);
  std::size_t size() const { return sample_.size(); }
  const std::vector<uint64_t>& sample() const { return sample_; }
  span<const unsigned char> payload(std::size_t slot) const;

 private:
  friend class recording_program;
  std::vector<uint64_t> sample_;
  std::size_t room_;
  std::vector<unsigned char> payloads_;  // slot j at j * room_
  std::vector<std::size_t> sizes_;
};

// A frequency attacker's guess, as the score of every item: the guess is an item of highest score.
// Returns the expected correctness of a uniform choice among the highest-scoring items.
double guess_score(span<const double> scores, uint32_t truth);

// The averaging attacker over the reports of one block (every day's reports of a device added up).
class averaging_attacker {
 public:
  averaging_attacker(const wire::params& p, std::size_t devices);
  // Adds the report device `slot` sent today.
  void observe(std::size_t slot, span<const unsigned char> payload);
  void observe_all(const report_recorder& day);
  // Frequency oracles: the fraction of the devices whose last-day item the guess hits (ties as
  // above); `items[slot]` is device slot's item.
  double accuracy(span<const uint32_t> items) const;
  // Means: the mean absolute error of the guesses against `values[slot]` (reals, on the range).
  double mean_abs_error(span<const double> values) const;

 private:
  wire::params params_;
  uint32_t domain_ = 0;          // frequency oracles: d; means: 0
  std::vector<double> support_;  // frequency oracles: slot * d + item; means: the sum of decoded values
  std::vector<uint64_t> reports_;
};

// The support of one frequency report for every item (1 or 0), added to `support` (d entries).
// Only for attackable frequency blocks.
void add_support(const wire::params& p, const wire::report& r, span<double> support);

// The best guess from one report (the Bayes rule with the data's prior known): for reports whose
// likelihood is e^epsilon for the items they support and 1 for the others (GRR, SUE, OUE, BLH, OLH
// at their implemented epsilon, and a memoized block's permanent response at the longitudinal
// epsilon), the item maximizing prior(v) e^(epsilon [v supported]). Returns the expected
// correctness of the guess (ties as above) when the device holds `truth`.
double bayes_score(const wire::params& p, double epsilon, const wire::report& r, span<const double> prior,
                   uint32_t truth);

// The chance level: the accuracy of always guessing the most common item (prior known, no report),
// or for means the mean absolute error of always guessing the data's median.
double chance_accuracy(span<const double> prior, span<const uint32_t> items);
double chance_error(span<const double> all_values, span<const double> values);

}  // namespace ldp::tools

#endif
