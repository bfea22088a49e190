// Memoized randomized response through the C API (ldp.h; docs/c_api.md, docs/mechanisms.md E.1): the
// blocks and both levels are the C++ ones, the reports the C++ bytes for the same DRBG seed and
// secret, the plain and memoized entries refuse each other's blocks, and a C aggregator counts the
// reports with the composite estimator.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "device_context.h"
#include "ldp.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "ldp_server.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::mechanism;

namespace {

using bytes = std::vector<unsigned char>;

const uint8_t rng_seed[LDP_SEED_SIZE] = {0x5a, 0x17};
const uint8_t secret[LDP_DEVICE_SECRET_SIZE] = {0x42, 0x01, 0x99};
constexpr uint32_t domain = 20, use_case = 12;
constexpr double longitudinal = 3.0, per_report = 1.0;

}  // namespace

TEST_CASE("memoized blocks and reports through the C API are the C++ ones") {
  for (mechanism m : ldp::test::memoized_oracles()) {
    const auto cxx = ldp::wire::make_memoized_oracle(m, longitudinal, per_report, domain);
    REQUIRE(cxx.code == status::ok);
    ldp_params p;
    REQUIRE(ldp_params_frequency_memoized(&p, static_cast<ldp_mechanism>(m), domain, longitudinal, per_report) ==
            LDP_OK);
    bytes expected(ldp::wire::params_max_size);
    std::size_t size = 0;
    REQUIRE(ldp::wire::encode_params(cxx.block, expected, &size) == status::ok);
    expected.resize(size);
    bytes encoded(LDP_PARAMS_MAX_ENCODED_SIZE);
    REQUIRE(ldp_params_encode(&p, encoded.data(), encoded.size(), &size) == LDP_OK);
    encoded.resize(size);
    CHECK(encoded == expected);
    CHECK(ldp_params_epsilon(&p) == cxx.epsilon_impl);
    CHECK(ldp_params_longitudinal_epsilon(&p) == ldp::wire::longitudinal_epsilon(cxx.block));
    CHECK(ldp_params_epsilon(&p) < ldp_params_longitudinal_epsilon(&p));
    // Reports: the C++ bytes for the same DRBG seed and secret.
    ldp_rng rng;
    REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
    ldp::random::drbg cxx_rng(rng_seed);
    ldp::test::owned_context<ldp::device::frequency_context> oracle(cxx.block);
    REQUIRE(oracle.code == status::ok);
    std::vector<uint64_t> workspace(ldp_workspace_size(&p) / 8);
    for (uint32_t item = 0; item < domain; ++item) {
      bytes c_report(ldp_report_max_size(&p)), cxx_report(ldp::wire::max_report_size(cxx.block));
      size_t c_size = 0, cxx_size = 0;
      REQUIRE(ldp_randomize_item_memoized(&p, &rng, item, secret, use_case, workspace.data(), workspace.size() * 8,
                                          c_report.data(), c_report.size(), &c_size) == LDP_OK);
      REQUIRE(oracle->randomize_memoized(item, {secret, use_case}, cxx_rng, cxx_report, ldp::device::framing::report,
                                         &cxx_size) == status::ok);
      c_report.resize(c_size);
      cxx_report.resize(cxx_size);
      CHECK(c_report == cxx_report);
    }
    ldp_rng_wipe(&rng);
  }
}

