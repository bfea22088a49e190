// Server side of the distribution family (ldp/server/distribution.h, docs/mechanisms.md G,
// docs/wire_format.md 7.5): the family is found through the generic entry points and bounded by the
// memory limit, reports count by output or level and bad ones by status, any split merged in any
// order serializes to the same bytes, states round-trip and hostile states are refused, and the
// query entry points refuse what they cannot answer and answer a known distribution exactly.
// Reports are built at the wire level (G.1's window rule, G.2's level draw), not by the device.
#include <doctest/doctest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "frequency_fixture.h"
#include "ldp/random/samplers.h"
#include "ldp/server/distribution.h"
#include "merge_order.h"

using namespace ldp::test::frequency;
using ldp::server::distribution_aggregator;
using ldp::server::distribution_options;
using ldp::server::range_estimate;
using distribution = std::unique_ptr<distribution_aggregator>;

namespace {

// Square Wave on 16 buckets of [-1, 1] (b = 3), the hierarchical histogram 4 x 4 and Haar over 16.
std::vector<params> distribution_blocks() {
  std::vector<params> out;
  for (mechanism m : {mechanism::square_wave, mechanism::hierarchical, mechanism::haar}) {
    out.push_back(ldp::test::example_params(m));
  }
  return out;
}

uint64_t get_le(const bytes& b, std::size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b[at + static_cast<std::size_t>(i)];
  return v;
}

distribution make_distribution(const params& p) {
  distribution a;
  REQUIRE(distribution_aggregator::create(p, &a) == status::ok);
  REQUIRE(a != nullptr);
  return a;
}

// One device of bucket v, at the wire level: G.1's output (the window with probability T / 2^32,
// else one of the D - 1 others), or G.2's level draw with the level's node hashed by OLH.
bytes device_report(const params& p, uint32_t v, ldp::random::drbg& rng) {
  ldp::wire::report r;
  if (p.mech == mechanism::square_wave) {
    const auto b = static_cast<uint32_t>(p.get(field::window_half_width));
    const auto d = static_cast<uint32_t>(p.get(field::domain));
    if (ldp::random::bernoulli(rng, p.get(field::threshold_keep))) {
      r.index = v + ldp::random::uniform_below(rng, 2 * b + 1);
    } else {
      const uint32_t u = ldp::random::uniform_below(rng, d - 1);
      r.index = u < v ? u : u + 2 * b + 1;
    }
  } else {
    r.group = ldp::random::uniform_below(rng, ldp::wire::distribution_levels(p));
    r.seed = rng.next_u64();
    const uint32_t item = ldp::wire::distribution_item(p, r.group, v);
    // Not the OLH randomizer: the bucket's hash, so the reports are valid and their counts exact.
    r.index = ldp::wire::hash_to_range(ldp::wire::report_hash_key(r.seed), item,
                                       static_cast<uint32_t>(p.get(field::hash_range)));
  }
  return encode(p, r);
}

std::vector<bytes> fleet(const params& p, const char* name, int count) {
  auto rng = ldp::test::seeded_drbg(name);
  std::vector<bytes> out;
  const auto d = static_cast<uint32_t>(p.get(field::domain));
  for (int i = 0; i < count; ++i) out.push_back(device_report(p, static_cast<uint32_t>(i * 7) % d, rng));
  return out;
}

}  // namespace

