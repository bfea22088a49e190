// The C API of the distribution family's queries (ldp_server.h: ldp_server_ranges, ldp_server_quantiles,
// ldp_server_density, docs/c_api.md): the C++ answers through caller buffers with every option passed
// on, NULL options as the defaults, the buffer protocol, and the refusals. The reports are valid wire
// reports with fields drawn from a fixed seed (what a fleet sends is the device tests' concern).
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "ldp.h"
#include "ldp/random/samplers.h"
#include "ldp/server/distribution.h"
#include "ldp/wire.h"
#include "ldp_server.h"
#include "tables.h"

namespace {

using ldp::status;
namespace wire = ldp::wire;
namespace server = ldp::server;

struct owned_aggregator {
  ldp_aggregator* a = nullptr;
  ~owned_aggregator() { ldp_aggregator_free(a); }
};

ldp_params c_params(const wire::params& p) {
  unsigned char block[wire::params_max_size];
  std::size_t size = 0;
  REQUIRE(wire::encode_params(p, block, &size) == status::ok);
  ldp_params out;
  REQUIRE(ldp_params_decode(&out, block, size) == LDP_OK);
  return out;
}

// A report of the block with its fields drawn from rng: an output of Square Wave, or a group and its
// inner OLH seed and bucket (docs/mechanisms.md G.1-G.3).
std::vector<unsigned char> drawn_report(const wire::params& p, ldp::random::drbg& rng) {
  wire::report r;
  r.mech = p.mech;
  if (p.mech == wire::mechanism::square_wave) {
    r.index = static_cast<uint32_t>(ldp::random::uniform_below64(rng, wire::square_wave_outputs(p)));
  } else {
    r.group = static_cast<uint32_t>(ldp::random::uniform_below64(rng, wire::distribution_levels(p)));
    r.seed = rng.next_u64();
    r.index = static_cast<uint32_t>(ldp::random::uniform_below64(rng, p.get(wire::field::hash_range)));
  }
  std::vector<unsigned char> out(wire::max_report_size(p));
  std::size_t written = 0;
  REQUIRE(wire::encode_report(p, wire::fingerprint(p), r, out, &written) == status::ok);
  out.resize(written);
  return out;
}

// The same reports into a C aggregator and a C++ one.
struct twin {
  owned_aggregator c;
  std::unique_ptr<server::distribution_aggregator> cxx;

