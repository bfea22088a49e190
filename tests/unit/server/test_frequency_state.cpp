// Server side of the frequency oracles, merge and saved state: merge order independence, merges
// refused or overflowing without changing the state, serialize / deserialize round trips, and
// corrupted states (every byte flip, truncation and body mutation, and the specific statuses).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "frequency_fixture.h"

using namespace ldp::test::frequency;

TEST_CASE("merge: any split and any order serialize to identical bytes") {
  for (mechanism m : oracles) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = block(m);
    std::vector<bytes> reports = random_reports(p, "merge", 90);
    reports[10].pop_back();  // a truncated report in the first part
    reports[75][2] ^= 1;     // a foreign fingerprint in the last part
    aggregator whole = make(p);
    for (const bytes& b : reports) static_cast<void>(whole->add_report(b));
    aggregator part[3] = {make(p), make(p), make(p)};
    for (std::size_t i = 0; i < reports.size(); ++i) static_cast<void>(part[i / 30]->add_report(reports[i]));
    const bytes expected_bytes = whole->serialize();
    REQUIRE(!expected_bytes.empty());

    const int orders[][3] = {{0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {2, 1, 0}};
    for (const auto& order : orders) {
      aggregator acc = make(p);
      for (int i : order) REQUIRE(acc->merge(*part[i]) == status::ok);
      CHECK(acc->serialize() == expected_bytes);
    }
    // A tree: (1 + 2) into a copy of 0.
    aggregator left, right;
    REQUIRE(frequency_aggregator::deserialize(view(part[0]->serialize()), &left) == status::ok);
    REQUIRE(frequency_aggregator::deserialize(view(part[1]->serialize()), &right) == status::ok);
    REQUIRE(right->merge(*part[2]) == status::ok);
    REQUIRE(left->merge(*right) == status::ok);
    CHECK(left->serialize() == expected_bytes);
    CHECK(left->reports() == 88);
    CHECK(rejected(*left, status::wrong_length) == 1);
    CHECK(rejected(*left, status::parameter_mismatch) == 1);
    CHECK(same_estimates(left->estimate_all(), whole->estimate_all()));
  }
}

TEST_CASE("merge refuses other parameters and leaves the state unchanged") {
  const params p = block(mechanism::grr);
  aggregator a = make(p);
  for (const bytes& b : random_reports(p, "foreign merge", 20)) REQUIRE(a->add_report(b) == status::ok);
  const bytes before = a->serialize();
  aggregator other_eps = make(block(mechanism::grr, 2.0));
  aggregator other_d = make(block(mechanism::grr, 1.0, 11));
  aggregator other_mech = make(block(mechanism::oue));
  for (const bytes& b : random_reports(other_eps->parameters(), "x", 5))
    REQUIRE(other_eps->add_report(b) == status::ok);
  CHECK(a->merge(*other_eps) == status::parameter_mismatch);
  CHECK(a->merge(*other_d) == status::parameter_mismatch);
  CHECK(a->merge(*other_mech) == status::parameter_mismatch);
  CHECK(a->serialize() == before);
  // Merging a state into itself doubles it (OLH too, whose merge appends its own list).
  for (mechanism m : {mechanism::grr, mechanism::olh, mechanism::hcms}) {
    const params q = block(m);
    aggregator s = make(q), twice = make(q);
    for (const bytes& b : random_reports(q, "self", 12)) {
      REQUIRE(s->add_report(b) == status::ok);
      REQUIRE(twice->add_report(b) == status::ok);
      REQUIRE(twice->add_report(b) == status::ok);
    }
    REQUIRE(s->merge(*s) == status::ok);
    CHECK(s->serialize() == twice->serialize());
  }
}

