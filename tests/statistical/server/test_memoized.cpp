// Memoized randomized response device -> wire -> server (docs/mechanisms.md E.1, D.3), four tests
// (together failing a correct build with probability below 1.6e-6):
// 1. Fleet estimates: R = 240 runs of a fleet of 652 devices, each with its own secret, one memoized
//    report per device; the server's estimates are unbiased (z = 6.1, two-sided 1e-9 per item) with
//    the closed-form variance of the composite channel (chi-square(R - 1), two-sided 1e-9 per
//    item): 4 oracles x 2 level pairs x 8 items x 3 checks = 192 checks, a false-failure
//    probability below 2e-7. The variance bounds accept ratios within about [0.62, 1.5]: the
//    permanent stage's (p, q) in place of the composite gives 4.5-31x less variance at these
//    levels, and is caught for every item.
// 2. Permanent responses over secrets: 20,000 secrets, the bits (or hash hits) of one item's
//    permanent response have the permanent stage's probabilities (Clopper-Pearson, two-sided 1e-8
//    per check, 17 checks) and the responses of two items of one secret are independent (chi-square,
//    1e-8, 3 checks): a false-failure probability below 2e-7.
// 3. The averaging attack: a device reports its value 2000 times; the attacker sums the support of
//    each item over the reports and guesses the argmax. Without memoization (the plain oracle at the
//    same per-report epsilon) it recovers the value; with it, it recovers the permanent response
//    exactly and no more: over 200 devices with uniform values its success rate is at most what
//    epsilon_inf allows any attacker, e^{eps_inf} / (e^{eps_inf} + d - 1) (checked with a
//    Clopper-Pearson lower bound at 1e-7 per oracle).
// 4. The Monte-Carlo audit of the real path (D.2 (b)): 200,000 devices per input, each with a fresh
//    secret, one permanent response and one memoized report each; Table D.2's event for (v, w)
//    (unary: bit v set, bit w clear; local hashing: bucket H_s(v) != H_s(w)) gives an empirical
//    epsilon whose Clopper-Pearson lower bound (two-sided 5e-8 per proportion) must not exceed
//    epsilon_1 (reports) or epsilon_inf (permanent responses), and whose point estimate must reach
//    0.9 of it (14 or more standard errors from the truth here): 16 intervals, below 8e-7.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "audit.h"
#include "device_context.h"
#include "ldp/device.h"
#include "ldp/server/frequency.h"
#include "ldp/wire.h"
#include "stats.h"
#include "tables.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

bool unary(const ldp::wire::params& p) { return ldp::wire::kind_of(p.mech) == ldp::wire::payload_kind::unary_bits; }

long double t(uint64_t threshold) { return static_cast<long double>(threshold) / 4294967296.0L; }

// The composite support probabilities (p*, q*) of one memoized report, evaluated here from the
// integers independently of the library: unary, the bit of the item and of another item;
// local hashing, the composite GRR keep and q* = 1/g.
std::pair<double, double> composite_support(const ldp::wire::params& p) {
  const long double keep = t(p.get(field::threshold_keep)), ik = t(p.get(field::instant_keep));
  if (unary(p)) {
    const long double other = t(p.get(field::threshold_other)), io = t(p.get(field::instant_other));
    return {static_cast<double>(keep * ik + (1 - keep) * io), static_cast<double>(other * ik + (1 - other) * io)};
  }
  const auto g = static_cast<long double>(p.get(field::hash_range));
  return {static_cast<double>(keep * ik + (1 - keep) * (1 - ik) / (g - 1)), static_cast<double>(1 / g)};
}

// A.0 with the composite probabilities and the true count.
double closed_form_variance(const ldp::wire::params& p, double n, double cv) {
  const auto [ps, qs] = composite_support(p);
  return n * qs * (1 - qs) / ((ps - qs) * (ps - qs)) + cv * (1 - ps - qs) / (ps - qs);
}

struct device_secret {
  unsigned char bytes[ldp::device::device_secret_size];
};

}  // namespace

