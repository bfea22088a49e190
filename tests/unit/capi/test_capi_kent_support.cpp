// Kent M4a's support vote (docs/mechanisms.md C.1 P4) through the C API: a kent-support block from
// its bytes, ldp_workspace_size, and ldp_randomize_observations giving the C++ context's bytes for
// the same generator; the workspace and argument refusals.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "device_context.h"
#include "ldp.h"
#include "ldp/device/kent_support.h"
#include "ldp/wire.h"
#include "ldp/wire/kent_support_params.h"

using ldp::status;

TEST_CASE("kent-support through ldp_randomize_observations: the C++ context's reports, byte for byte") {
  constexpr int64_t one = int64_t{1} << 16;
  ldp::wire::kent_support_shape shape;
  shape.clip_lo = -one;
  shape.clip_hi = one;
  shape.observations = 3;
  shape.dimension = 70;  // three sign words
  shape.sparsity = 2;
  shape.threshold = one / 4;
  const auto made = ldp::wire::make_kent_support(1.0, shape);
  REQUIRE(made.code == status::ok);
  const ldp::wire::params& block = made.block;
  std::vector<uint8_t> encoded(ldp::wire::params_max_size);
  size_t n = 0;
  REQUIRE(ldp::wire::encode_params(block, encoded, &n) == status::ok);
  ldp_params p;
  REQUIRE(ldp_params_decode(&p, encoded.data(), n) == LDP_OK);
  CHECK(ldp_params_mechanism(&p) == LDP_MECH_KENT_SUPPORT);
  CHECK(ldp_params_epsilon(&p) == doctest::Approx(made.epsilon_impl));
  const size_t ws = ldp_workspace_size(&p);
  CHECK(ws == ldp::device::kent_support_context::workspace_size(block));
  CHECK(ws == 24 + 2 * 8);  // 3 sign words and 2 kept indices (20 bytes, padded to 24), 2 magnitudes

  // 4 observations (one past the cap) of 70 coordinates: coordinates 5 and 40 spike.
  std::vector<int64_t> data(4 * 70, 0);
  for (int t = 0; t < 4; ++t) {
    data[70 * t + 5] = one;
    data[70 * t + 40] = -one / 2;
  }
  const uint8_t seed[LDP_SEED_SIZE] = {0x4b, 0x34};
  ldp::random::drbg cxx_rng(seed);
  ldp::test::owned_context<ldp::device::kent_support_context> device(block);
  REQUIRE(device.code == status::ok);
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, seed) == LDP_OK);
  std::vector<uint64_t> workspace(ws / 8);
  for (int i = 0; i < 20; ++i) {
    std::vector<uint8_t> expected(ldp::wire::max_report_size(block)), got(ldp_report_max_size(&p));
    size_t expected_size = 0, got_size = 0;
    REQUIRE(device->randomize(data, cxx_rng, expected, ldp::device::framing::report, &expected_size) == status::ok);
    REQUIRE(ldp_randomize_observations(&p, &rng, data.data(), data.size(), workspace.data(), ws, got.data(), got.size(),
                                       &got_size) == LDP_OK);
    expected.resize(expected_size);
    got.resize(got_size);
    CHECK(got == expected);
  }
  uint8_t out[64];
  CHECK(ldp_randomize_observations(&p, &rng, data.data(), data.size(), workspace.data(), ws - 8, out, sizeof out, &n) ==
        LDP_WORKSPACE_TOO_SMALL);
  CHECK(ldp_randomize_observations(&p, &rng, data.data(), 69, workspace.data(), ws, out, sizeof out, &n) ==
        LDP_INVALID_ARGUMENT);  // not a whole observation
  CHECK(ldp_randomize_observations(&p, &rng, data.data(), data.size(), workspace.data(), ws, out, 12, &n) ==
        LDP_BUFFER_TOO_SMALL);
  ldp_rng_wipe(&rng);
}
