// The BLH/OLH saved state (docs/wire_format.md 7.1, lib/server/src/local_hashing.cpp): the sorted
// (seed, bucket) list while 12 n < 8 d, the d support counts from there on. Both forms round trip,
// the form switches exactly at the threshold, any split of the reports merged in any order (counts
// into lists and lists into counts) gives the bytes and the estimates of one aggregator that kept
// every report, a body of the wrong length is refused before anything is allocated for it, and
// forged counts are refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "frequency_fixture.h"

using namespace ldp::test::frequency;

// The largest single allocation while `watching` (this test program's own operator new), to show
// that a hostile length is refused before it sizes anything.
namespace {
std::atomic<bool> watching{false};
std::atomic<std::size_t> largest{0};
}  // namespace

void* operator new(std::size_t size) {
  if (watching.load() && size > largest.load()) largest.store(size);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

const mechanism local_hashing[] = {mechanism::blh, mechanism::olh};

// The body after the common part (block, n, 16 rejection counters).
std::size_t family_offset(const bytes& body) { return 2 + block_size(body) + 8 + 128; }
std::size_t family_bytes(const bytes& state) {
  const bytes body = body_of(state);
  return body.size() - family_offset(body);
}
bytes family_body(const bytes& state) {
  const bytes body = body_of(state);
  return bytes(body.begin() + static_cast<std::ptrdiff_t>(family_offset(body)), body.end());
}

void put_le_bytes(bytes& out, uint64_t v, int size) {
  for (int i = 0; i < size; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

// The family part of the state of `reports` in the given form, written out from docs/wire_format.md
// 7.1: the (seed, bucket) pairs sorted, or C_v by testing every report against every item.
bytes expected_family(const params& p, const std::vector<bytes>& reports, bool counts) {
  const std::vector<ldp::wire::report> rs = decode_all(p, reports);
  bytes out;
  if (counts) {
    const auto g = static_cast<uint32_t>(p.get(field::hash_range));
    for (uint32_t v = 0; v < p.get(field::domain); ++v) {
      uint64_t c = 0;
      for (const auto& r : rs) c += ldp::wire::hash_to_range(ldp::wire::report_hash_key(r.seed), v, g) == r.index;
      put_le_bytes(out, c, 8);
    }
    return out;
  }
  std::vector<std::pair<uint64_t, uint32_t>> pairs;
  for (const auto& r : rs) pairs.emplace_back(r.seed, r.index);
  std::sort(pairs.begin(), pairs.end());
  for (const auto& [seed, bucket] : pairs) {
    put_le_bytes(out, seed, 8);
    put_le_bytes(out, bucket, 4);
  }
  return out;
}

std::vector<bytes> first(const std::vector<bytes>& reports, std::size_t n) {
  return std::vector<bytes>(reports.begin(), reports.begin() + static_cast<std::ptrdiff_t>(n));
}

aggregator load(const bytes& state) {
  aggregator a;
  REQUIRE(frequency_aggregator::deserialize(view(state), &a) == status::ok);
  return a;
}

// An aggregator of reports [from, to), reloaded from its state so that it holds what a state in
// that form holds (counts, or a list).
aggregator part(const params& p, const std::vector<bytes>& reports, std::size_t from, std::size_t to) {
  aggregator a = make(p);
  for (std::size_t i = from; i < to; ++i) REQUIRE(a->add_report(reports[i]) == status::ok);
  return load(a->serialize());
}

// A BLH or OLH block of domain d and `count` reports for it, with the mechanism's name to CAPTURE.
struct fleet {
  std::string name;
  params p;
  std::vector<bytes> reports;
};
fleet make_fleet(mechanism m, uint32_t d, const char* seed, int count) {
  const params p = block(m, 1.0, d);
  return {ldp::wire::mechanism_name(m), p, random_reports(p, seed, count)};
}

bool same_values(const std::vector<estimate>& a, const std::vector<estimate>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].item != b[i].item || a[i].value != b[i].value || a[i].variance != b[i].variance ||
        a[i].ci_low != b[i].ci_low || a[i].ci_high != b[i].ci_high) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("the form switches at the first n with 12 n >= 8 d, and state_bytes says so") {
  for (mechanism m : local_hashing) {
    for (uint32_t d : {48u, 50u}) {  // 8 d = 384 = 12 x 32; 8 d = 400 between 12 x 33 and 12 x 34
      const fleet f = make_fleet(m, d, "threshold", 80);
      const params& p = f.p;
      const std::vector<bytes>& reports = f.reports;
      CAPTURE(f.name);
      CAPTURE(d);
      const uint64_t first_counts = d == 48 ? 32 : 34;
      aggregator a = make(p);
      for (uint64_t n = 0; n <= reports.size(); ++n) {
        CAPTURE(n);
        const bytes state = a->serialize();
        const std::size_t expected = n >= first_counts ? 8 * std::size_t{d} : 12 * static_cast<std::size_t>(n);
        CHECK(family_bytes(state) == expected);
        CHECK(family_body(state) == expected_family(p, first(reports, static_cast<std::size_t>(n)), n >= first_counts));
        uint64_t sized = 0;
        REQUIRE(ldp::server::state_bytes(p, n, &sized) == status::ok);
        CHECK(sized == state.size());
        CHECK(load(state)->serialize() == state);
        if (n < reports.size()) REQUIRE(a->add_report(reports[static_cast<std::size_t>(n)]) == status::ok);
      }
    }
  }
}

TEST_CASE("both forms round trip, and the counts estimate exactly what the list does") {
  for (mechanism m : local_hashing) {
    const fleet f = make_fleet(m, 30, "round trip", 60);  // the counts from n = 20
    // Named references, not a structured binding: C++17 lambdas (CAPTURE's) cannot capture those.
    const std::string& name = f.name;
    const params& p = f.p;
    const std::vector<bytes>& reports = f.reports;
    CAPTURE(name);
    const std::vector<uint32_t> items = {29, 0, 7, 7, 31, 12};  // a repeat and one outside the domain
    for (std::size_t n : {std::size_t{5}, std::size_t{19}, std::size_t{20}, std::size_t{60}}) {
      CAPTURE(n);
      aggregator kept = make(p);
      for (std::size_t i = 0; i < n; ++i) REQUIRE(kept->add_report(reports[i]) == status::ok);
      const bytes state = kept->serialize();
      CHECK(family_body(state) == expected_family(p, first(reports, n), n >= 20));
      aggregator back = load(state);
      CHECK(back->reports() == n);
      CHECK(back->serialize() == state);
      CHECK(same_values(back->estimate_all(), kept->estimate_all()));
      // Candidates: item 31 is outside the domain (NaN, which compares unequal to itself).
      std::vector<estimate> got = back->estimate_items(items), want = kept->estimate_items(items);
      REQUIRE(got.size() == items.size());
      CHECK(std::isnan(got[4].value));
      got.erase(got.begin() + 4);
      want.erase(want.begin() + 4);
      CHECK(same_values(got, want));
      // Against the naive reference too (C_v by testing every report).
      check_all(back->estimate_all(), reference_pure(p, decode_all(p, first(reports, n))));
    }
  }
}

TEST_CASE("any split merged in any order, counts into lists and lists into counts, gives the same bytes") {
  for (mechanism m : local_hashing) {
    const fleet f = make_fleet(m, 60, "merge forms", 150);  // the counts from n = 40
    const params& p = f.p;
    const std::vector<bytes>& reports = f.reports;
    CAPTURE(f.name);
    aggregator whole = make(p);
    for (const bytes& r : reports) REQUIRE(whole->add_report(r) == status::ok);
    const bytes expected = whole->serialize();
    const std::vector<estimate> expected_estimates = whole->estimate_all();

    // Parts in both forms: a list, counts (50), counts exactly at the threshold (40), a list just
    // below it (39), a list.
    const std::size_t cuts[] = {0, 10, 60, 100, 139, 150};
    const auto parts = [&] {
      std::vector<aggregator> out;
      for (std::size_t i = 0; i + 1 < std::size(cuts); ++i) out.push_back(part(p, reports, cuts[i], cuts[i + 1]));
      return out;
    };
    for (std::size_t i = 0; i + 1 < std::size(cuts); ++i) {
      CHECK(family_bytes(part(p, reports, cuts[i], cuts[i + 1])->serialize()) ==
            (cuts[i + 1] - cuts[i] >= 40 ? 8 * 60 : 12 * (cuts[i + 1] - cuts[i])));
    }
    const int orders[][5] = {{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {1, 0, 3, 2, 4}, {3, 4, 0, 2, 1}, {2, 4, 1, 0, 3}};
    for (const auto& order : orders) {
      std::vector<aggregator> ps = parts();
      // Into the first part of the order, whatever its form.
      aggregator& acc = ps[static_cast<std::size_t>(order[0])];
      for (int k = 1; k < 5; ++k) REQUIRE(acc->merge(*ps[static_cast<std::size_t>(order[k])]) == status::ok);
      CHECK(acc->reports() == 150);
      CHECK(acc->serialize() == expected);
      CHECK(same_values(acc->estimate_all(), expected_estimates));
    }
    {
      // A list into counts and counts into a list, then the two halves.
      std::vector<aggregator> ps = parts();
      REQUIRE(ps[1]->merge(*ps[0]) == status::ok);  // list into counts
      REQUIRE(ps[3]->merge(*ps[2]) == status::ok);  // counts into a list
      REQUIRE(ps[4]->merge(*ps[3]) == status::ok);  // counts-holding into a list
      aggregator left = load(ps[1]->serialize()), right = load(ps[4]->serialize());
      CHECK(left->serialize() == ps[1]->serialize());
      REQUIRE(right->merge(*left) == status::ok);
      CHECK(right->serialize() == expected);
      CHECK(same_values(right->estimate_all(), expected_estimates));
    }
    {
      // Reports added after a counts-form state was loaded count like the others.
      aggregator a = part(p, reports, 0, 100);
      for (std::size_t i = 100; i < reports.size(); ++i) REQUIRE(a->add_report(reports[i]) == status::ok);
      CHECK(a->serialize() == expected);
      CHECK(same_values(a->estimate_all(), expected_estimates));
    }
    {
      // Two small lists whose sum passes the threshold save as counts.
      aggregator a = part(p, reports, 0, 30), b = part(p, reports, 30, 60);
      REQUIRE(a->merge(*b) == status::ok);
      CHECK(family_bytes(a->serialize()) == 8 * 60);
      CHECK(a->serialize() == part(p, reports, 0, 60)->serialize());
    }
    // A counts-form state merged into itself is the state of every report twice.
    aggregator self = part(p, reports, 0, 50), twice = make(p);
    for (int k = 0; k < 2; ++k) {
      for (std::size_t i = 0; i < 50; ++i) REQUIRE(twice->add_report(reports[i]) == status::ok);
    }
    REQUIRE(self->merge(*self) == status::ok);
    CHECK(self->serialize() == twice->serialize());
  }
}

TEST_CASE("a counts body of the wrong length is refused before anything is allocated for it") {
  const params p = block(mechanism::olh, 1.0, 30);
  aggregator a = make(p);
  for (const bytes& r : random_reports(p, "lengths", 25)) REQUIRE(a->add_report(r) == status::ok);
  const bytes body = body_of(a->serialize());
  const std::size_t at = family_offset(body);
  REQUIRE(body.size() - at == 8 * 30);
  aggregator out;
  // One count short, one count long, and the 12 n bytes of the other form.
  for (std::size_t size : {std::size_t{8 * 29}, std::size_t{8 * 31}, std::size_t{12 * 25}}) {
    CAPTURE(size);
    bytes b(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(at));
    b.resize(at + size, 0);
    CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) ==
          status::wrong_length);
    CHECK(out == nullptr);
  }
  // The writer does not choose the form, n and d do: counts where n = 19 selects a list (228
  // bytes expected, 240 given), and a list of 19 where n = 20 selects counts (240 expected).
  bytes b = body;
  put_le(b, 2 + block_size(body), 19);
  CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) == status::wrong_length);
  aggregator short_list = make(p);
  for (const bytes& r : random_reports(p, "lengths", 19)) REQUIRE(short_list->add_report(r) == status::ok);
  b = body_of(short_list->serialize());
  REQUIRE(b.size() - at == 12 * 19);
  put_le(b, 2 + block_size(b), 20);
  CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) == status::wrong_length);

  // A hostile header: d = 2^31 and n = 2^40 select 16 GiB of counts; the body is 8 bytes. Under a
  // ceiling that does not stop it, the length check must, before any allocation sized by d or n.
  params big = p;
  big.set(field::domain, uint64_t{1} << 31);
  REQUIRE(ldp::wire::validate(big) == status::ok);
  unsigned char blk[ldp::wire::params_max_size];
  std::size_t blk_size = 0;
  REQUIRE(ldp::wire::encode_params(big, blk, &blk_size) == status::ok);
  bytes hostile(2 + blk_size + 8 + 128 + 8, 0);  // block length and block, n, the counters, 8 bytes
  hostile[0] = static_cast<unsigned char>(blk_size);
  hostile[1] = static_cast<unsigned char>(blk_size >> 8);
  std::copy(blk, blk + blk_size, hostile.begin() + 2);
  put_le(hostile, 2 + blk_size, uint64_t{1} << 40);
  const bytes file = with_body(big.mech, ldp::wire::fingerprint(big), hostile);
  std::unique_ptr<ldp::server::aggregator> any;
  largest = 0;
  watching = true;
  const status s = ldp::server::aggregator::deserialize(file, ldp::server::limits{uint64_t{1} << 62}, &any);
  watching = false;
  CHECK(s == status::wrong_length);
  CHECK(any == nullptr);
  CHECK(largest.load() < 4096);
}

TEST_CASE("forged counts: each count is at most n") {
  for (mechanism m : local_hashing) {
    const fleet f = make_fleet(m, 30, "forged", 20);
    const params& p = f.p;
    CAPTURE(f.name);
    aggregator a = make(p);
    for (const bytes& r : f.reports) REQUIRE(a->add_report(r) == status::ok);
    const bytes body = body_of(a->serialize());
    const std::size_t at = family_offset(body);
    aggregator out;
    bytes b = body;
    put_le(b, at + 8 * 29, 20);  // C_29 = n: every report supports item 29
    REQUIRE(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) == status::ok);
    CHECK(out->serialize() == with_body(p.mech, a->fingerprint(), b));
    put_le(b, at + 8 * 29, 21);
    CHECK(frequency_aggregator::deserialize(view(with_body(p.mech, a->fingerprint(), b)), &out) ==
          status::malformed_report);
    CHECK(out == nullptr);
  }
}