TEST_CASE("memoized fleets: unbiased estimates with the composite closed-form variance") {
  constexpr uint32_t d = 8;
  constexpr int runs = 240;
  std::vector<uint64_t> counts(d);
  double n = 0;
  for (uint32_t v = 0; v < d; ++v) {
    counts[v] = 240 / (v + 1);
    n += static_cast<double>(counts[v]);
  }
  REQUIRE(ldp::test::memoized_oracles().size() == 4);  // the false-failure bound above counts 4 oracles
  for (mechanism m : ldp::test::memoized_oracles()) {
    for (const auto& levels : std::vector<std::pair<double, double>>{{4.0, 1.0}, {2.0, 0.5}}) {
      const double inf = levels.first, report = levels.second;  // CAPTURE'd: no structured binding (clang 14)
      const std::string name = ldp::wire::mechanism_name(m);
      CAPTURE(name);
      CAPTURE(inf);
      const auto memo = ldp::wire::make_memoized_oracle(m, inf, report, d);
      REQUIRE(memo.code == status::ok);
      const ldp::wire::params& p = memo.block;
      ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
      REQUIRE(oracle.code == status::ok);
      auto rng = ldp::test::seeded_drbg((name + " memoized fleet " + std::to_string(inf)).c_str());
      std::vector<double> sum(d, 0), sum_sq(d, 0);
      std::vector<unsigned char> payload(ldp::wire::max_payload_size(p));
      for (int run = 0; run < runs; ++run) {
        std::unique_ptr<ldp::server::frequency_aggregator> agg;
        REQUIRE(ldp::server::frequency_aggregator::create(p, &agg) == status::ok);
        uint64_t failures = 0;
        for (uint32_t v = 0; v < d; ++v) {
          for (uint64_t u = 0; u < counts[v]; ++u) {
            device_secret s;
            rng.fill(s.bytes, sizeof s.bytes);  // every device its own secret
            std::size_t size = 0;
            failures += oracle->randomize_memoized(v, {s.bytes, 1}, rng, payload, ldp::device::framing::payload,
                                                   &size) != status::ok;
            failures += agg->add_payload(ldp::span<const unsigned char>(payload.data(), size)) != status::ok;
          }
        }
        REQUIRE(failures == 0);
        const auto est = agg->estimate_all();
        REQUIRE(est.size() == d);
        for (uint32_t v = 0; v < d; ++v) {
          sum[v] += est[v].value;
          sum_sq[v] += est[v].value * est[v].value;
          // The server's plug-in variance is the composite closed form at the clipped estimate.
          const double clipped = std::min(std::max(est[v].value, 0.0), n);
          CHECK(est[v].variance == doctest::Approx(closed_form_variance(p, n, clipped)).epsilon(1e-9));
        }
      }
      for (uint32_t v = 0; v < d; ++v) {
        CAPTURE(v);
        const double cv = static_cast<double>(counts[v]), variance = closed_form_variance(p, n, cv);
        const double mean = sum[v] / runs;
        const double s2 = (sum_sq[v] - runs * mean * mean) / (runs - 1);
        CHECK(std::fabs(mean - cv) <= 6.1 * std::sqrt(variance / runs));
        const double upper_tail = ldp::test::chi_square_sf((runs - 1) * s2 / variance, runs - 1);
        CHECK(upper_tail > 0.5e-9);
        CHECK(upper_tail < 1 - 0.5e-9);
      }
    }
  }
}