TEST_CASE("memoized C entries: refusals and arguments") {
  ldp_params memo, plain;
  REQUIRE(ldp_params_frequency_memoized(&memo, LDP_MECH_OUE, domain, longitudinal, per_report) == LDP_OK);
  REQUIRE(ldp_params_frequency(&plain, LDP_MECH_OUE, domain, per_report, 0, 0, nullptr) == LDP_OK);
  CHECK(ldp_params_longitudinal_epsilon(&plain) == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(ldp_params_longitudinal_epsilon(nullptr)));
  // Builder arguments.
  ldp_params p;
  CHECK(ldp_params_frequency_memoized(&p, LDP_MECH_GRR, domain, longitudinal, per_report) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_mechanism(&p) == 0);  // a refused builder leaves no block
  CHECK(ldp_params_frequency_memoized(&p, LDP_MECH_SUE, domain, 1.0, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency_memoized(&p, LDP_MECH_SUE, 1, 3.0, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency_memoized(&p, 300, domain, 3.0, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_frequency_memoized(nullptr, LDP_MECH_SUE, domain, 3.0, 1.0) == LDP_INVALID_ARGUMENT);
  // Each randomizer refuses the other's blocks; a null secret; an item out of range.
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  std::vector<uint64_t> workspace(ldp_workspace_size(&memo) / 8);
  CHECK(workspace.size() * 8 == 3 * ldp_workspace_size(&plain));
  bytes out(ldp_report_max_size(&memo));
  size_t written = 1;
  const size_t ws = workspace.size() * 8;
  CHECK(ldp_randomize_item(&memo, &rng, 3, workspace.data(), ws, out.data(), out.size(), &written) ==
        LDP_INVALID_ARGUMENT);
  CHECK(written == 0);
  written = 1;
  CHECK(ldp_randomize_item_memoized(&plain, &rng, 3, secret, use_case, workspace.data(), ws, out.data(), out.size(),
                                    &written) == LDP_INVALID_ARGUMENT);
  CHECK(written == 0);
  CHECK(ldp_randomize_item_memoized(&memo, &rng, 3, nullptr, use_case, workspace.data(), ws, out.data(), out.size(),
                                    &written) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_item_memoized(&memo, &rng, domain, secret, use_case, workspace.data(), ws, out.data(), out.size(),
                                    &written) == LDP_OUT_OF_RANGE);
  CHECK(ldp_randomize_item_memoized(&memo, &rng, 3, secret, use_case, workspace.data(), ws - 8, out.data(), out.size(),
                                    &written) == LDP_WORKSPACE_TOO_SMALL);
  CHECK(ldp_randomize_item_memoized(&memo, &rng, 3, secret, use_case, workspace.data(), ws, out.data(), out.size() - 1,
                                    &written) == LDP_BUFFER_TOO_SMALL);
  CHECK(written == 0);
  ldp_rng_wipe(&rng);
}

TEST_CASE("a C aggregator estimates memoized reports with the composite channel") {
  // Every device holds item 2: the estimate of item 2 is near n, the others near 0, each within 6
  // standard deviations of the composite closed form (a false-failure probability below 4e-8).
  ldp_params p;
  REQUIRE(ldp_params_frequency_memoized(&p, LDP_MECH_OLH, domain, longitudinal, per_report) == LDP_OK);
  ldp_aggregator* agg = nullptr;
  REQUIRE(ldp_aggregator_create(&p, &agg) == LDP_OK);
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  constexpr int devices = 4000;
  for (int device = 0; device < devices; ++device) {
    uint8_t own[LDP_DEVICE_SECRET_SIZE] = {};
    for (int i = 0; i < 4; ++i) own[i] = static_cast<uint8_t>(device >> (8 * i));
    bytes report(ldp_report_max_size(&p));
    size_t size = 0;
    REQUIRE(ldp_randomize_item_memoized(&p, &rng, 2, own, use_case, nullptr, 0, report.data(), report.size(), &size) ==
            LDP_OK);
    REQUIRE(ldp_aggregator_add_report(agg, report.data(), size) == LDP_OK);
  }
  std::vector<ldp_estimate> est(domain);
  size_t n = 0;
  REQUIRE(ldp_aggregator_estimate_all(agg, 0.9, est.data(), est.size(), &n) == LDP_OK);
  REQUIRE(n == domain);
  for (uint32_t v = 0; v < domain; ++v) {
    CAPTURE(v);
    const double truth = v == 2 ? devices : 0;
    CHECK(std::fabs(est[v].value - truth) <= 6 * std::sqrt(est[v].variance));
  }
  ldp_aggregator_free(agg);
  ldp_rng_wipe(&rng);
}
