// Exact privacy audit (docs/mechanisms.md D.2 (a)): runs a device randomizer once per path through its
// coin outcomes, weighting each path by the exact probability of its outcomes, and accumulates the
// output distribution of the shipped code itself. Paths are walked like an odometer: every run
// replays the fixed prefix of choices and takes outcome 0 at each new choice point.
#ifndef LDP_TESTS_SUPPORT_ENUMERATOR_H
#define LDP_TESTS_SUPPORT_ENUMERATOR_H

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"

namespace ldp::test {

class enumerating_coins {
 public:
  // OLH seeds are revealed in the report and independent of the data, so the audit conditions on
  // them: raw_u64() returns this fixed value with weight 1.
  explicit enumerating_coins(uint64_t revealed_seed = 0) : seed_(revealed_seed) {}

  bool bernoulli(uint64_t threshold) {
    const long double p = static_cast<long double>(threshold) / 4294967296.0L;
    return choose(2, [p](uint64_t o) { return o == 0 ? p : 1 - p; }) == 0;
  }
  uint32_t uniform_below(uint32_t n) {
    return static_cast<uint32_t>(choose(n, [n](uint64_t) { return 1.0L / n; }));
  }
  // P = threshold / denominator, denominator 0 standing for 2^64 (memoized duchi's grid bits).
  bool bernoulli_fraction(uint64_t threshold, uint64_t denominator) {
    const long double p = static_cast<long double>(threshold) /
                          (denominator == 0 ? 18446744073709551616.0L : static_cast<long double>(denominator));
    return choose(2, [p](uint64_t o) { return o == 0 ? p : 1 - p; }) == 0;
  }
  uint64_t raw_u64() { return seed_; }
  bool raw_bit() {
    return choose(2, [](uint64_t) { return 0.5L; }) == 1;
  }
  status mask(span<uint64_t> words, std::size_t nbits, uint64_t threshold) {
    if (nbits > 16) throw std::invalid_argument("enumerating a mask of more than 16 bits");
    const long double p = static_cast<long double>(threshold) / 4294967296.0L;
    const uint64_t pattern = choose(uint64_t{1} << nbits, [p, nbits](uint64_t o) {
      long double w = 1;
      for (std::size_t j = 0; j < nbits; ++j) w *= ((o >> j) & 1) ? p : 1 - p;
      return w;
    });
    for (auto& w : words) w = 0;
    words[0] = pattern;
    return status::ok;
  }

  // Calls fn(*this) for every path and returns output -> probability, fn returning the output key.
  template <class Fn>
  std::map<std::string, long double> pmf(Fn fn) {
    std::map<std::string, long double> out;
    choices_.clear();
    arity_.clear();
    do {
      position_ = 0;
      weight_ = 1;
      const std::string key = fn(*this);
      out[key] += weight_;
    } while (advance());
    return out;
  }

 private:
  template <class Weight>
  uint64_t choose(uint64_t arity, Weight weight) {
    if (position_ == choices_.size()) {
      choices_.push_back(0);
      arity_.push_back(arity);
    }
    const uint64_t o = choices_[position_++];
    weight_ *= weight(o);
    return o;
  }
  bool advance() {
    while (!choices_.empty()) {
      if (++choices_.back() < arity_.back()) return true;
      choices_.pop_back();
      arity_.pop_back();
    }
    return false;
  }

  uint64_t seed_;
  std::vector<uint64_t> choices_, arity_;
  std::size_t position_ = 0;
  long double weight_ = 1;
};

}  // namespace ldp::test

#endif