  twin(const wire::params& p, int reports, const char* seed) {
    const ldp_params cp = c_params(p);
    REQUIRE(ldp_aggregator_create(&cp, &c.a) == LDP_OK);
    REQUIRE(server::distribution_aggregator::create(p, &cxx) == status::ok);
    auto rng = ldp::test::seeded_drbg(seed);
    for (int i = 0; i < reports; ++i) {
      const std::vector<unsigned char> r = drawn_report(p, rng);
      REQUIRE(ldp_aggregator_add_report(c.a, r.data(), r.size()) == LDP_OK);
      REQUIRE(cxx->add_report(r) == status::ok);
    }
  }
};

std::vector<wire::params> blocks() {
  std::vector<wire::params> out;
  for (const wire::derived_params& d :
       {wire::make_square_wave(2.0, 16, -4, 12, 8), wire::make_hierarchical(2.0, 16, 4, -4, 12, 8),
        wire::make_haar(2.0, 16, -4, 12, 8)}) {
    REQUIRE(d.code == status::ok);
    out.push_back(d.block);
  }
  return out;
}

// Options unlike the defaults in every field, so a field the C API drops changes the answers.
ldp_distribution_options chosen_options() {
  ldp_distribution_options o;
  o.confidence = 0.8;
  o.consistency = 0;
  o.bootstrap = 17;
  o.seed = 99;
  return o;
}

server::distribution_options cxx_options(const ldp_distribution_options& c) {
  server::distribution_options o;
  o.confidence = c.confidence;
  o.consistency = c.consistency != 0;
  o.bootstrap = c.bootstrap;
  o.seed = c.seed;
  return o;
}

void check_ranges(twin& t, const ldp_distribution_options* c, const server::distribution_options& o) {
  const double lo[] = {-4, 0.3, 5, -100, 11.9};
  const double hi[] = {12, 2.7, 5, 3.5, 100};
  std::vector<std::pair<double, double>> queries;
  for (int i = 0; i < 5; ++i) queries.emplace_back(lo[i], hi[i]);
  std::vector<server::range_estimate> expected;
  REQUIRE(t.cxx->ranges(queries, o, &expected) == status::ok);
  ldp_range_estimate out[5];
  REQUIRE(ldp_server_ranges(t.c.a, lo, hi, 5, c, out) == LDP_OK);
  for (int i = 0; i < 5; ++i) {
    CHECK(out[i].lo == expected[i].lo);
    CHECK(out[i].hi == expected[i].hi);
    CHECK(out[i].estimate == expected[i].estimate);
    CHECK(out[i].variance == expected[i].variance);
    CHECK(out[i].ci_low == expected[i].ci_low);
    CHECK(out[i].ci_high == expected[i].ci_high);
  }
}

void check_quantiles(twin& t, const ldp_distribution_options* c, const server::distribution_options& o) {
  const double q[] = {0, 0.1, 0.5, 0.9, 1};
  std::vector<server::quantile_estimate> expected;
  REQUIRE(t.cxx->quantiles(q, o, &expected) == status::ok);
  ldp_quantile_estimate out[5];
  REQUIRE(ldp_server_quantiles(t.c.a, q, 5, c, out) == LDP_OK);
  for (int i = 0; i < 5; ++i) {
    CHECK(out[i].q == expected[i].q);
    CHECK(out[i].value == expected[i].value);
    CHECK(out[i].ci_low == expected[i].ci_low);
    CHECK(out[i].ci_high == expected[i].ci_high);
  }
}

void check_density(twin& t, const ldp_distribution_options* c, const server::distribution_options& o) {
  std::vector<server::density_estimate> expected;
  REQUIRE(t.cxx->density(o, &expected) == status::ok);
  REQUIRE(expected.size() == 16);
  std::size_t count = 0;
  CHECK(ldp_server_density(t.c.a, c, nullptr, 0, &count) == LDP_BUFFER_TOO_SMALL);
  CHECK(count == 16);
  std::vector<ldp_density_estimate> out(15);
  CHECK(ldp_server_density(t.c.a, c, out.data(), out.size(), &count) == LDP_BUFFER_TOO_SMALL);
  CHECK(count == 16);
  out.resize(16);
  REQUIRE(ldp_server_density(t.c.a, c, out.data(), out.size(), &count) == LDP_OK);
  REQUIRE(count == 16);
  for (std::size_t i = 0; i < 16; ++i) {
    CHECK(out[i].x == expected[i].x);
    CHECK(out[i].value == expected[i].value);
    CHECK(out[i].ci_low == expected[i].ci_low);
    CHECK(out[i].ci_high == expected[i].ci_high);
  }
}

}  // namespace

TEST_CASE("ldp_distribution_options_default: the C++ defaults") {
  ldp_distribution_options o;
  std::memset(&o, 0xff, sizeof o);
  ldp_distribution_options_default(&o);
  const server::distribution_options d;
  CHECK(o.confidence == d.confidence);
  CHECK(o.consistency == 1);
  CHECK(d.consistency);
  CHECK(o.bootstrap == d.bootstrap);
  CHECK(o.seed == d.seed);
  ldp_distribution_options_default(nullptr);  // allowed, does nothing
}

TEST_CASE("ldp_server_ranges, quantiles, density: the C++ answers, every option passed on") {
  for (const wire::params& p : blocks()) {
    CAPTURE(wire::mechanism_name(p.mech));
    twin t(p, 3000, "capi distribution");
    const ldp_distribution_options chosen = chosen_options();
    check_ranges(t, &chosen, cxx_options(chosen));
    check_quantiles(t, &chosen, cxx_options(chosen));
    check_density(t, &chosen, cxx_options(chosen));
    // NULL options are the defaults.
    check_ranges(t, nullptr, server::distribution_options{});
    check_quantiles(t, nullptr, server::distribution_options{});
    check_density(t, nullptr, server::distribution_options{});
  }
}

