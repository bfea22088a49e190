#include "attack.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include "errors.h"
#include "ldp/base/int128.h"
#include "ldp/server/mean.h"
#include "ldp/wire/hash.h"
#include "ldp/wire/mean_params.h"
#include "ldp/wire/report.h"

namespace ldp::tools {

using wire::field;
using wire::mechanism;

namespace {

bool is_frequency(const wire::params& p) { return p.mech != mechanism::laplace && p.mech != mechanism::duchi; }

wire::report decoded(const wire::params& p, span<const unsigned char> payload) {
  wire::report r;
  const status s = wire::decode_payload(p, payload, &r);
  if (s != status::ok) fail("internal: the attacker cannot decode a report of its own fleet: {}", describe(s));
  return r;
}

// A mean report's value in real units: the fixed-point value (laplace), or Duchi's bit as the
// unbiased value center +- (Q/2) B-hat (docs/mechanisms.md B.2, as server::duchi_mean decodes it).
double decoded_value(const wire::params& p, const wire::report& r) {
  const double gamma = std::ldexp(1.0, -static_cast<int>(p.get(field::frac_bits)));
  if (p.mech == mechanism::laplace) return static_cast<double>(r.value) * gamma;
  const wire::value_range range = wire::range_of(p);
  const double center = (static_cast<double>(range.lo) + static_cast<double>(range.hi)) / 2 * gamma;
  const double half_width = static_cast<double>(wire::range_width(p)) / 2 * gamma;
  return center + half_width * server::duchi_scale(p) * (r.bit != 0 ? 1 : -1);
}

}  // namespace

bool attackable(const wire::params& p) {
  constexpr mechanism read[] = {mechanism::grr, mechanism::sue,     mechanism::oue,  mechanism::blh,
                                mechanism::olh, mechanism::laplace, mechanism::duchi};
  return std::find(std::begin(read), std::end(read), p.mech) != std::end(read);
}

std::vector<uint64_t> attack_sample(uint64_t devices, uint64_t k) {
  k = std::min(k, devices);
  std::vector<uint64_t> out(static_cast<std::size_t>(k));
  for (uint64_t j = 0; j < k; ++j) {
    uint64_t remainder = 0;
    out[static_cast<std::size_t>(j)] = div_rem(mul_64x64(j, devices), k, &remainder);
  }
  return out;
}

// The device program with the sampled devices' payloads copied to their slots.
class recording_program final : public device_program {
 public:
  recording_program(report_recorder& to, std::unique_ptr<device_program> inner) : to_(to), inner_(std::move(inner)) {}

  status run(uint64_t device, random::drbg& rng, span<unsigned char> out, std::size_t* written) override {
    const status s = inner_->run(device, rng, out, written);
    const auto at = std::lower_bound(to_.sample_.begin(), to_.sample_.end(), device);
    if (s == status::ok && at != to_.sample_.end() && *at == device) {
      const auto slot = static_cast<std::size_t>(at - to_.sample_.begin());
      std::copy_n(out.begin(), *written, to_.payloads_.begin() + static_cast<std::ptrdiff_t>(slot * to_.room_));
      to_.sizes_[slot] = *written;
    }
    return s;
  }

 private:
  report_recorder& to_;
  std::unique_ptr<device_program> inner_;
};

report_recorder::report_recorder(const wire::params& p, std::vector<uint64_t> sample)
    : sample_(std::move(sample)),
      room_(wire::max_payload_size(p)),
      payloads_(sample_.size() * room_),
      sizes_(sample_.size()) {}

std::unique_ptr<device_program> report_recorder::record(std::unique_ptr<device_program> program) {
  return std::make_unique<recording_program>(*this, std::move(program));
}

span<const unsigned char> report_recorder::payload(std::size_t slot) const {
  return {payloads_.data() + slot * room_, sizes_[slot]};
}

double guess_score(span<const double> scores, uint32_t truth) {
  const double best = *std::max_element(scores.begin(), scores.end());
  if (scores[truth] != best) return 0;
  return 1.0 / static_cast<double>(std::count(scores.begin(), scores.end(), best));
}

void add_support(const wire::params& p, const wire::report& r, span<double> support) {
  const auto d = static_cast<uint32_t>(support.size());
  if (p.mech == mechanism::grr) {
    support[r.index] += 1;
  } else if (p.mech == mechanism::sue || p.mech == mechanism::oue) {
    for (uint32_t v = 0; v < d; ++v) support[v] += (r.bits[v / 8] >> (v % 8)) & 1u;
  } else if (p.mech == mechanism::blh || p.mech == mechanism::olh) {
    const auto g = static_cast<uint32_t>(p.get(field::hash_range));
    const auto key = wire::report_hash_key(r.seed);
    for (uint32_t v = 0; v < d; ++v) support[v] += wire::hash_to_range(key, v, g) == r.index ? 1 : 0;
  } else {
    fail("internal: no support of {} reports for the attacker", static_cast<unsigned>(p.mech));
  }
}

averaging_attacker::averaging_attacker(const wire::params& p, std::size_t devices)
    : params_(p),
      domain_(is_frequency(p) ? static_cast<uint32_t>(p.get(field::domain)) : 0),
      support_(devices * std::max<uint32_t>(domain_, 1)),
      reports_(devices) {}

void averaging_attacker::observe(std::size_t slot, span<const unsigned char> payload) {
  ++reports_[slot];
  if (domain_ == 0) {
    support_[slot] += decoded_value(params_, decoded(params_, payload));
    return;
  }
  add_support(params_, decoded(params_, payload), span<double>(support_.data() + slot * domain_, domain_));
}

void averaging_attacker::observe_all(const report_recorder& day) {
  for (std::size_t slot = 0; slot < day.size(); ++slot) observe(slot, day.payload(slot));
}

double averaging_attacker::accuracy(span<const uint32_t> items) const {
  double hits = 0;
  for (std::size_t slot = 0; slot < items.size(); ++slot) {
    hits += guess_score(span<const double>(support_.data() + slot * domain_, domain_), items[slot]);
  }
  return hits / static_cast<double>(items.size());
}

double averaging_attacker::mean_abs_error(span<const double> values) const {
  const double gamma = std::ldexp(1.0, -static_cast<int>(params_.get(field::frac_bits)));
  const wire::value_range range = wire::range_of(params_);
  const double lo = static_cast<double>(range.lo) * gamma, hi = static_cast<double>(range.hi) * gamma;
  double error = 0;
  for (std::size_t slot = 0; slot < values.size(); ++slot) {
    const double guess = std::clamp(support_[slot] / static_cast<double>(reports_[slot]), lo, hi);
    error += std::fabs(guess - values[slot]);
  }
  return error / static_cast<double>(values.size());
}

double bayes_score(const wire::params& p, double epsilon, const wire::report& r, span<const double> prior,
                   uint32_t truth) {
  std::vector<double> score(prior.size());
  add_support(p, r, score);
  // log prior + epsilon [supported]: an item nobody holds scores -inf and is never guessed.
  for (std::size_t v = 0; v < prior.size(); ++v) score[v] = std::log(prior[v]) + epsilon * score[v];
  return guess_score(score, truth);
}

double chance_accuracy(span<const double> prior, span<const uint32_t> items) {
  double hits = 0;
  for (const uint32_t item : items) hits += guess_score(prior, item);
  return hits / static_cast<double>(items.size());
}

double chance_error(span<const double> all_values, span<const double> values) {
  std::vector<double> sorted(all_values.begin(), all_values.end());
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  double error = 0;
  for (const double v : values) error += std::fabs(v - median);
  return error / static_cast<double>(values.size());
}

}  // namespace ldp::tools
