// The distribution half of the C API's device side (ldp.h: ldp_params_square_wave,
// ldp_params_hierarchical, ldp_params_haar, and ldp_randomize_value for their blocks; docs/c_api.md)
// against the C++ API it wraps: the same blocks and fingerprints, the same report bytes for the
// same seed, no workspace, and the statuses of bad arguments.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "device_context.h"
#include "ldp.h"
#include "ldp/device/distribution.h"
#include "ldp/wire.h"

using ldp::status;

namespace {

using bytes = std::vector<unsigned char>;

const uint8_t rng_seed[LDP_SEED_SIZE] = {0x5a, 0x17, 0x0c};

struct pair {
  ldp_params c;
  ldp::wire::derived_params cxx;
};

// One block of each member through both APIs, on [-40, 60] with f = 12.
std::vector<pair> pairs() {
  std::vector<pair> out(4);
  REQUIRE(ldp_params_square_wave(&out[0].c, 1.0, 100, -40, 60, 12, -1) == LDP_OK);
  out[0].cxx = ldp::wire::make_square_wave(1.0, 100, -40, 60, 12, -1);
  REQUIRE(ldp_params_square_wave(&out[1].c, 2.0, 64, -40, 60, 12, 5) == LDP_OK);
  out[1].cxx = ldp::wire::make_square_wave(2.0, 64, -40, 60, 12, 5);
  REQUIRE(ldp_params_hierarchical(&out[2].c, 1.5, 256, 0, -40, 60, 12) == LDP_OK);
  out[2].cxx = ldp::wire::make_hierarchical(1.5, 256, 0, -40, 60, 12);
  REQUIRE(ldp_params_haar(&out[3].c, 3.0, 128, -40, 60, 12) == LDP_OK);
  out[3].cxx = ldp::wire::make_haar(3.0, 128, -40, 60, 12);
  for (const pair& p : out) REQUIRE(p.cxx.code == status::ok);
  return out;
}

}  // namespace

TEST_CASE("distribution blocks built through the C API are the C++ blocks") {
  for (const pair& p : pairs()) {
    const ldp::wire::params& block = p.cxx.block;
    CAPTURE(ldp::wire::mechanism_name(block.mech));
    CHECK(ldp_params_mechanism(&p.c) == static_cast<ldp_mechanism>(block.mech));
    CHECK(ldp_params_fingerprint(&p.c) == ldp::wire::fingerprint(block));
    CHECK(ldp_params_epsilon(&p.c) == p.cxx.epsilon_impl);
    CHECK(ldp_report_max_size(&p.c) == ldp::wire::max_report_size(block));
    CHECK(ldp_workspace_size(&p.c) == 0);
    int64_t x = 0;
    CHECK(ldp_params_to_fixed(&p.c, 12.5, &x) == LDP_OK);
    CHECK(x == 51200);  // 12.5 * 2^12
  }
  const std::vector<pair> all = pairs();
  CHECK(ldp_params_mechanism(&all[0].c) == LDP_MECH_SQUARE_WAVE);
  CHECK(ldp_params_mechanism(&all[2].c) == LDP_MECH_HIERARCHICAL);
  CHECK(ldp_params_mechanism(&all[3].c) == LDP_MECH_HAAR);
  CHECK(all[0].cxx.block.get(ldp::wire::field::window_half_width) == ldp::wire::square_wave_half_width(1.0, 100));
  CHECK(all[1].cxx.block.get(ldp::wire::field::window_half_width) == 5);
  CHECK(all[2].cxx.block.get(ldp::wire::field::branching) == 4);  // the rule for 256 = 4^4
}

TEST_CASE("bad distribution-block arguments are refused, and the context is left uninitialized") {
  ldp_params p;
  REQUIRE(ldp_params_haar(&p, 1.0, 16, 0, 1, 16) == LDP_OK);
  CHECK(ldp_params_square_wave(&p, 1.0, 16, 0, 1, 16, 17) == LDP_INVALID_ARGUMENT);  // b > D
  CHECK(ldp_params_mechanism(&p) == 0);
  CHECK(ldp_params_square_wave(nullptr, 1.0, 16, 0, 1, 16, -1) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_square_wave(&p, 1.0, 1, 0, 1, 16, -1) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_square_wave(&p, 1.0, 65537, 0, 1, 16, -1) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_square_wave(&p, 0.0, 16, 0, 1, 16, -1) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_square_wave(&p, 1.0, 16, 1, 0, 16, -1) == LDP_INVALID_ARGUMENT);  // lo > hi
  CHECK(ldp_params_hierarchical(nullptr, 1.0, 16, 4, 0, 1, 16) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_hierarchical(&p, 1.0, 16, 3, 0, 1, 16) == LDP_INVALID_ARGUMENT);  // 16 is no power of 3
  CHECK(ldp_params_hierarchical(&p, 1.0, 17, 0, 0, 1, 16) == LDP_INVALID_ARGUMENT);  // no fan-out in 2..16
  CHECK(ldp_params_mechanism(&p) == 0);
  CHECK(ldp_params_haar(nullptr, 1.0, 16, 0, 1, 16) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_haar(&p, 1.0, 12, 0, 1, 16) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_haar(&p, 1.0, 16, 0, 1, 3) == LDP_INVALID_ARGUMENT);  // 8 grid steps for 16 buckets
  CHECK(ldp_params_mechanism(&p) == 0);
}

TEST_CASE("ldp_randomize_value writes the C++ distribution_context's bytes for the same seed") {
  for (const pair& p : pairs()) {
    const ldp::wire::params& block = p.cxx.block;
    CAPTURE(ldp::wire::mechanism_name(block.mech));
    ldp_rng rng;
    REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
    ldp::random::drbg cxx_rng(rng_seed);
    ldp::test::owned_context<ldp::device::distribution_context> context(block);
    REQUIRE(context.code == status::ok);
    for (int i = 0; i < 60; ++i) {
      // Values across the range, and outside it on both sides (clamped).
      const int64_t x = (static_cast<int64_t>(i) - 12) * 9000;
      bytes c(ldp_report_max_size(&p.c));
      size_t n = 0;
      REQUIRE(ldp_randomize_value(&p.c, &rng, x, c.data(), c.size(), &n) == LDP_OK);
      c.resize(n);
      bytes cxx(ldp::wire::max_report_size(block));
      std::size_t m = 0;
      REQUIRE(context->randomize(x, cxx_rng, cxx, ldp::device::framing::report, &m) == status::ok);
      cxx.resize(m);
      CHECK(c == cxx);
    }
    // A buffer one byte short of the report, and a missing generator.
    bytes out(ldp_report_max_size(&p.c));
    size_t n = 7;
    CHECK(ldp_randomize_value(&p.c, &rng, 0, out.data(), ldp::wire::report_header_size, &n) == LDP_BUFFER_TOO_SMALL);
    CHECK(n == 0);
    CHECK(ldp_randomize_value(&p.c, nullptr, 0, out.data(), out.size(), &n) == LDP_INVALID_ARGUMENT);
    ldp_rng_wipe(&rng);
  }
}

TEST_CASE("ldp_randomize_value still refuses blocks that take no value") {
  ldp_params olh;
  REQUIRE(ldp_params_frequency(&olh, LDP_MECH_OLH, 100, 1.0, 0, 0, nullptr) == LDP_OK);
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  bytes out(ldp_report_max_size(&olh));
  size_t n = 7;
  CHECK(ldp_randomize_value(&olh, &rng, 0, out.data(), out.size(), &n) == LDP_INVALID_ARGUMENT);
  CHECK(n == 0);
  ldp_rng_wipe(&rng);
}