TEST_CASE("distribution: the family is served, other families are refused, memory is bounded") {
  for (const params& p : distribution_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    CHECK(distribution_aggregator::handles(p.mech));
    std::unique_ptr<ldp::server::aggregator> any;
    REQUIRE(ldp::server::aggregator::create(p, &any) == status::ok);
    CHECK(dynamic_cast<distribution_aggregator*>(any.get()) != nullptr);
    aggregator f;
    CHECK(frequency_aggregator::create(p, &f) == status::invalid_parameters);
    // The D estimates of estimate_all() are part of what the block needs.
    uint64_t need = 0;
    REQUIRE(ldp::server::aggregator_bytes(p, &need) == status::ok);
    CHECK(need >= 16 * sizeof(estimate));
    ldp::server::limits tight;
    tight.max_state_bytes = need - 1;
    CHECK(ldp::server::aggregator::create(p, tight, &any) == status::limit_exceeded);
    CHECK(any == nullptr);
    tight.max_state_bytes = need;
    CHECK(ldp::server::aggregator::create(p, tight, &any) == status::ok);
    // Without reports: D buckets of NaN counts.
    const std::vector<estimate> all = any->estimate_all();
    REQUIRE(all.size() == 16);
    for (const estimate& e : all) CHECK(std::isnan(e.value));
  }
  CHECK(!distribution_aggregator::handles(mechanism::olh));
  distribution d;
  CHECK(distribution_aggregator::create(block(mechanism::olh), &d) == status::invalid_parameters);
  CHECK(d == nullptr);
  // The widest Square Wave: 2^16 buckets with b = 2^16 (3 * 2^16 outputs).
  const params wide = ldp::wire::make_square_wave(1.0, 65536, 0, 65536, 0, 65536).block;
  uint64_t state = 0;
  REQUIRE(ldp::server::state_bytes(wide, 0, &state) == status::ok);
  CHECK(state > 8 * 3 * 65536);
  CHECK(state < 8 * 3 * 65536 + 512);
}

TEST_CASE("distribution: reports count by output or level, bad ones by status") {
  for (const params& p : distribution_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    distribution a = make_distribution(p);
    std::vector<bytes> reports = fleet(p, "distribution ingest", 60);
    reports[3].pop_back();  // wrong_length
    reports[7][2] ^= 1;     // a foreign fingerprint
    // Square Wave: an output past D + 2b = 22; the tree forms: a level past h (the first payload byte).
    reports[9][10] =
        static_cast<unsigned char>(p.mech == mechanism::square_wave ? 22 : ldp::wire::distribution_levels(p));
    uint64_t ok = 0;
    for (const bytes& r : reports) ok += a->add_report(r) == status::ok ? 1 : 0;
    CHECK(ok == 57);
    CHECK(a->reports() == 57);
    CHECK(a->rejected()[static_cast<std::size_t>(status::wrong_length)] == 1);
    CHECK(a->rejected()[static_cast<std::size_t>(status::parameter_mismatch)] == 1);
    CHECK(a->rejected()[static_cast<std::size_t>(status::out_of_range)] == 1);
    CHECK(a->rejected_total() == 3);
  }
}

TEST_CASE("distribution: a batch counts as its reports do, a run with a bad output record by record") {
  // Also Square Wave over 300 buckets: outputs of two bytes.
  std::vector<params> blocks = distribution_blocks();
  blocks.push_back(ldp::wire::make_square_wave(1.0, 300, -1, 1, 16).block);
  REQUIRE(ldp::wire::max_payload_size(blocks.back()) == 2);
  for (const params& p : blocks) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    CAPTURE(p.get(field::domain));
    const std::vector<bytes> reports = fleet(p, "distribution batch", 40);
    std::vector<bytes> payloads;
    for (const bytes& r : reports) payloads.push_back(payload_of(r));
    distribution one_by_one = make_distribution(p);
    for (const bytes& r : reports) REQUIRE(one_by_one->add_report(r) == status::ok);
    bytes batch = batch_header(p);
    append(batch, chunk(std::vector<bytes>(payloads.begin(), payloads.begin() + 25)));
    append(batch, chunk(std::vector<bytes>(payloads.begin() + 25, payloads.end())));
    append(batch, chunk({}));
    distribution batched = make_distribution(p);
    REQUIRE(batched->add_batch(batch) == status::ok);
    CHECK(batched->serialize() == one_by_one->serialize());

    // An output past D + 2b (all ones), or the tree forms' level h, in the middle of a chunk: that
    // record alone is rejected.
    std::vector<bytes> bad = payloads;
    if (p.mech == mechanism::square_wave) {
      for (unsigned char& c : bad[10]) c = 0xff;
    } else {
      bad[10][0] = static_cast<unsigned char>(ldp::wire::distribution_levels(p));
    }
    bytes damaged = batch_header(p);
    append(damaged, chunk(bad));
    append(damaged, chunk({}));
    distribution counted = make_distribution(p);
    REQUIRE(counted->add_batch(damaged) == status::ok);
    CHECK(counted->reports() == 39);
    CHECK(counted->rejected()[static_cast<std::size_t>(status::out_of_range)] == 1);
  }
}

