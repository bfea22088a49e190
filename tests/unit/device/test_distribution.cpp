// Device side of the distribution family (ldp/device/distribution.h, docs/mechanisms.md G): which
// blocks a context takes, the bucket of a value (clamped, the even cells of range_cells.h), Square
// Wave's exact output pmf (G.1) for every bucket, and the tree forms' report: the level is the first
// coin, then the inner OLH report of the level's item (G.2, G.3), decoded back to the same fields.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device_context.h"
#include "enumerator.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "tables.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

constexpr auto report = ldp::device::framing::report;

// One block of each member on [-1, 1] with f = 16: 16 buckets (hierarchical 4^2, haar 2^4).
std::vector<ldp::wire::params> blocks() {
  std::vector<ldp::wire::params> out;
  for (const auto& d :
       {ldp::wire::make_square_wave(1.0, 16, -1, 1, 16), ldp::wire::make_hierarchical(1.0, 16, 4, -1, 1, 16),
        ldp::wire::make_haar(1.0, 16, -1, 1, 16)}) {
    REQUIRE(d.code == status::ok);
    out.push_back(d.block);
  }
  return out;
}

// The bucket of x by its definition (range_cells.h): clamp, then the k with edge(k) <= x < edge(k + 1),
// found by walking the edges.
uint32_t bucket_by_edges(const ldp::wire::params& p, int64_t x) {
  const uint64_t d = p.get(field::domain);
  if (x >= p.get_signed(field::clip_hi)) return static_cast<uint32_t>(d - 1);
  uint32_t k = 0;
  while (k + 1 < d && ldp::wire::range_cell_edge(p, k + 1) <= x) ++k;
  return k;
}

// DRBG coins whose first uniform_below returns `first_value` (a scripted level or window offset)
// and whose Bernoulli draws return `keep` unless it is -1; every draw still consumes the DRBG's word,
// so a twin generator stays in step. Records the first draw's kind and bound.
struct scripted_coins {
  ldp::device::drbg_coins inner;
  uint32_t first_value = 0;
  int keep = -1;
  int draws = 0;
  bool first_is_uniform = false;
  uint32_t first_bound = 0;

  bool bernoulli(uint64_t t) {
    const bool drawn = inner.bernoulli(t);
    ++draws;
    return keep < 0 ? drawn : keep == 1;
  }
  uint32_t uniform_below(uint32_t n) {
    const bool first = draws++ == 0;
    if (first) {
      first_is_uniform = true;
      first_bound = n;
    }
    const uint32_t drawn = inner.uniform_below(n);
    return first ? first_value : drawn;
  }
  uint64_t raw_u64() {
    ++draws;
    return inner.raw_u64();
  }
  bool raw_bit() {
    ++draws;
    return inner.raw_bit();
  }
  status mask(ldp::span<uint64_t> words, std::size_t nbits, uint64_t threshold) {
    ++draws;
    return inner.mask(words, nbits, threshold);
  }
};

std::vector<unsigned char> payload_of(const ldp::wire::params& p, const ldp::wire::report& r) {
  std::vector<unsigned char> out(ldp::wire::max_payload_size(p));
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_payload(p, r, out, &size) == status::ok);
  out.resize(size);
  return out;
}

}  // namespace

TEST_CASE("distribution_context: only distribution blocks, no workspace, 2^32 thresholds only") {
  for (const auto& p : blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    CHECK(ldp::device::family_of(p.mech) == ldp::device::family::distribution);
    CHECK(ldp::device::distribution_context::workspace_size(p) == 0);
    ldp::test::owned_context<ldp::device::distribution_context> c(p);
    REQUIRE(c.code == status::ok);
    CHECK(c->fingerprint() == ldp::wire::fingerprint(p));
    CHECK(c->parameters().mech == p.mech);
    // Thresholds out of 2^40 would be misread by 32-bit coins: refused, and nothing randomizes.
    ldp::wire::params wide = p;
    wide.set(field::threshold_bits, 40).set(field::threshold_keep, p.get(field::threshold_keep) << 8);
    REQUIRE(ldp::wire::validate(wide) == status::ok);
    ldp::test::owned_context<ldp::device::distribution_context> refused(wide);
    CHECK(refused.code == status::unsupported);
    auto rng = ldp::test::seeded_drbg("distribution refused");
    std::vector<unsigned char> out(ldp::wire::max_report_size(p));
    std::size_t written = 1;
    CHECK(refused->randomize(0, rng, out, report, &written) == status::invalid_argument);
    CHECK(written == 0);
    // An invalid block: validate()'s status.
    ldp::wire::params broken = p;
    broken.set(field::domain, 1);
    ldp::test::owned_context<ldp::device::distribution_context> invalid(broken);
    CHECK(invalid.code == ldp::wire::validate(broken));
    CHECK(invalid.code != status::ok);
  }
  // Other families, the tree forms' inner block included, are refused.
  for (const auto& d : {ldp::wire::make_olh(1.0, 16), ldp::wire::make_laplace(-1, 1, 16, 1.0)}) {
    ldp::test::owned_context<ldp::device::distribution_context> c(d.block);
    CHECK(c.code == status::invalid_argument);
  }
  ldp::device::distribution_context never;
  auto rng = ldp::test::seeded_drbg("distribution never");
  unsigned char out[64];
  std::size_t written = 1;
  CHECK(never.randomize(0, rng, out, report, &written) == status::invalid_argument);
  CHECK(written == 0);
}

