// Server side of string discovery (ldp/server/string_discovery.h, docs/mechanisms.md F,
// docs/wire_format.md 7.4): the family is found through the generic entry points, reports count in
// their group, bad reports are counted by status, merge in any order and split serializes to the same
// bytes, states round-trip and hostile states are refused, candidate tables are bounded, and the
// estimate entry points refuse what they cannot answer.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "frequency_fixture.h"
#include "ldp/server/string_discovery.h"
#include "string_fleet.h"

using namespace ldp::test::frequency;
using ldp::server::discovered_string;
using ldp::server::discovery_options;
using ldp::server::string_discovery_aggregator;
using strings_aggregator = std::unique_ptr<string_discovery_aggregator>;

namespace {

// Small blocks of each method: pem over a domain of 64 (so the OLH groups pass to the counts form,
// docs/wire_format.md 7.1, at 43 reports), treehist and sfp with 2 x 8 sketches.
std::vector<params> string_blocks() {
  const auto pem = ldp::wire::make_pem(2.0, 4, 8, 64);
  const auto tree = ldp::wire::make_treehist(2.0, 4, 4, 2, 8, sketch_seed, 64);
  const auto sfp = ldp::wire::make_sfp(2.0, 4, 2, 8, sketch_seed, 64);
  REQUIRE(pem.code == status::ok);
  REQUIRE(tree.code == status::ok);
  REQUIRE(sfp.code == status::ok);
  return {pem.block, tree.block, sfp.block};
}

strings_aggregator make_strings(const params& p) {
  strings_aggregator a;
  REQUIRE(string_discovery_aggregator::create(p, &a) == status::ok);
  REQUIRE(a != nullptr);
  return a;
}

std::vector<bytes> fleet(const params& p, const char* name, int count) {
  ldp::test::string_fleet devices(p);
  auto rng = ldp::test::seeded_drbg(name);
  const char* words[] = {"ab", "abc", "x", "hell", "ab"};
  std::vector<bytes> out;
  for (int i = 0; i < count; ++i) out.push_back(devices.report(words[i % 5], rng));
  return out;
}

uint64_t group_sum(const string_discovery_aggregator& a) {
  uint64_t sum = 0;
  for (uint32_t g = 0; g < ldp::wire::string_groups(a.parameters()); ++g) sum += a.group_reports(g);
  return sum;
}

}  // namespace

TEST_CASE("string discovery: the family is served, other families are refused, memory is bounded by the state") {
  for (const params& p : string_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    CHECK(string_discovery_aggregator::handles(p.mech));
    std::unique_ptr<ldp::server::aggregator> any;
    REQUIRE(ldp::server::aggregator::create(p, &any) == status::ok);
    CHECK(dynamic_cast<string_discovery_aggregator*>(any.get()) != nullptr);
    aggregator f;
    CHECK(frequency_aggregator::create(p, &f) == status::invalid_parameters);
    CHECK(any->estimate_all().empty());  // the family's estimates are discover / estimate_strings
  }
  CHECK(!string_discovery_aggregator::handles(mechanism::olh));
  strings_aggregator s;
  CHECK(string_discovery_aggregator::create(block(mechanism::olh), &s) == status::invalid_parameters);
  CHECK(s == nullptr);
  // The default domain 2^31: no list of d estimates is ever made, so the block fits the default ceiling.
  const params wide = ldp::wire::make_pem(1.0, 16, 8).block;
  uint64_t need = 0;
  REQUIRE(ldp::server::aggregator_bytes(wide, &need) == status::ok);
  CHECK(need < 4096);
  CHECK(string_discovery_aggregator::create(wide, &s) == status::ok);
  ldp::server::limits tight;
  tight.max_state_bytes = 64;
  std::unique_ptr<ldp::server::aggregator> any;
  CHECK(ldp::server::aggregator::create(wide, tight, &any) == status::limit_exceeded);
}