TEST_CASE("distribution: any split in any order serializes to the same bytes, and states round-trip") {
  for (const params& p : distribution_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    // 200 reports: the tree forms' levels pass OLH's counts form (at ceil(2 * 16 / 3) = 11 reports).
    const std::vector<bytes> reports = fleet(p, "distribution merge", 200);
    distribution whole = make_distribution(p);
    for (const bytes& r : reports) REQUIRE(whole->add_report(r) == status::ok);
    const bytes expected = whole->serialize();
    REQUIRE(!expected.empty());
    distribution part[3] = {make_distribution(p), make_distribution(p), make_distribution(p)};
    for (std::size_t i = 0; i < reports.size(); ++i) REQUIRE(part[i * 7 % 3]->add_report(reports[i]) == status::ok);
    for (const auto& order : {std::vector<int>{0, 1, 2}, {2, 0, 1}, {1, 2, 0}}) {
      distribution acc = make_distribution(p);
      for (int i : order) REQUIRE(acc->merge(*part[i]) == status::ok);
      CHECK(acc->serialize() == expected);
    }
    // Few reports (every level in OLH's list form), split at every point.
    const std::vector<bytes> few(reports.begin(), reports.begin() + 6);
    distribution small = make_distribution(p);
    for (const bytes& r : few) REQUIRE(small->add_report(r) == status::ok);
    ldp::test::check_merge_order(p, few, {0, 1, 3, 6}, small->serialize());

    distribution loaded;
    REQUIRE(distribution_aggregator::deserialize(view(expected), &loaded) == status::ok);
    CHECK(loaded->serialize() == expected);
    CHECK(loaded->reports() == 200);
    ldp::server::limits tight;
    tight.max_state_bytes = expected.size() - 1;
    std::unique_ptr<ldp::server::aggregator> any;
    CHECK(ldp::server::aggregator::deserialize(view(expected), tight, &any) == status::limit_exceeded);
    // Another block's state is refused and changes nothing.
    distribution other = make_distribution(distribution_blocks()[p.mech == mechanism::square_wave ? 1 : 0]);
    CHECK(whole->merge(*other) == status::parameter_mismatch);
    CHECK(whole->serialize() == expected);
    // Self-merge doubles the counts.
    REQUIRE(loaded->merge(*loaded) == status::ok);
    CHECK(loaded->reports() == 400);
  }
  // A frequency state is not a distribution state.
  aggregator olh = make(block(mechanism::olh));
  distribution out;
  CHECK(distribution_aggregator::deserialize(view(olh->serialize()), &out) == status::invalid_parameters);
}

TEST_CASE("distribution: hostile states are refused with their status, whatever loads is canonical") {
  for (const params& p : distribution_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    distribution a = make_distribution(p);
    for (const bytes& r : fleet(p, "distribution corrupt", 5)) REQUIRE(a->add_report(r) == status::ok);
    const bytes state = a->serialize();
    const bytes body = body_of(state);
    const std::size_t n_at = 2 + block_size(body), counts_at = n_at + 8 + 128;
    distribution out;
    for (std::size_t i = 0; i < body.size(); ++i) {
      for (int mask : {0x01, 0x80, 0xff}) {
        bytes b = body;
        b[i] = static_cast<unsigned char>(b[i] ^ mask);
        const bytes file = with_body(p.mech, a->fingerprint(), b);
        const status s = distribution_aggregator::deserialize(view(file), &out);
        CAPTURE(i);
        if (s == status::ok) {
          CHECK(out->serialize() == file);
        } else {
          CHECK(out == nullptr);
        }
        if (i >= n_at && i < n_at + 8) CHECK(s != status::ok);  // n must be the counts' sum
      }
    }
    for (std::size_t cut = 0; cut < body.size(); ++cut) {
      const bytes file =
          with_body(p.mech, a->fingerprint(), bytes(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(cut)));
      CHECK(distribution_aggregator::deserialize(view(file), &out) == status::wrong_length);
    }
    bytes longer = body;
    longer.push_back(0);
    CHECK(distribution_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), longer)), &out) ==
          status::wrong_length);
    // A count moved up: the counts (or level counts) no longer add up to n.
    bytes moved = body;
    moved[counts_at] = static_cast<unsigned char>(moved[counts_at] + 1);
    CHECK(distribution_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), moved)), &out) ==
          status::malformed_report);
    // Two counts raised by 2^63 each: their sum wraps back to n, which is refused, not wrapped.
    bytes huge = body;
    for (std::size_t at : {counts_at, counts_at + 8}) put_le(huge, at, get_le(huge, at) + (uint64_t{1} << 63));
    CHECK(distribution_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), huge)), &out) ==
          status::malformed_report);
  }
}

