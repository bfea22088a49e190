// The C API of string discovery (ldp_server.h: ldp_server_discover, docs/c_api.md): the same strings
// and estimates as the C++ API, the buffer protocol, and the refusals.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ldp.h"
#include "ldp/server/string_discovery.h"
#include "ldp/wire.h"
#include "ldp_server.h"
#include "string_fleet.h"
#include "tables.h"

namespace {

struct owned_aggregator {
  ldp_aggregator* a = nullptr;
  ~owned_aggregator() { ldp_aggregator_free(a); }
};

ldp_params c_params(const ldp::wire::params& p) {
  unsigned char block[ldp::wire::params_max_size];
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_params(p, block, &size) == ldp::status::ok);
  ldp_params out;
  REQUIRE(ldp_params_decode(&out, block, size) == LDP_OK);
  return out;
}

}  // namespace

TEST_CASE("ldp_server_discover: the C++ result through caller buffers") {
  const auto p = ldp::wire::make_pem(4.0, 6, 8);
  REQUIRE(p.code == ldp::status::ok);
  const ldp_params cp = c_params(p.block);
  owned_aggregator c;
  REQUIRE(ldp_aggregator_create(&cp, &c.a) == LDP_OK);
  std::unique_ptr<ldp::server::string_discovery_aggregator> cxx;
  REQUIRE(ldp::server::string_discovery_aggregator::create(p.block, &cxx) == ldp::status::ok);
  ldp::test::string_fleet devices(p.block);
  auto rng = ldp::test::seeded_drbg("capi strings");
  const char* words[] = {"alpha", "alpha", "alpha", "beta", "beta", "gammas"};
  for (int i = 0; i < 6000; ++i) {
    const std::vector<unsigned char> r = devices.report(words[i % 6], rng);
    REQUIRE(ldp_aggregator_add_report(c.a, r.data(), r.size()) == LDP_OK);
    REQUIRE(cxx->add_report(r) == ldp::status::ok);
  }
  ldp::server::discovery_options o;
  o.k = 2;
  o.confidence = 0.9;
  std::vector<ldp::server::discovered_string> expected;
  REQUIRE(cxx->discover(o, &expected) == ldp::status::ok);
  REQUIRE(expected.size() == 2);
  CHECK(expected[0].item == "alpha");
  CHECK(expected[1].item == "beta");

  std::size_t count = 99;
  CHECK(ldp_server_discover(c.a, 2, 0, nullptr, 0.9, nullptr, 0, &count) == LDP_BUFFER_TOO_SMALL);
  CHECK(count == 2);
  std::vector<ldp_discovered_string> out(2);
  REQUIRE(ldp_server_discover(c.a, 2, 0, "", 0.9, out.data(), out.size(), &count) == LDP_OK);
  REQUIRE(count == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(std::string(out[i].string) == expected[i].item);
    CHECK(out[i].estimate.item == expected[i].est.item);
    CHECK(out[i].estimate.value == expected[i].est.value);
    CHECK(out[i].estimate.variance == expected[i].est.variance);
    CHECK(out[i].estimate.ci_low == expected[i].est.ci_low);
    CHECK(out[i].estimate.ci_high == expected[i].est.ci_high);
  }
  // The family lists no estimate_all.
  CHECK(ldp_aggregator_estimate_all(c.a, 0.9, nullptr, 0, &count) == LDP_OK);
  CHECK(count == 0);
  // Refusals.
  CHECK(ldp_server_discover(c.a, 0, 0, nullptr, 0.9, out.data(), out.size(), &count) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_discover(c.a, 2, 0, nullptr, 0.9, nullptr, 2, &count) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_discover(nullptr, 2, 0, nullptr, 0.9, out.data(), out.size(), &count) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_server_discover(c.a, 2, 0, nullptr, 0.9, out.data(), out.size(), nullptr) == LDP_INVALID_ARGUMENT);
  const ldp::wire::params olh = ldp::wire::make_olh(1.0, 16).block;
  const ldp_params co = c_params(olh);
  owned_aggregator other;
  REQUIRE(ldp_aggregator_create(&co, &other.a) == LDP_OK);
  CHECK(ldp_server_discover(other.a, 2, 0, nullptr, 0.9, out.data(), out.size(), &count) == LDP_INVALID_PARAMETERS);
}
