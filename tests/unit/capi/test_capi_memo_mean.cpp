// Memoized numeric telemetry through the C API (ldp.h; docs/mechanisms.md E.2, E.3): the memoized duchi builder
// gives the C++ block, ldp_randomize_value_memoized writes the C++ randomize_memoized bytes for the
// same seed, secret and use case, the C aggregator estimates them, and the argument errors.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "device_context.h"
#include "ldp.h"
#include "ldp/device/frequency.h"
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

// The C block is the C++ one (bytes and level); then `count` reports from the C randomizer
// c_report(i, rng, out, capacity, written) equal those of the C++ context's cxx_report(i, context,
// rng, out, size) for the same seed, and the C aggregator takes them all and estimates `items`.
template <class Context, class CReport, class CxxReport>
void check_against_cxx(const ldp_params& p, const ldp::wire::derived_params& cxx, uint32_t count, std::size_t items,
                       CReport c_report, CxxReport cxx_report) {
  REQUIRE(cxx.code == status::ok);
  bytes block(ldp::wire::params_max_size);
  size_t n = 0;
  REQUIRE(ldp::wire::encode_params(cxx.block, block, &n) == status::ok);
  block.resize(n);
  CHECK(encoded(p) == block);
  CHECK(ldp_params_epsilon(&p) == cxx.epsilon_impl);
  CHECK(ldp_params_longitudinal_epsilon(&p) == ldp::wire::longitudinal_epsilon(cxx.block));
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  ldp::random::drbg cxx_rng(rng_seed);
  ldp::test::owned_context<Context> c(cxx.block);
  REQUIRE(c.code == status::ok);
  ldp_aggregator* agg = nullptr;
  REQUIRE(ldp_aggregator_create(&p, &agg) == LDP_OK);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t out[32];
    size_t written = 0;
    REQUIRE(c_report(i, &rng, out, sizeof out, &written) == LDP_OK);
    unsigned char expected[32];
    size_t size = 0;
    REQUIRE(cxx_report(i, *c.operator->(), cxx_rng, ldp::span<unsigned char>(expected, sizeof expected), &size) ==
            status::ok);
    CHECK(bytes(out, out + written) == bytes(expected, expected + size));
    CHECK(ldp_aggregator_add_report(agg, out, written) == LDP_OK);
  }
  std::vector<ldp_estimate> e(items);
  size_t estimated = 0;
  REQUIRE(ldp_aggregator_estimate_all(agg, 0.95, e.data(), e.size(), &estimated) == LDP_OK);
  CHECK(estimated == items);
  CHECK(std::isfinite(e[0].value));
  ldp_aggregator_free(agg);
}

}  // namespace

TEST_CASE("memoized duchi through the C API: the C++ block, the C++ bytes, estimated by the C aggregator") {
  ldp_params p;
  REQUIRE(ldp_params_memoized_duchi(&p, 0.0, 50.0, 10, 2.0, 25, 0.125) == LDP_OK);
  CHECK(ldp_params_epsilon(&p) < 2.0);
  CHECK(ldp_params_longitudinal_epsilon(&p) <= 2.0);
  check_against_cxx<ldp::device::mean_context>(
      p, ldp::wire::make_memoized_duchi(0.0, 50.0, 10, 2.0, 25, 0.125), 200, 1,
      [&](uint32_t i, ldp_rng* rng, uint8_t* out, size_t capacity, size_t* written) {
        return ldp_randomize_value_memoized(&p, rng, secret, 9, int64_t{256} * i, out, capacity, written);
      },
      [&](uint32_t i, const ldp::device::mean_context& c, ldp::random::drbg& rng, ldp::span<unsigned char> out,
          size_t* size) {
        return c.randomize_memoized(int64_t{256} * i, {secret, 9}, rng, out, ldp::device::framing::report, size);
      });
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

TEST_CASE("dBitFlip through the C API: the C++ block and bytes, counted by the C aggregator") {
  ldp_params p;
  REQUIRE(ldp_params_dbitflip(&p, 40, 4, 2.0) == LDP_OK);
  CHECK(ldp_workspace_size(&p) == 0);
  CHECK(ldp_params_longitudinal_epsilon(&p) == ldp_params_epsilon(&p));
  check_against_cxx<ldp::device::frequency_context>(
      p, ldp::wire::make_dbitflip(2.0, 40, 4), 40, 40,
      [&](uint32_t i, ldp_rng* rng, uint8_t* out, size_t capacity, size_t* written) {
        return ldp_randomize_item_memoized(&p, rng, i, secret, 2, nullptr, 0, out, capacity, written);
      },
      [&](uint32_t i, ldp::device::frequency_context& c, ldp::random::drbg& rng, ldp::span<unsigned char> out,
          size_t* size) {
        return c.randomize_memoized(i, {secret, 2}, rng, out, ldp::device::framing::report, size);
      });
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  // Refusals: the plain randomizer, and blocks that do not fit.
  uint8_t out[32];
  size_t written = 1;
  CHECK(ldp_randomize_item(&p, &rng, 3, nullptr, 0, out, sizeof out, &written) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_dbitflip(&p, 40, 33, 2.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_dbitflip(&p, 3, 4, 2.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_dbitflip(nullptr, 40, 4, 2.0) == LDP_INVALID_ARGUMENT);
}