TEST_CASE("distribution: the queries refuse bad arguments and give NaN without reports") {
  for (const params& p : distribution_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    distribution a = make_distribution(p);
    const distribution_options o;
    std::vector<range_estimate> r;
    std::vector<ldp::server::quantile_estimate> q;
    std::vector<ldp::server::density_estimate> d;
    const double nan = std::nan("");
    const std::pair<double, double> good[] = {{-0.5, 0.5}};
    CHECK(a->ranges(good, o, nullptr) == status::invalid_argument);
    for (const auto& bad : {std::pair<double, double>{1, 0}, {nan, 0}, {0, INFINITY}}) {
      const std::pair<double, double> one[] = {bad};
      CHECK(a->ranges(one, o, &r) == status::invalid_argument);
    }
    for (double bad : {-0.1, 1.5, nan}) {
      const double one[] = {bad};
      CHECK(a->quantiles(one, o, &q) == status::invalid_argument);
    }
    distribution_options wrong;
    wrong.confidence = 1.5;
    CHECK(a->ranges(good, wrong, &r) == status::invalid_argument);
    CHECK(a->density(wrong, &d) == status::invalid_argument);
    CHECK(a->density(o, nullptr) == status::invalid_argument);

    REQUIRE(a->ranges(good, o, &r) == status::ok);
    REQUIRE(r.size() == 1);
    CHECK(r[0].lo == -0.5);
    CHECK(std::isnan(r[0].estimate));
    const double qs[] = {0.5};
    REQUIRE(a->quantiles(qs, o, &q) == status::ok);
    REQUIRE(q.size() == 1);
    CHECK(std::isnan(q[0].value));
    REQUIRE(a->density(o, &d) == status::ok);
    REQUIRE(d.size() == 16);
    CHECK(d[0].x == doctest::Approx(-1 + 1.0 / 16));  // bucket 0 is [-1, -7/8)
    CHECK(std::isnan(d[0].value));
  }
}

