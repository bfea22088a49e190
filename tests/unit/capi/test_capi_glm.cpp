// glm-copies (docs/mechanisms.md H.4) through the C API: ldp_params_glm_copies gives
// make_glm_copies' block, ldp_randomize_glm gives the C++ context's bytes for the same generator;
// the workspace, dimension and copy-budget refusals.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "device_context.h"
#include "ldp.h"
#include "ldp/device/glm.h"
#include "ldp/wire.h"
#include "ldp/wire/glm_params.h"

using ldp::status;

TEST_CASE("glm-copies through ldp_params_glm_copies and ldp_randomize_glm: the C++ context's reports") {
  ldp_params p;
  REQUIRE(ldp_params_glm_copies(&p, 2.0, 1e-6, 3, 2, 0) == LDP_OK);  // frac_bits 0: the default 8
  const auto made = ldp::wire::make_glm_copies(2.0, 1e-6, {3, 2, 8});
  REQUIRE(made.code == status::ok);
  CHECK(ldp_params_mechanism(&p) == LDP_MECH_GLM_COPIES);
  CHECK(ldp_params_fingerprint(&p) == ldp::wire::fingerprint(made.block));
  CHECK(ldp_params_epsilon(&p) == made.epsilon_impl);
  const size_t ws = ldp_workspace_size(&p);
  CHECK(ws == 7 * 4 * 8);  // D (p + 1) int64 entries
  int64_t x[3] = {0, 0, 0};
  REQUIRE(ldp_params_to_fixed(&p, 0.5, &x[0]) == LDP_OK);
  REQUIRE(ldp_params_to_fixed(&p, 0.25, &x[1]) == LDP_OK);
  REQUIRE(ldp_params_to_fixed(&p, 1.0, &x[2]) == LDP_OK);
  CHECK(x[0] == 128);
  const uint8_t seed[LDP_SEED_SIZE] = {0x91, 0x4d};
  ldp::random::drbg cxx_rng(seed);
  ldp::test::owned_context<ldp::device::glm_context> device(made.block);
  REQUIRE(device.code == status::ok);
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, seed) == LDP_OK);
  std::vector<uint64_t> workspace(ws / 8);
  for (int i = 0; i < 10; ++i) {
    std::vector<uint8_t> expected(ldp::wire::max_report_size(made.block)), got(ldp_report_max_size(&p));
    size_t expected_size = 0, got_size = 0;
    REQUIRE(device->randomize(ldp::span<const int64_t>(x, 3), -256, cxx_rng, expected, ldp::device::framing::report,
                              &expected_size) == status::ok);
    REQUIRE(ldp_randomize_glm(&p, &rng, x, 3, -256, workspace.data(), ws, got.data(), got.size(), &got_size) == LDP_OK);
    expected.resize(expected_size);
    got.resize(got_size);
    CHECK(got == expected);
  }
  uint8_t out[512];
  size_t n = 0;
  CHECK(ldp_randomize_glm(&p, &rng, x, 3, 256, workspace.data(), ws - 8, out, sizeof out, &n) ==
        LDP_WORKSPACE_TOO_SMALL);
  CHECK(ldp_randomize_glm(&p, &rng, x, 2, 256, workspace.data(), ws, out, sizeof out, &n) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_glm(&p, &rng, x, 3, 256, workspace.data(), ws, out, 12, &n) == LDP_BUFFER_TOO_SMALL);
  // Above the build's copy budget (1057 on hosts, 21 on bare metal): d = 33 has 1123 copies.
  ldp_params big;
  REQUIRE(ldp_params_glm_copies(&big, 2.0, 1e-6, 1, 33, 0) == LDP_OK);
  std::vector<uint64_t> large(ldp_workspace_size(&big) / 8);
  std::vector<uint8_t> big_out(ldp_report_max_size(&big));
  CHECK(ldp_randomize_glm(&big, &rng, x, 1, 256, large.data(), large.size() * 8, big_out.data(), big_out.size(), &n) ==
        LDP_LIMIT_EXCEEDED);
  CHECK(ldp_params_glm_copies(&p, 2.0, 0.5, 3, 2, 0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_glm_copies(&p, 2.0, 1e-6, 3, 0, 0) == LDP_INVALID_ARGUMENT);
  ldp_rng_wipe(&rng);
}