TEST_CASE("permanent responses over secrets: the permanent stage's distribution, items independent") {
  constexpr uint32_t d = 8, item = 3, other_item = 4;
  constexpr uint64_t secrets = 20000;
  constexpr double alpha = 1e-8;
  auto rng = ldp::test::seeded_drbg("memoized permanent responses over secrets");
  const auto& k = rng.kernel();
  for (mechanism m : {mechanism::sue, mechanism::oue, mechanism::olh}) {
    const std::string name = ldp::wire::mechanism_name(m);
    CAPTURE(name);
    const auto memo = ldp::wire::make_memoized_oracle(m, 2.0, 1.0, d);
    REQUIRE(memo.code == status::ok);
    const ldp::wire::params& p = memo.block;
    ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
    REQUIRE(oracle.code == status::ok);
    // hits[j]: secrets whose response of `item` has bit j (unary) or hits the item's bucket (OLH,
    // j = 0); joint[a][b]: the same indicator for `item` (a) and `other_item` (b).
    std::vector<uint64_t> hits(d, 0);
    std::vector<std::vector<uint64_t>> joint(2, std::vector<uint64_t>(2, 0));
    for (uint64_t s = 0; s < secrets; ++s) {
      device_secret secret;
      rng.fill(secret.bytes, sizeof secret.bytes);
      bool first = false, second = false;
      for (uint32_t x : {item, other_item}) {
        ldp::wire::report r;
        REQUIRE(oracle->permanent_fields(x, {secret.bytes, 9}, k, &r) == status::ok);
        bool hit = false;
        if (unary(p)) {
          for (uint32_t j = 0; j < d; ++j) {
            const bool bit = ((r.bits[j / 8] >> (j % 8)) & 1) != 0;
            if (x == item) hits[j] += bit;
          }
          hit = ((r.bits[x / 8] >> (x % 8)) & 1) != 0;
        } else {
          const auto g = static_cast<uint32_t>(p.get(field::hash_range));
          hit = r.index == ldp::wire::hash_to_range(ldp::wire::report_hash_key(r.seed), x, g);
          if (x == item) hits[0] += hit;
        }
        (x == item ? first : second) = hit;
      }
      ++joint[first][second];
    }
    const auto within = [&](uint64_t k_hits, uint64_t threshold) {
      const auto ci = ldp::test::clopper_pearson(k_hits, secrets, alpha);
      const double expected = static_cast<double>(t(threshold));
      return ci.lo <= expected && expected <= ci.hi;
    };
    if (unary(p)) {
      for (uint32_t j = 0; j < d; ++j) {
        CAPTURE(j);
        CHECK(within(hits[j], p.get(j == item ? field::threshold_keep : field::threshold_other)));
      }
    } else {
      CHECK(within(hits[0], p.get(field::threshold_keep)));
    }
    CHECK(ldp::test::chi_square_independence(joint).p_value > alpha);
  }
}

