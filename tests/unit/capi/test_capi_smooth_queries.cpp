// smooth-queries (docs/mechanisms.md H.6) through the C API: ldp_params_smooth_queries builds
// make_smooth_queries' block, ldp_randomize_smooth_queries takes the p coordinates and gives the C++
// context's bytes for the same generator; the refusals.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "device_context.h"
#include "ldp.h"
#include "ldp/device/smooth_queries.h"
#include "ldp/device/vector_mean.h"
#include "ldp/wire.h"
#include "ldp/wire/smooth_params.h"

using ldp::status;

TEST_CASE("smooth-queries through ldp_params_smooth_queries and ldp_randomize_smooth_queries") {
  // Fails (checked): a C entry point passing t and p swapped (another block, other bytes).
  ldp_params p;
  REQUIRE(ldp_params_smooth_queries(&p, 2, 5, 16, 1.5) == LDP_OK);
  const auto made = ldp::wire::make_smooth_queries(2, 5, 16, 1.5);
  REQUIRE(made.code == status::ok);
  const ldp::wire::params& block = made.block;
  std::vector<uint8_t> expected_block(ldp::wire::params_max_size), got_block(ldp::wire::params_max_size);
  size_t n = 0, m = 0;
  REQUIRE(ldp::wire::encode_params(block, expected_block, &n) == status::ok);
  REQUIRE(ldp_params_encode(&p, got_block.data(), got_block.size(), &m) == LDP_OK);
  expected_block.resize(n);
  got_block.resize(m);
  CHECK(got_block == expected_block);
  CHECK(ldp_params_mechanism(&p) == LDP_MECH_SMOOTH_QUERIES);
  CHECK(ldp_params_epsilon(&p) == made.epsilon_impl);
  const size_t ws = ldp_workspace_size(&p);
  CHECK(ws == ldp::device::vector_mean_context::workspace_size(block));
  CHECK(ws == 25 * 8);  // the 25 features, noised in place

  const int64_t x[2] = {30000, -65536};
  const uint8_t seed[LDP_SEED_SIZE] = {0x38, 0x06};
  ldp::random::drbg cxx_rng(seed);
  ldp::test::owned_context<ldp::device::vector_mean_context> device(block);
  REQUIRE(device.code == status::ok);
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, seed) == LDP_OK);
  std::vector<uint64_t> workspace(ws / 8);
  for (int i = 0; i < 5; ++i) {
    std::vector<uint8_t> expected(ldp::wire::max_report_size(block)), got(ldp_report_max_size(&p));
    size_t expected_size = 0, got_size = 0;
    REQUIRE(ldp::device::randomize_smooth_queries(device.context, x, cxx_rng, expected, ldp::device::framing::report,
                                                  &expected_size) == status::ok);
    REQUIRE(ldp_randomize_smooth_queries(&p, &rng, x, 2, workspace.data(), ws, got.data(), got.size(), &got_size) ==
            LDP_OK);
    expected.resize(expected_size);
    got.resize(got_size);
    CHECK(got == expected);
  }
  uint8_t out[512];
  CHECK(ldp_randomize_smooth_queries(&p, &rng, x, 2, workspace.data(), ws - 8, out, sizeof out, &n) ==
        LDP_WORKSPACE_TOO_SMALL);
  CHECK(ldp_randomize_smooth_queries(&p, &rng, x, 1, workspace.data(), ws, out, sizeof out, &n) ==
        LDP_INVALID_ARGUMENT);
  ldp_rng_wipe(&rng);

  ldp_params bad;
  CHECK(ldp_params_smooth_queries(&bad, 17, 2, 16, 1.0) == LDP_INVALID_ARGUMENT);  // 2^17 features
  CHECK(ldp_params_smooth_queries(&bad, 2, 1, 16, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_smooth_queries(&bad, 2, 4, 31, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_mechanism(&bad) == 0);
  CHECK(ldp_params_smooth_queries(nullptr, 2, 4, 16, 1.0) == LDP_INVALID_ARGUMENT);
}