TEST_CASE("ldp_server_ranges, quantiles, density: an empty aggregator gives NaN fields") {
  twin t(blocks()[1], 0, "unused");
  const double lo = 0, hi = 1, q = 0.5;
  ldp_range_estimate r;
  REQUIRE(ldp_server_ranges(t.c.a, &lo, &hi, 1, nullptr, &r) == LDP_OK);
  CHECK(r.estimate != r.estimate);
  ldp_quantile_estimate qe;
  REQUIRE(ldp_server_quantiles(t.c.a, &q, 1, nullptr, &qe) == LDP_OK);
  CHECK(qe.value != qe.value);
}

TEST_CASE("ldp_server_ranges, quantiles, density: refusals") {
  twin t(blocks()[2], 100, "capi distribution refusals");
  const double lo[] = {0, 3}, hi[] = {1, 2}, q[] = {0.5, 1.5};
  ldp_range_estimate r[2];
  ldp_quantile_estimate qe[2];
  std::vector<ldp_density_estimate> d(16);
  std::size_t count = 7;
  // Null arguments.
  CHECK(ldp_server_ranges(nullptr, lo, hi, 1, nullptr, r) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_ranges(t.c.a, nullptr, hi, 1, nullptr, r) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_ranges(t.c.a, lo, nullptr, 1, nullptr, r) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_ranges(t.c.a, lo, hi, 1, nullptr, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_quantiles(nullptr, q, 1, nullptr, qe) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_quantiles(t.c.a, nullptr, 1, nullptr, qe) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_quantiles(t.c.a, q, 1, nullptr, nullptr) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_density(nullptr, nullptr, d.data(), d.size(), &count) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_density(t.c.a, nullptr, nullptr, 16, &count) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_density(t.c.a, nullptr, d.data(), d.size(), nullptr) == LDP_INVALID_ARGUMENT);
  // No queries: nothing to do.
  CHECK(ldp_server_ranges(t.c.a, nullptr, nullptr, 0, nullptr, nullptr) == LDP_OK);
  CHECK(ldp_server_quantiles(t.c.a, nullptr, 0, nullptr, nullptr) == LDP_OK);
  // Bad queries and options (the server's refusals).
  CHECK(ldp_server_ranges(t.c.a, lo, hi, 2, nullptr, r) == LDP_INVALID_ARGUMENT);  // 3 > 2
  CHECK(ldp_server_quantiles(t.c.a, q, 2, nullptr, qe) == LDP_INVALID_ARGUMENT);   // 1.5
  ldp_distribution_options bad;
  ldp_distribution_options_default(&bad);
  bad.confidence = 1.5;
  CHECK(ldp_server_ranges(t.c.a, lo, hi, 1, &bad, r) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_density(t.c.a, &bad, d.data(), d.size(), &count) == LDP_INVALID_ARGUMENT);
  CHECK(count == 0);
  // An aggregator of another family.
  const wire::derived_params grr = wire::make_grr(1.0, 8);
  REQUIRE(grr.code == status::ok);
  const ldp_params cp = c_params(grr.block);
  owned_aggregator other;
  REQUIRE(ldp_aggregator_create(&cp, &other.a) == LDP_OK);
  CHECK(ldp_server_ranges(other.a, lo, hi, 1, nullptr, r) == LDP_INVALID_PARAMETERS);
  CHECK(ldp_server_quantiles(other.a, q, 1, nullptr, qe) == LDP_INVALID_PARAMETERS);
  CHECK(ldp_server_density(other.a, nullptr, d.data(), d.size(), &count) == LDP_INVALID_PARAMETERS);
}

TEST_CASE("ldp_aggregator_estimate_all: a distribution aggregator's D bucket counts") {
  twin t(blocks()[0], 500, "capi distribution buckets");
  std::size_t count = 0;
  CHECK(ldp_aggregator_estimate_all(t.c.a, 0.95, nullptr, 0, &count) == LDP_BUFFER_TOO_SMALL);
  CHECK(count == 16);
}