TEST_CASE("string discovery: reports count in their group, bad ones by status") {
  for (const params& p : string_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    strings_aggregator a = make_strings(p);
    std::vector<bytes> reports = fleet(p, "string ingest", 60);
    reports[3].pop_back();  // wrong_length
    reports[7][2] ^= 1;     // a foreign fingerprint
    // A group past G: the payload's first byte (G < 256 here).
    REQUIRE(ldp::wire::string_groups(p) < 256);
    reports[9][10] = static_cast<unsigned char>(ldp::wire::string_groups(p));
    uint64_t ok = 0;
    for (const bytes& r : reports) ok += a->add_report(r) == status::ok ? 1 : 0;
    CHECK(ok == 57);
    CHECK(a->reports() == 57);
    CHECK(group_sum(*a) == 57);
    CHECK(a->rejected()[static_cast<std::size_t>(status::wrong_length)] == 1);
    CHECK(a->rejected()[static_cast<std::size_t>(status::parameter_mismatch)] == 1);
    CHECK(a->rejected()[static_cast<std::size_t>(status::out_of_range)] == 1);
    CHECK(a->group_reports(ldp::wire::string_groups(p)) == 0);
    // Every group is drawn: 57 reports over G <= 16 groups leave none empty with these seeds.
    for (uint32_t g = 0; g < ldp::wire::string_groups(p); ++g) CHECK(a->group_reports(g) > 0);
  }
}

TEST_CASE("string discovery: any split in any order serializes to the same bytes, and states round-trip") {
  for (const params& p : string_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    const std::vector<bytes> reports = fleet(p, "string merge", 600);  // OLH groups pass the counts form
    strings_aggregator whole = make_strings(p);
    for (const bytes& r : reports) REQUIRE(whole->add_report(r) == status::ok);
    strings_aggregator part[3] = {make_strings(p), make_strings(p), make_strings(p)};
    for (std::size_t i = 0; i < reports.size(); ++i) REQUIRE(part[i * 7 % 3]->add_report(reports[i]) == status::ok);
    const bytes expected = whole->serialize();
    REQUIRE(!expected.empty());
    for (const auto& order : {std::vector<int>{0, 1, 2}, {2, 0, 1}, {1, 2, 0}}) {
      strings_aggregator acc = make_strings(p);
      for (int i : order) REQUIRE(acc->merge(*part[i]) == status::ok);
      CHECK(acc->serialize() == expected);
    }
    strings_aggregator loaded;
    REQUIRE(string_discovery_aggregator::deserialize(view(expected), &loaded) == status::ok);
    CHECK(loaded->serialize() == expected);
    CHECK(loaded->reports() == 600);
    for (uint32_t g = 0; g < ldp::wire::string_groups(p); ++g)
      CHECK(loaded->group_reports(g) == whole->group_reports(g));
    // Self-merge doubles every group.
    REQUIRE(loaded->merge(*loaded) == status::ok);
    CHECK(loaded->group_reports(0) == 2 * whole->group_reports(0));
    // Another block's state is refused and changes nothing.
    strings_aggregator other = make_strings(string_blocks()[p.mech == mechanism::pem ? 1 : 0]);
    CHECK(whole->merge(*other) == status::parameter_mismatch);
    CHECK(whole->serialize() == expected);
    const std::vector<std::string> asked = {"ab", "hell", "zz", "", "abcde", std::string("a\0", 2)};
    std::vector<ldp::server::estimate> a, b;
    REQUIRE(whole->estimate_strings(asked, 0.9, &a) == status::ok);
    REQUIRE(loaded->estimate_strings(asked, 0.9, &b) == status::ok);
    REQUIRE(a.size() == asked.size());
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(std::isfinite(a[i].value));
      CHECK(b[i].value == doctest::Approx(2 * a[i].value));  // the same scale, twice the counts
    }
    for (std::size_t i = 3; i < asked.size(); ++i) CHECK(std::isnan(a[i].value));  // pad_string refuses these
  }
}