TEST_CASE("a value's bucket: the even cells of the range, values outside clamped to the end buckets") {
  // 7 buckets of [-1, 3] on a coarse grid (f = 2: 16 grid points), so the edges are not multiples of
  // the bucket width and the rounding of every edge matters.
  const auto derived = ldp::wire::make_square_wave(2.0, 7, -1, 3, 2, 0);
  REQUIRE(derived.code == status::ok);
  const ldp::wire::params& p = derived.block;
  REQUIRE(p.get(field::window_half_width) == 0);
  ldp::test::owned_context<ldp::device::distribution_context> c(p);
  REQUIRE(c.code == status::ok);
  auto rng = ldp::test::seeded_drbg("distribution buckets");
  // Kept, offset 0: the output is the bucket itself (b = 0).
  const auto output = [&](int64_t x) {
    scripted_coins coins{ldp::device::drbg_coins(rng), 0, 1};
    ldp::wire::report r;
    REQUIRE(c->fields(x, coins, &r) == status::ok);
    CHECK(!coins.first_is_uniform);  // the window coin comes first
    return r.index;
  };
  std::vector<int> seen(7, 0);
  for (int64_t x = -4; x <= 12; ++x) {
    CAPTURE(x);
    CHECK(output(x) == bucket_by_edges(p, x));
    ++seen[output(x)];
  }
  for (int n : seen) CHECK(n >= 2);  // every bucket holds grid points: 17 points in 7 buckets
  CHECK(output(INT64_MIN) == 0);
  CHECK(output(-5) == 0);
  CHECK(output(13) == 6);
  CHECK(output(INT64_MAX) == 6);
}

TEST_CASE("square-wave: the exact output pmf of every bucket is G.1's, whatever the window") {
  // P(y | v) = T / (2^32 (2b + 1)) on the window [v, v + 2b], (2^32 - T) / (2^32 (D - 1)) on each of
  // the D - 1 outputs of [0, D + 2b) outside it; enumerated from the device code, x at the bucket's
  // first grid point. b = 0 is GRR on D values, b = D the widest window.
  for (const uint32_t d : {2u, 5u, 8u}) {
    for (const int64_t b : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{d}}) {
      if (b > d) continue;
      for (const double eps : {0.5, 3.0}) {
        CAPTURE(d);
        CAPTURE(b);
        CAPTURE(eps);
        const auto derived = ldp::wire::make_square_wave(eps, d, 0, 1, 16, b);
        REQUIRE(derived.code == status::ok);
        const ldp::wire::params& p = derived.block;
        ldp::test::owned_context<ldp::device::distribution_context> c(p);
        REQUIRE(c.code == status::ok);
        const long double keep = static_cast<long double>(p.get(field::threshold_keep)) / 4294967296.0L;
        const auto window = static_cast<uint64_t>(2 * b + 1), outputs = ldp::wire::square_wave_outputs(p);
        REQUIRE(outputs == d + 2 * static_cast<uint64_t>(b));
        const long double in = keep / static_cast<long double>(window), out = (1 - keep) / (d - 1);
        for (uint32_t v = 0; v < d; ++v) {
          CAPTURE(v);
          ldp::test::enumerating_coins coins(0);
          const auto pmf = coins.pmf([&](ldp::test::enumerating_coins& e) {
            ldp::wire::report r;
            REQUIRE(c->fields(ldp::wire::range_cell_edge(p, v), e, &r) == status::ok);
            CHECK(r.mech == mechanism::square_wave);
            return std::to_string(r.index);
          });
          CHECK(pmf.size() == outputs);  // every output is reachable from every bucket
          for (const auto& [y, prob] : pmf) {
            const uint64_t index = std::stoull(y);
            CHECK(index < outputs);
            const bool in_window = index >= v && index <= v + 2 * static_cast<uint64_t>(b);
            CHECK(prob == doctest::Approx(static_cast<double>(in_window ? in : out)).epsilon(1e-12));
          }
        }
      }
    }
  }
}