// The output counts a Square Wave state would hold for the uniform distribution over the buckets,
// rounded: EMS's fixed point is then the uniform (the smoothing keeps it), so every answer is known.
TEST_CASE("square wave: a uniform distribution's ranges, quantiles and densities") {
  const params p = ldp::test::example_params(mechanism::square_wave);  // D = 16 of [-1, 1], b = 3
  const uint64_t n = uint64_t{1} << 40;
  const double keep = prob(p, field::threshold_keep), in = keep / 7, out = (1 - keep) / 15;
  bytes body;
  bytes block(ldp::wire::params_max_size);
  std::size_t block_bytes = 0;
  REQUIRE(ldp::wire::encode_params(p, block, &block_bytes) == status::ok);
  body.push_back(static_cast<unsigned char>(block_bytes));
  body.push_back(0);
  body.insert(body.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t>(block_bytes));
  std::vector<uint64_t> counts(22);
  uint64_t total = 0;
  for (std::size_t y = 0; y < 22; ++y) {
    const double window = static_cast<double>(std::min<std::size_t>(y, 15) - (y > 6 ? y - 6 : 0) + 1) / 16;
    counts[y] = static_cast<uint64_t>(std::llround(static_cast<double>(n) * (out + (in - out) * window)));
    total += counts[y];
  }
  body.resize(body.size() + 8 + 128 + 8 * 22);
  put_le(body, 2 + block_bytes, total);
  for (std::size_t y = 0; y < 22; ++y) put_le(body, 2 + block_bytes + 136 + 8 * y, counts[y]);
  distribution a;
  REQUIRE(distribution_aggregator::deserialize(view(with_body(p.mech, ldp::wire::fingerprint(p), body)), &a) ==
          status::ok);

  distribution_options o;
  o.bootstrap = 20;
  // Whole buckets, parts of buckets (a quarter of [-1, -7/8) and more), a range outside, the whole.
  const std::pair<double, double> asked[] = {{-1, 0}, {-1, -0.96875}, {0.1, 0.35}, {-3, -2}, {-5, 5}, {0.5, 0.5}};
  const double expect[] = {0.5, 1.0 / 64, 0.125, 0, 1, 0};
  std::vector<range_estimate> r;
  REQUIRE(a->ranges(asked, o, &r) == status::ok);
  REQUIRE(r.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    CHECK(r[i].estimate == doctest::Approx(expect[i]).epsilon(1e-6));
    CHECK(r[i].variance >= 0);
    CHECK(r[i].ci_low <= r[i].estimate);
    CHECK(r[i].ci_high >= r[i].estimate);
  }
  CHECK(r[4].variance < 1e-20);  // every replicate sums to 1
  CHECK(r[0].variance > 0);
  const double qs[] = {0, 0.25, 0.5, 0.9, 1};
  std::vector<ldp::server::quantile_estimate> q;
  REQUIRE(a->quantiles(qs, o, &q) == status::ok);
  for (std::size_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(q[i].value == doctest::Approx(-1 + 2 * qs[i]).epsilon(1e-6));
    CHECK(q[i].ci_low <= q[i].value + 1e-12);
    CHECK(q[i].ci_high >= q[i].value - 1e-12);
  }
  std::vector<ldp::server::density_estimate> d;
  REQUIRE(a->density(o, &d) == status::ok);
  REQUIRE(d.size() == 16);
  for (const auto& e : d) CHECK(e.value == doctest::Approx(0.5).epsilon(1e-6));  // 1 / W
  const std::vector<estimate> all = a->estimate_all();
  REQUIRE(all.size() == 16);
  CHECK(all[5].item == 5);
  CHECK(all[5].value == doctest::Approx(static_cast<double>(total) / 16).epsilon(1e-6));

  // The bootstrap is a function of the state and the seed.
  std::vector<range_estimate> again, other;
  REQUIRE(a->ranges(asked, o, &again) == status::ok);
  CHECK(again[0].variance == r[0].variance);
  o.seed = 1;
  REQUIRE(a->ranges(asked, o, &other) == status::ok);
  CHECK(other[0].variance != r[0].variance);
  CHECK(other[0].estimate == r[0].estimate);
  o.bootstrap = 0;  // no spread asked for
  REQUIRE(a->ranges(asked, o, &other) == status::ok);
  CHECK(other[0].estimate == r[0].estimate);
  CHECK(std::isnan(other[0].variance));
}

TEST_CASE("square wave: the bootstrap is the same on any number of threads") {
  const params p = ldp::wire::make_square_wave(1.0, 64, 0, 1, 16).block;
  distribution a = make_distribution(p);
  for (const bytes& r : fleet(p, "distribution threads", 3000)) REQUIRE(a->add_report(r) == status::ok);
  distribution_options o;
  o.bootstrap = 64;  // 64 replicates of 64 + 2b outputs: split in up to 4 parts at a limit of 4
  const std::pair<double, double> asked[] = {{0, 0.3}, {0.2, 0.9}};
  std::vector<range_estimate> one, many;
  ldp::server::set_thread_limit(1);
  REQUIRE(a->ranges(asked, o, &one) == status::ok);
  ldp::server::set_thread_limit(4);
  REQUIRE(a->ranges(asked, o, &many) == status::ok);
  ldp::server::set_thread_limit(0);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(one[i].estimate == many[i].estimate);
    CHECK(one[i].variance == many[i].variance);
    CHECK(one[i].variance > 0);
  }
}