TEST_CASE("string discovery: hostile states are refused, whatever loads is canonical") {
  for (const params& p : string_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    strings_aggregator a = make_strings(p);
    for (const bytes& r : fleet(p, "string corrupt", 5)) REQUIRE(a->add_report(r) == status::ok);
    const bytes state = a->serialize();
    const bytes body = body_of(state);
    const std::size_t groups_at = 2 + block_size(body) + 8 + 128;
    strings_aggregator out;
    for (std::size_t i = 0; i < body.size(); ++i) {
      for (int mask : {0x01, 0x80, 0xff}) {
        bytes b = body;
        b[i] = static_cast<unsigned char>(b[i] ^ mask);
        const bytes file = with_body(p.mech, a->fingerprint(), b);
        const status s = string_discovery_aggregator::deserialize(view(file), &out);
        CAPTURE(i);
        if (s == status::ok) {
          CHECK(out->serialize() == file);
        } else {
          CHECK(out == nullptr);
        }
        // The group counts must add up to n.
        if (i >= groups_at && i < groups_at + 8 * ldp::wire::string_groups(p)) CHECK(s != status::ok);
      }
    }
    for (std::size_t cut = 0; cut < body.size(); ++cut) {
      const bytes file =
          with_body(p.mech, a->fingerprint(), bytes(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(cut)));
      CHECK(string_discovery_aggregator::deserialize(view(file), &out) != status::ok);
    }
    bytes longer = body;
    longer.push_back(0);
    CHECK(string_discovery_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), longer)), &out) ==
          status::wrong_length);
    // A report moved from one group to another: the counts no longer add up to n in the groups.
    bytes moved = body;
    moved[groups_at] = static_cast<unsigned char>(moved[groups_at] + 1);
    CHECK(string_discovery_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), moved)), &out) ==
          status::malformed_report);
    // An n that is not the sum of the group counts (the groups themselves consistent).
    bytes more = body;
    more[2 + block_size(body)] = static_cast<unsigned char>(more[2 + block_size(body)] + 1);
    CHECK(string_discovery_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), more)), &out) ==
          status::malformed_report);
  }
  // A frequency state is not a string state.
  aggregator olh = make(block(mechanism::olh));
  strings_aggregator out;
  CHECK(string_discovery_aggregator::deserialize(view(olh->serialize()), &out) == status::invalid_parameters);
}

TEST_CASE("string discovery: candidate tables are bounded, bad options refused") {
  for (const params& p : string_blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    strings_aggregator a = make_strings(p);
    for (const bytes& r : fleet(p, "string limits", 200)) REQUIRE(a->add_report(r) == status::ok);
    std::vector<discovered_string> found;
    discovery_options o;
    o.k = 3;
    REQUIRE(a->discover(o, &found) == status::ok);
    CHECK(found.size() <= 3);
    // The first table: 256 prefixes of 8 bits (pem), 16 of 4 bits (treehist), 256 puzzles x 9121
    // fragments (sfp).
    o.max_candidates = 15;
    CHECK(a->discover(o, &found) == status::limit_exceeded);
    if (p.mech == mechanism::pem) {
      // pem keeps min(keep, C): the 255 prefixes of group 0 (a zero first byte is no string), whose
      // 255 x 256 extensions are the largest table when keep = 255.
      o.keep = 255;
      o.max_candidates = 65280;
      CHECK(a->discover(o, &found) == status::ok);
      CHECK(found.size() == 3);
      o.max_candidates = 65279;
      CHECK(a->discover(o, &found) == status::limit_exceeded);
    }
    CHECK(found.empty());
    o = discovery_options{};
    o.k = 0;
    CHECK(a->discover(o, &found) == status::invalid_argument);
    o.k = 1;
    o.confidence = 1.5;
    CHECK(a->discover(o, &found) == status::invalid_argument);
    CHECK(a->discover(discovery_options{}, nullptr) == status::invalid_argument);
    std::vector<ldp::server::estimate> est;
    CHECK(a->estimate_strings({"ab"}, -0.1, &est) == status::invalid_argument);
  }
}

TEST_CASE("string discovery: an aggregator without reports discovers nothing") {
  for (const params& p : string_blocks()) {
    strings_aggregator a = make_strings(p);
    std::vector<discovered_string> found(1);
    CHECK(a->discover(discovery_options{}, &found) == status::ok);
    CHECK(found.empty());
    std::vector<ldp::server::estimate> est;
    REQUIRE(a->estimate_strings({"ab"}, 0.95, &est) == status::ok);
    CHECK(std::isnan(est[0].value));
    CHECK(std::isinf(est[0].variance));
  }
}