TEST_CASE("tree forms: the level is the first coin, scripted to every value; the rest is the level item's OLH") {
  for (const auto& p : blocks()) {
    if (p.mech == mechanism::square_wave) continue;
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    const uint32_t levels = ldp::wire::distribution_levels(p);
    REQUIRE(levels == (p.mech == mechanism::haar ? 4u : 2u));
    const ldp::wire::params inner_block = ldp::wire::distribution_inner_block(p);
    ldp::test::owned_context<ldp::device::distribution_context> c(p);
    ldp::test::owned_context<ldp::device::frequency_context> inner(inner_block);
    REQUIRE(c.code == status::ok);
    REQUIRE(inner.code == status::ok);
    for (const int64_t x : {int64_t{-70000}, int64_t{-65536}, int64_t{-1}, int64_t{12345}, int64_t{65535}}) {
      for (uint32_t g = 0; g < levels; ++g) {
        CAPTURE(x);
        CAPTURE(g);
        auto rng = ldp::test::seeded_drbg("distribution level"), twin = ldp::test::seeded_drbg("distribution level");
        scripted_coins coins{ldp::device::drbg_coins(rng), g};
        ldp::wire::report r;
        REQUIRE(c->fields(x, coins, &r) == status::ok);
        CHECK(coins.first_is_uniform);
        CHECK(coins.first_bound == levels);
        CHECK(r.mech == p.mech);
        CHECK(r.group == g);
        // The inner OLH on the same coins after the level's, given the item of level g.
        ldp::device::drbg_coins twin_coins(twin);
        (void)twin_coins.uniform_below(levels);
        const uint32_t item = ldp::wire::distribution_item(p, g, ldp::wire::range_cell(p, x));
        ldp::wire::report expected;
        REQUIRE(inner->fields(item, twin_coins, &expected) == status::ok);
        CHECK(r.seed == expected.seed);
        CHECK(r.index == expected.index);
        CHECK(rng.next_u64() == twin.next_u64());  // the same number of draws
      }
    }
  }
}

TEST_CASE("tree forms: the level does not depend on x, and a report decodes to the level and the inner fields") {
  for (const auto& p : blocks()) {
    CAPTURE(ldp::wire::mechanism_name(p.mech));
    ldp::test::owned_context<ldp::device::distribution_context> c(p), other(p), direct(p);
    REQUIRE(c.code == status::ok);
    auto a = ldp::test::seeded_drbg("distribution decode"), b = ldp::test::seeded_drbg("distribution decode");
    auto f = ldp::test::seeded_drbg("distribution decode");
    ldp::device::drbg_coins coins(f);
    std::vector<unsigned char> out_a(ldp::wire::max_report_size(p)), out_b(out_a.size());
    std::vector<bool> seen(static_cast<std::size_t>(ldp::wire::square_wave_outputs(p)) + 16, false);
    for (int i = 0; i < 60; ++i) {
      std::size_t size_a = 0, size_b = 0;
      REQUIRE(c->randomize(-65536, a, out_a, report, &size_a) == status::ok);
      REQUIRE(other->randomize(65536, b, out_b, report, &size_b) == status::ok);
      ldp::wire::report ra, rb, rf;
      REQUIRE(direct->fields(-65536, coins, &rf) == status::ok);
      REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), {out_a.data(), size_a}, &ra) == status::ok);
      REQUIRE(ldp::wire::decode_report(p, ldp::wire::fingerprint(p), {out_b.data(), size_b}, &rb) == status::ok);
      CHECK(ra.mech == p.mech);
      CHECK(payload_of(p, ra) == payload_of(p, rf));
      if (p.mech == mechanism::square_wave) {
        seen[ra.index] = true;
      } else {
        CHECK(ra.group == rb.group);  // the level is drawn before x is read
        seen[ra.group] = true;
      }
      // The payload framing writes the report's payload alone.
      std::vector<unsigned char> payload(ldp::wire::max_payload_size(p));
      std::size_t payload_size = 0;
      auto again = ldp::test::seeded_drbg("distribution payload");
      auto twin = ldp::test::seeded_drbg("distribution payload");
      REQUIRE(direct->randomize(12, again, payload, ldp::device::framing::payload, &payload_size) == status::ok);
      REQUIRE(other->randomize(12, twin, out_b, report, &size_b) == status::ok);
      CHECK(std::vector<unsigned char>(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(payload_size)) ==
            std::vector<unsigned char>(out_b.begin() + ldp::wire::report_header_size,
                                       out_b.begin() + static_cast<std::ptrdiff_t>(size_b)));
    }
    int distinct = 0;
    for (bool s : seen) distinct += s ? 1 : 0;
    CHECK(distinct > 1);
  }
}