TEST_CASE("distribution: every form answers through the aggregator, NaN while a level has no report") {
  for (const params& p : distribution_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    distribution a = make_distribution(p);
    REQUIRE(a->add_report(fleet(p, "distribution one", 1)[0]) == status::ok);
    const distribution_options o;
    const std::pair<double, double> asked[] = {{-1, 1}, {-1, 0}, {-0.3, 0.2}};
    std::vector<range_estimate> r;
    REQUIRE(a->ranges(asked, o, &r) == status::ok);
    // One report leaves a tree form's other levels empty (Square Wave has no levels).
    CHECK(std::isnan(r[1].estimate) == (p.mech != mechanism::square_wave));

    for (const bytes& b : fleet(p, "distribution all", 2000)) REQUIRE(a->add_report(b) == status::ok);
    REQUIRE(a->ranges(asked, o, &r) == status::ok);
    CHECK(r[0].estimate == doctest::Approx(1));  // the whole range holds every report
    CHECK(r[0].variance < 1e-12);
    for (const range_estimate& e : r) {
      CHECK(std::isfinite(e.estimate));
      CHECK(e.ci_low <= e.estimate);
      CHECK(e.ci_high >= e.estimate);
    }
    // The fleet's buckets 7 i mod 16 are uniform: F(0) = 1/2 within the noise of 2,000 reports.
    CHECK(std::fabs(r[1].estimate - 0.5) < 5 * std::sqrt(r[1].variance));
    const double qs[] = {0.1, 0.5, 0.9};
    std::vector<ldp::server::quantile_estimate> q;
    REQUIRE(a->quantiles(qs, o, &q) == status::ok);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(q[i].ci_low <= q[i].value);
      CHECK(q[i].value <= q[i].ci_high);
      if (i > 0) CHECK(q[i - 1].value <= q[i].value);
    }
    const std::vector<estimate> all = a->estimate_all();
    REQUIRE(all.size() == 16);
    double total = 0;
    for (const estimate& e : all) total += e.value;
    CHECK(total == doctest::Approx(2001));  // the buckets add up to n
  }
}

TEST_CASE("distribution: answer() gives every question what its own call gives, from one model") {
  for (const params& p : distribution_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    distribution a = make_distribution(p);
    for (const bytes& b : fleet(p, "distribution answer", 1500)) REQUIRE(a->add_report(b) == status::ok);
    distribution_options o;
    o.bootstrap = 16;
    o.seed = 7;
    ldp::server::distribution_query q;
    q.ranges = {{-1, 0.25}, {-0.5, 0.5}};
    q.quantiles = {0.25, 0.75};
    q.density = true;
    ldp::server::distribution_answer all;
    REQUIRE(a->answer(q, o, &all) == status::ok);
    std::vector<range_estimate> r;
    std::vector<ldp::server::quantile_estimate> qs;
    std::vector<ldp::server::density_estimate> d;
    REQUIRE(a->ranges(q.ranges, o, &r) == status::ok);
    REQUIRE(a->quantiles(q.quantiles, o, &qs) == status::ok);
    REQUIRE(a->density(o, &d) == status::ok);
    REQUIRE(all.ranges.size() == r.size());
    REQUIRE(all.quantiles.size() == qs.size());
    REQUIRE(all.density.size() == d.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
      CHECK(all.ranges[i].estimate == r[i].estimate);
      CHECK(all.ranges[i].variance == r[i].variance);
    }
    for (std::size_t i = 0; i < qs.size(); ++i) {
      CHECK(all.quantiles[i].value == qs[i].value);
      CHECK(all.quantiles[i].ci_low == qs[i].ci_low);
      CHECK(all.quantiles[i].ci_high == qs[i].ci_high);
    }
    for (std::size_t i = 0; i < d.size(); ++i) CHECK(all.density[i].ci_high == d[i].ci_high);
    // Parts not asked for stay empty; a bad quantile refuses the whole call.
    q.density = false;
    q.ranges.clear();
    REQUIRE(a->answer(q, o, &all) == status::ok);
    CHECK(all.ranges.empty());
    CHECK(all.density.empty());
    q.quantiles.push_back(1.5);
    CHECK(a->answer(q, o, &all) == status::invalid_argument);
  }
}