TEST_CASE("the averaging attack: recovers the value without memoization, only the permanent response with it") {
  constexpr uint32_t d = 8;
  constexpr int devices = 200, reports = 2000;
  constexpr double inf = 2.0, report_level = 1.0, alpha = 1e-7;
  for (mechanism m : ldp::test::memoized_oracles()) {
    const std::string name = ldp::wire::mechanism_name(m);
    CAPTURE(name);
    const auto memo = ldp::wire::make_memoized_oracle(m, inf, report_level, d);
    REQUIRE(memo.code == status::ok);
    const ldp::wire::params& p = memo.block;
    // The plain oracle at the same per-report level (olh: the g of that level).
    const auto plain = ldp::wire::make_frequency_oracle(m, memo.epsilon_impl, d);
    REQUIRE(plain.code == status::ok);
    ldp::test::owned_context<ldp::device::frequency_context> memoized(p);
    ldp::test::owned_context<ldp::device::frequency_context> ordinary(plain.block);
    REQUIRE(memoized.code == status::ok);
    REQUIRE(ordinary.code == status::ok);
    auto rng = ldp::test::seeded_drbg((name + " averaging attack").c_str());
    // The attacker's support count of every item over one device's reports, then its guess.
    const auto guess = [&](const ldp::wire::params& block, const std::vector<ldp::wire::report>& seen) {
      std::vector<uint64_t> support(d, 0);
      for (const auto& r : seen) {
        for (uint32_t v = 0; v < d; ++v) {
          if (unary(block)) {
            support[v] += (r.bits[v / 8] >> (v % 8)) & 1;
          } else {
            const auto g = static_cast<uint32_t>(block.get(field::hash_range));
            support[v] += r.index == ldp::wire::hash_to_range(ldp::wire::report_hash_key(r.seed), v, g);
          }
        }
      }
      uint32_t best = 0;
      for (uint32_t v = 1; v < d; ++v) best = support[v] > support[best] ? v : best;
      return best;
    };
    // The permanent response as the attacker reconstructs it from the averaged support: unary, the
    // items supported by more than half of the reports; local hashing, the seed and the modal bucket.
    const auto reconstruct = [&](const std::vector<ldp::wire::report>& seen) {
      std::string out;
      if (unary(p)) {
        for (uint32_t v = 0; v < d; ++v) {
          uint64_t ones = 0;
          for (const auto& r : seen) ones += (r.bits[v / 8] >> (v % 8)) & 1;
          out += 2 * ones > seen.size() ? '1' : '0';
        }
        return out;
      }
      std::vector<uint64_t> buckets(static_cast<std::size_t>(p.get(field::hash_range)), 0);
      for (const auto& r : seen) ++buckets[r.index];
      uint32_t mode = 0;
      for (uint32_t b = 1; b < buckets.size(); ++b) mode = buckets[b] > buckets[mode] ? b : mode;
      return std::to_string(seen.front().seed) + ":" + std::to_string(mode);
    };
    const auto describe_permanent = [&](const ldp::wire::report& r) {
      std::string out;
      if (!unary(p)) return std::to_string(r.seed) + ":" + std::to_string(r.index);
      for (uint32_t v = 0; v < d; ++v) out += ((r.bits[v / 8] >> (v % 8)) & 1) != 0 ? '1' : '0';
      return out;
    };
    // Hoeffding: the reconstruction misses a bit (a bucket) of one device with at most this
    // probability (unary: d bits whose report frequency is instant_keep or instant_other, both
    // gap away from 1/2; local hashing: g - 1 buckets each less frequent than the permanent one by
    // instant_keep - (1 - instant_keep) / (g - 1), per-report differences in [-1, 1]).
    const double ik = static_cast<double>(t(p.get(field::instant_keep)));
    const double miss = unary(p) ? d * std::exp(-2.0 * reports * (ik - 0.5) * (ik - 0.5)) : [&] {
      const double g = static_cast<double>(p.get(field::hash_range)), gap = ik - (1 - ik) / (g - 1);
      return (g - 1) * std::exp(-reports * gap * gap / 2);
    }();
    REQUIRE(devices * miss < 1e-9);
    int plain_success = 0, memo_success = 0, permanent_matches = 0;
    for (int device = 0; device < devices; ++device) {
      const uint32_t value = ldp::random::uniform_below(rng, d);
      device_secret secret;
      rng.fill(secret.bytes, sizeof secret.bytes);
      std::vector<ldp::wire::report> plain_reports, memo_reports;
      std::vector<std::vector<unsigned char>> payloads;  // decoded reports point into these
      payloads.reserve(2 * reports);
      for (int i = 0; i < reports; ++i) {
        for (bool memoize : {false, true}) {
          auto& oracle = memoize ? memoized : ordinary;
          const ldp::wire::params& block = memoize ? p : plain.block;
          std::vector<unsigned char> out(ldp::wire::max_payload_size(block));
          std::size_t size = 0;
          const status s = memoize ? oracle->randomize_memoized(value, {secret.bytes, 3}, rng, out,
                                                                ldp::device::framing::payload, &size)
                                   : oracle->randomize(value, rng, out, ldp::device::framing::payload, &size);
          REQUIRE(s == status::ok);
          out.resize(size);
          payloads.push_back(std::move(out));
          ldp::wire::report r;
          REQUIRE(ldp::wire::decode_payload(block, payloads.back(), &r) == status::ok);
          (memoize ? memo_reports : plain_reports).push_back(r);
        }
      }
      plain_success += guess(plain.block, plain_reports) == value;
      memo_success += guess(p, memo_reports) == value;
      // What the reports reveal is the permanent response, exactly.
      ldp::wire::report permanent;
      REQUIRE(memoized->permanent_fields(value, {secret.bytes, 3}, rng.kernel(), &permanent) == status::ok);
      permanent_matches += reconstruct(memo_reports) == describe_permanent(permanent);
    }
    const double limit = std::exp(inf) / (std::exp(inf) + d - 1);
    CAPTURE(plain_success);
    CAPTURE(memo_success);
    CHECK(ldp::test::clopper_pearson(static_cast<uint64_t>(plain_success), devices, alpha).lo > 0.9);
    CHECK(ldp::test::clopper_pearson(static_cast<uint64_t>(memo_success), devices, alpha).lo <= limit);
    CHECK(permanent_matches == devices);
    MESSAGE(name << ": the attacker guesses the value of " << plain_success << " of " << devices
                 << " devices without memoization, " << memo_success << " with it (bound " << limit * devices << ")");
  }
}