TEST_CASE("merge past 2^62 reports is overflow and changes nothing") {
  const params p = block(mechanism::grr, 1.0, 4);
  aggregator a = make(p);
  bytes body = body_of(a->serialize());
  const std::size_t at_n = 2 + block_size(body);
  const uint64_t big = (uint64_t{1} << 61) + 1;
  put_le(body, at_n, big);
  put_le(body, at_n + 8 + 128, big);  // h[0] = n
  aggregator x, y;
  REQUIRE(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), body)), &x) == status::ok);
  REQUIRE(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), body)), &y) == status::ok);
  const bytes before = x->serialize();
  CHECK(x->merge(*y) == status::overflow);
  CHECK(x->serialize() == before);
  // n itself above 2^62 does not load.
  put_le(body, at_n, (uint64_t{1} << 62) + 1);
  put_le(body, at_n + 8 + 128, (uint64_t{1} << 62) + 1);
  CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), body)), &x) == status::overflow);
}

TEST_CASE("serialize / deserialize round trip for every oracle") {
  for (mechanism m : oracles) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = block(m);
    aggregator a = make(p);
    std::vector<bytes> reports = random_reports(p, "round trip", 40);
    reports.push_back(bytes{1, 2, 3});  // one rejection to carry along
    for (const bytes& b : reports) static_cast<void>(a->add_report(b));
    const bytes state = a->serialize();
    REQUIRE(state.size() > 32);
    CHECK(std::memcmp(state.data(), "LDPS", 4) == 0);
    aggregator b;
    REQUIRE(frequency_aggregator::deserialize(state, &b) == status::ok);
    CHECK(b->parameters().mech == m);
    CHECK(b->reports() == 40);
    CHECK(b->rejected() == a->rejected());
    CHECK(b->serialize() == state);
    CHECK(same_estimates(b->estimate_all(), a->estimate_all()));
    // And it keeps aggregating: one more report on both sides.
    const bytes more = random_reports(p, "round trip more", 1)[0];
    REQUIRE(a->add_report(more) == status::ok);
    REQUIRE(b->add_report(more) == status::ok);
    CHECK(b->serialize() == a->serialize());
  }
}

TEST_CASE("corrupted state: every byte flip, truncation and body mutation is handled") {
  for (mechanism m : oracles) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const params p = m == mechanism::cms || m == mechanism::hcms
                         ? (m == mechanism::cms ? ldp::wire::make_cms(1.0, 10, 2, 4, sketch_seed)
                                                : ldp::wire::make_hcms(1.0, 10, 2, 4, sketch_seed))
                               .block
                         : block(m, 1.0, 4);
    aggregator a = make(p);
    for (const bytes& b : random_reports(p, "corrupt", 3)) REQUIRE(a->add_report(b) == status::ok);
    const bytes state = a->serialize();
    aggregator out;
    // Single-byte flips anywhere: a CRC or a header check catches every one.
    for (std::size_t i = 0; i < state.size(); ++i) {
      for (int mask : {0x01, 0x80, 0xff}) {
        bytes bad = state;
        bad[i] = static_cast<unsigned char>(bad[i] ^ mask);
        CAPTURE(i);
        CHECK(frequency_aggregator::deserialize(bad, &out) != status::ok);
        CHECK(out == nullptr);
      }
    }
    for (std::size_t size = 0; size < state.size(); ++size) {
      CHECK(frequency_aggregator::deserialize(span<const unsigned char>(state.data(), size), &out) != status::ok);
    }
    // Body flips behind a valid header reach the body checks: never a crash, and whatever loads is
    // canonical (it serializes back to the same bytes).
    const bytes body = body_of(state);
    const std::size_t counters = 2 + block_size(body) + 8;
    for (std::size_t i = 0; i < body.size(); ++i) {
      for (int mask : {0x01, 0x5a, 0xff}) {
        bytes b = body;
        b[i] = static_cast<unsigned char>(b[i] ^ mask);
        const bytes file = with_body(p.mech, a->fingerprint(), b);
        const status s = frequency_aggregator::deserialize(file, &out);
        CAPTURE(i);
        if (s == status::ok) {
          CHECK(out->serialize() == file);
        } else {
          CHECK(out == nullptr);
        }
        // For the histogram oracles only the 16 rejection counters (0: damaged chunks) may change freely.
        if (m == mechanism::grr || m == mechanism::hr) {
          CHECK((s == status::ok) == (i >= counters && i < counters + 128));
        }
      }
    }
    // Truncated and extended bodies behind a valid header.
    for (std::size_t cut = 0; cut < body.size(); ++cut) {
      const bytes file =
          with_body(p.mech, a->fingerprint(), bytes(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(cut)));
      CHECK(frequency_aggregator::deserialize(file, &out) != status::ok);
    }
    bytes longer = body;
    longer.push_back(0);
    CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), longer)), &out) ==
          status::wrong_length);
  }
}

