// Memoized telemetry through the C API (ldp.h; docs/mechanisms.md E.2): the memoized duchi builder
// gives the C++ block, ldp_randomize_value_memoized writes the C++ randomize_memoized bytes for the
// same seed, secret and use case, the C aggregator estimates them, and the argument errors.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "device_context.h"
#include "ldp.h"
#include "ldp/device/mean.h"
#include "ldp/wire.h"
#include "ldp_server.h"

using ldp::status;

namespace {

using bytes = std::vector<unsigned char>;

const uint8_t rng_seed[LDP_SEED_SIZE] = {0x3c, 0x17};
const uint8_t secret[LDP_DEVICE_SECRET_SIZE] = {0xa5, 0x5a, 0x01};

bytes encoded(const ldp_params& p) {
  bytes out(LDP_PARAMS_MAX_ENCODED_SIZE);
  size_t n = 0;
  REQUIRE(ldp_params_encode(&p, out.data(), out.size(), &n) == LDP_OK);
  out.resize(n);
  return out;
}

}  // namespace

TEST_CASE("memoized duchi through the C API: the C++ block, the C++ bytes, estimated by the C aggregator") {
  const auto cxx = ldp::wire::make_memoized_duchi(0.0, 50.0, 10, 2.0, 25, 0.125);
  REQUIRE(cxx.code == status::ok);
  ldp_params p;
  REQUIRE(ldp_params_memoized_duchi(&p, 0.0, 50.0, 10, 2.0, 25, 0.125) == LDP_OK);
  bytes block(ldp::wire::params_max_size);
  size_t n = 0;
  REQUIRE(ldp::wire::encode_params(cxx.block, block, &n) == status::ok);
  block.resize(n);
  CHECK(encoded(p) == block);
  CHECK(ldp_params_epsilon(&p) == cxx.epsilon_impl);
  CHECK(ldp_params_epsilon(&p) < 2.0);
  CHECK(ldp_params_longitudinal_epsilon(&p) == ldp::wire::longitudinal_epsilon(cxx.block));
  CHECK(ldp_params_longitudinal_epsilon(&p) <= 2.0);

  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  ldp::random::drbg cxx_rng(rng_seed);
  ldp::test::owned_context<ldp::device::mean_context> c(cxx.block);
  REQUIRE(c.code == status::ok);
  ldp_aggregator* agg = nullptr;
  REQUIRE(ldp_aggregator_create(&p, &agg) == LDP_OK);
  for (int64_t x = 0; x < 200; ++x) {
    const int64_t value = x * 256;
    uint8_t out[16];
    size_t written = 0;
    REQUIRE(ldp_randomize_value_memoized(&p, &rng, secret, 9, value, out, sizeof out, &written) == LDP_OK);
    unsigned char expected[16];
    size_t size = 0;
    REQUIRE(c->randomize_memoized(value, {secret, 9}, cxx_rng, expected, ldp::device::framing::report, &size) ==
            status::ok);
    CHECK(bytes(out, out + written) == bytes(expected, expected + size));
    CHECK(ldp_aggregator_add_report(agg, out, written) == LDP_OK);
  }
  ldp_estimate e;
  size_t count = 0;
  REQUIRE(ldp_aggregator_estimate_all(agg, 0.95, &e, 1, &count) == LDP_OK);
  CHECK(count == 1);
  CHECK(std::isfinite(e.value));
  ldp_aggregator_free(agg);
}

TEST_CASE("memoized duchi through the C API: bad builders, blocks and secrets are refused") {
  ldp_params p;
  CHECK(ldp_params_memoized_duchi(&p, 0.0, 1.0, 3, 1.0, 3, 0.0) == LDP_INVALID_ARGUMENT);  // 3 does not divide 8
  CHECK(ldp_params_memoized_duchi(&p, 0.0, 1.0, 3, 1.0, 8, 0.5) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_memoized_duchi(nullptr, 0.0, 1.0, 3, 1.0, 8, 0.0) == LDP_INVALID_ARGUMENT);
  REQUIRE(ldp_params_memoized_duchi(&p, 0.0, 1.0, 3, 1.0, 8, 0.1) == LDP_OK);
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  uint8_t out[16];
  size_t written = 1;
  CHECK(ldp_randomize_value_memoized(&p, &rng, nullptr, 0, 3, out, sizeof out, &written) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_value(&p, &rng, 3, out, sizeof out, &written) == LDP_INVALID_ARGUMENT);
  CHECK(written == 0);
  ldp_params plain;
  REQUIRE(ldp_params_numeric(&plain, LDP_MECH_DUCHI, 0.0, 1.0, 3, 1.0) == LDP_OK);
  CHECK(ldp_randomize_value_memoized(&plain, &rng, secret, 0, 3, out, sizeof out, &written) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_value_memoized(&p, &rng, secret, 0, 3, out, 1, &written) == LDP_BUFFER_TOO_SMALL);
}