TEST_CASE("Monte-Carlo audit of the real path: epsilon_1 per report, epsilon_inf per permanent response") {
  constexpr uint64_t runs = 200000;
  constexpr double alpha = 5e-8;
  constexpr uint32_t d = 16, v = 3, w = 11;
  REQUIRE(ldp::test::memoized_oracles().size() == 4);  // the bound above counts 4 oracles
  for (mechanism m : ldp::test::memoized_oracles()) {
    const std::string name = ldp::wire::mechanism_name(m);
    CAPTURE(name);
    const auto memo = ldp::wire::make_memoized_oracle(m, 4.0, 1.0, d);
    REQUIRE(memo.code == status::ok);
    const ldp::wire::params& p = memo.block;
    ldp::test::owned_context<ldp::device::frequency_context> oracle(p);
    REQUIRE(oracle.code == status::ok);
    auto rng = ldp::test::seeded_drbg((name + " memoized audit").c_str());
    const auto in_event = [&](const ldp::wire::report& r) {
      if (unary(p)) return ((r.bits[v / 8] >> (v % 8)) & 1) != 0 && ((r.bits[w / 8] >> (w % 8)) & 1) == 0;
      const auto key = ldp::wire::report_hash_key(r.seed);
      const auto g = static_cast<uint32_t>(p.get(field::hash_range));
      const uint32_t hv = ldp::wire::hash_to_range(key, v, g);
      return hv != ldp::wire::hash_to_range(key, w, g) && r.index == hv;
    };
    // hits[input][0]: memoized reports in the event, hits[input][1]: permanent responses.
    uint64_t hits[2][2] = {};
    std::vector<unsigned char> out(ldp::wire::max_payload_size(p));
    for (int input = 0; input < 2; ++input) {
      const uint32_t item = input == 0 ? v : w;
      uint64_t failures = 0;
      for (uint64_t i = 0; i < runs; ++i) {
        device_secret secret;
        rng.fill(secret.bytes, sizeof secret.bytes);
        std::size_t size = 0;
        ldp::wire::report r;
        failures += oracle->randomize_memoized(item, {secret.bytes, 5}, rng, out, ldp::device::framing::payload,
                                               &size) != status::ok;
        failures += ldp::wire::decode_payload(p, {out.data(), size}, &r) != status::ok;
        hits[input][0] += in_event(r);
        failures += oracle->permanent_fields(item, {secret.bytes, 5}, rng.kernel(), &r) != status::ok;
        hits[input][1] += in_event(r);
      }
      REQUIRE(failures == 0);
    }
    for (int stage = 0; stage < 2; ++stage) {
      const double level = stage == 0 ? memo.epsilon_impl : ldp::wire::longitudinal_epsilon(p);
      CAPTURE(stage);
      ldp::test::check_audit_event(hits[0][stage], hits[1][stage], runs, alpha, level);
    }
  }
}