TEST_CASE("corrupted state: specific statuses") {
  const params p = block(mechanism::grr, 1.0, 4);
  aggregator a = make(p);
  for (const bytes& b : random_reports(p, "statuses", 5)) REQUIRE(a->add_report(b) == status::ok);
  const bytes state = a->serialize();
  const bytes body = body_of(state);
  aggregator out;
  bytes bad = state;
  bad[0] = 'X';
  CHECK(frequency_aggregator::deserialize(bad, &out) == status::malformed_report);
  bad = state;
  bad.pop_back();
  CHECK(frequency_aggregator::deserialize(bad, &out) == status::wrong_length);
  bad = state;
  bad.back() ^= 1;
  CHECK(frequency_aggregator::deserialize(bad, &out) == status::checksum_mismatch);
  // A header naming other parameters than the block in the body.
  CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint() ^ 1, body)), &out) ==
        status::parameter_mismatch);
  CHECK(frequency_aggregator::deserialize(view(with_body(mechanism::hr, a->fingerprint(), body)), &out) ==
        status::parameter_mismatch);
  // Counts that do not add up to n.
  bytes b = body;
  const std::size_t counts = 2 + block_size(body) + 8 + 128;
  b[counts] = static_cast<unsigned char>(b[counts] + 1);
  CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) ==
        status::malformed_report);
  // Rejection counter 0 (ok) counts damaged batch chunks (issue 21).
  b = body;
  b[2 + block_size(body) + 8] = 1;
  REQUIRE(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) == status::ok);
  CHECK(out->damaged_chunks() == 1);
  CHECK(out->rejected_total() == 0);
  // A block length past the body.
  b = body;
  b[1] = 0x7f;
  CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) == status::wrong_length);
  // A non-oracle block (its own fingerprint in the header).
  const params lap = ldp::test::example_params(mechanism::laplace);
  unsigned char blk[ldp::wire::params_max_size];
  std::size_t blk_size = 0;
  REQUIRE(ldp::wire::encode_params(lap, blk, &blk_size) == status::ok);
  bytes lb = {static_cast<unsigned char>(blk_size), 0};
  lb.insert(lb.end(), blk, blk + blk_size);
  lb.resize(lb.size() + 8 + 128 + 16, 0);  // n, the counters, the mean family's 16-byte sum
  CHECK(frequency_aggregator::deserialize(view(with_body(mechanism::laplace, ldp::wire::fingerprint(lap), lb)), &out) ==
        status::invalid_parameters);

  // OLH: unsorted entries and a bucket >= g.
  const params o = block(mechanism::olh);
  aggregator olh = make(o);
  for (const bytes& r : random_reports(o, "olh state", 2)) REQUIRE(olh->add_report(r) == status::ok);
  const bytes ob = body_of(olh->serialize());
  const std::size_t entries = 2 + block_size(ob) + 8 + 128;
  bytes swapped = ob;
  std::swap_ranges(swapped.begin() + static_cast<std::ptrdiff_t>(entries),
                   swapped.begin() + static_cast<std::ptrdiff_t>(entries + 12),
                   swapped.begin() + static_cast<std::ptrdiff_t>(entries + 12));
  CHECK(frequency_aggregator::deserialize(view(with_body(o.mech, olh->fingerprint(), swapped)), &out) ==
        status::malformed_report);
  bytes bucket = ob;
  bucket[entries + 8] = 0xff;
  CHECK(frequency_aggregator::deserialize(view(with_body(o.mech, olh->fingerprint(), bucket)), &out) ==
        status::out_of_range);
}
