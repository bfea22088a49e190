// The string-discovery half of the C API's device side (ldp.h: ldp_params_pem, ldp_params_treehist,
// ldp_params_sfp, ldp_randomize_string; docs/c_api.md) against the C++ API it wraps: the same blocks
// and fingerprints, the same report bytes for the same seed, the workspace of the inner oracle, and
// the statuses of refused strings and bad arguments.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp.h"
#include "ldp/device/string.h"
#include "ldp/wire.h"

using ldp::status;

namespace {

using bytes = std::vector<unsigned char>;

const uint8_t hash_seed[LDP_SEED_SIZE] = {3, 1, 4, 1, 5};
const uint8_t rng_seed[LDP_SEED_SIZE] = {0x2b, 0x7e, 0x15};
const char* const words[] = {"to", "be", "or", "not", "question", "x", "whether", "tis"};

struct pair {
  ldp_params c;
  ldp::wire::derived_params cxx;
};

// One block of each member through both APIs.
std::vector<pair> pairs() {
  std::vector<pair> out(3);
  REQUIRE(ldp_params_pem(&out[0].c, 2.0, 8, 4, 1u << 16, 0) == LDP_OK);
  out[0].cxx = ldp::wire::make_pem(2.0, 8, 4, 1u << 16, 0);
  REQUIRE(ldp_params_treehist(&out[1].c, 1.0, 8, 8, 8, 128, hash_seed, 0) == LDP_OK);
  out[1].cxx = ldp::wire::make_treehist(1.0, 8, 8, 8, 128, hash_seed, 0);
  REQUIRE(ldp_params_sfp(&out[2].c, 3.0, 8, 8, 200, hash_seed, 0) == LDP_OK);
  out[2].cxx = ldp::wire::make_sfp(3.0, 8, 8, 200, hash_seed, 0);
  for (const pair& p : out) REQUIRE(p.cxx.code == status::ok);
  return out;
}

bytes c_report(const ldp_params& p, ldp_rng* rng, const std::string& s, ldp_status* code) {
  std::vector<uint64_t> workspace(ldp_workspace_size(&p) / 8);
  bytes out(ldp_report_max_size(&p));
  size_t n = 7;
  *code = ldp_randomize_string(&p, rng, reinterpret_cast<const uint8_t*>(s.data()), s.size(), workspace.data(),
                               workspace.size() * 8, out.data(), out.size(), &n);
  out.resize(*code == LDP_OK ? n : 0);
  if (*code != LDP_OK) CHECK(n == 0);
  return out;
}

}  // namespace

TEST_CASE("string blocks built through the C API are the C++ blocks, with the inner oracle's epsilon") {
  for (const pair& p : pairs()) {
    const ldp::wire::params& block = p.cxx.block;
    CAPTURE(ldp::wire::mechanism_name(block.mech));
    CHECK(ldp_params_mechanism(&p.c) == static_cast<ldp_mechanism>(block.mech));
    CHECK(ldp_params_fingerprint(&p.c) == ldp::wire::fingerprint(block));
    CHECK(ldp_params_epsilon(&p.c) == p.cxx.epsilon_impl);
    CHECK(ldp_report_max_size(&p.c) == ldp::wire::max_report_size(block));
    CHECK(ldp_workspace_size(&p.c) == ldp::device::string_context::workspace_size(block));
  }
  // sfp's workspace holds the CMS signs (200 bits: 4 words), the others none.
  const std::vector<pair> all = pairs();
  CHECK(ldp_workspace_size(&all[0].c) == 0);
  CHECK(ldp_workspace_size(&all[1].c) == 0);
  CHECK(ldp_workspace_size(&all[2].c) == 32);
}

TEST_CASE("bad string-block arguments are refused, and the context is left uninitialized") {
  ldp_params p;
  CHECK(ldp_params_pem(nullptr, 1.0, 8, 8, 0, 0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_pem(&p, 1.0, 65, 8, 0, 0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_mechanism(&p) == 0);
  CHECK(ldp_params_pem(&p, 1.0, 8, 3, 0, 0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_treehist(&p, 1.0, 8, 8, 8, 100, hash_seed, 0) == LDP_INVALID_ARGUMENT);  // columns 2^j
  CHECK(ldp_params_treehist(&p, 1.0, 8, 8, 8, 128, nullptr, 0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_treehist(nullptr, 1.0, 8, 8, 8, 128, hash_seed, 0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_sfp(&p, 1.0, 7, 8, 128, hash_seed, 0) == LDP_INVALID_ARGUMENT);  // odd length
  CHECK(ldp_params_sfp(&p, 1.0, 8, 8, 128, nullptr, 0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_sfp(nullptr, 1.0, 8, 8, 128, hash_seed, 0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_mechanism(&p) == 0);
}

TEST_CASE("ldp_randomize_string writes the C++ string_context's bytes for the same seed") {
  for (const pair& p : pairs()) {
    const ldp::wire::params& block = p.cxx.block;
    CAPTURE(ldp::wire::mechanism_name(block.mech));
    ldp_rng rng;
    REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
    ldp::random::drbg cxx_rng(rng_seed);
    ldp::test::owned_context<ldp::device::string_context> context(block);
    REQUIRE(context.code == status::ok);
    for (int i = 0; i < 40; ++i) {
      const std::string word = words[static_cast<std::size_t>(i) % std::size(words)];
      ldp_status code = LDP_OK;
      const bytes c = c_report(p.c, &rng, word, &code);
      REQUIRE(code == LDP_OK);
      bytes cxx(ldp::wire::max_report_size(block));
      std::size_t n = 0;
      REQUIRE(context->randomize({reinterpret_cast<const unsigned char*>(word.data()), word.size()}, cxx_rng, cxx,
                                 ldp::device::framing::report, &n) == status::ok);
      cxx.resize(n);
      CHECK(c == cxx);
    }
    ldp_rng_wipe(&rng);
  }
}

TEST_CASE("ldp_randomize_string: refused strings draw nothing; wrong blocks, buffers and workspaces") {
  for (const pair& p : pairs()) {
    CAPTURE(ldp::wire::mechanism_name(p.cxx.block.mech));
    ldp_rng rng, twin;
    REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
    REQUIRE(ldp_rng_init(&twin, rng_seed) == LDP_OK);
    ldp_status code = LDP_OK;
    for (const std::string& bad : {std::string(), std::string("ninebytes"), std::string("a\0b", 3)}) {
      (void)c_report(p.c, &rng, bad, &code);
      CHECK(code == LDP_OUT_OF_RANGE);
    }
    // The generator did not move: the next report is the twin's first.
    CHECK(c_report(p.c, &rng, "eight", &code) == c_report(p.c, &twin, "eight", &code));
    std::vector<uint64_t> workspace(ldp_workspace_size(&p.c) / 8 + 1);
    bytes out(ldp_report_max_size(&p.c));
    size_t n = 0;
    CHECK(ldp_randomize_string(&p.c, &rng, nullptr, 3, workspace.data(), workspace.size() * 8, out.data(), out.size(),
                               &n) == LDP_INVALID_ARGUMENT);
    const uint8_t word[] = {'o', 'k'};
    CHECK(ldp_randomize_string(&p.c, &rng, word, 2, workspace.data(), workspace.size() * 8, out.data(), 3, &n) ==
          LDP_BUFFER_TOO_SMALL);
    CHECK(ldp_randomize_string(&p.c, nullptr, word, 2, workspace.data(), workspace.size() * 8, out.data(), out.size(),
                               &n) == LDP_INVALID_ARGUMENT);
    if (ldp_workspace_size(&p.c) > 0) {
      CHECK(ldp_randomize_string(&p.c, &rng, word, 2, workspace.data(), ldp_workspace_size(&p.c) - 8, out.data(),
                                 out.size(), &n) == LDP_WORKSPACE_TOO_SMALL);
    }
    ldp_rng_wipe(&rng);
    ldp_rng_wipe(&twin);
  }
  // An item oracle's block is not a string block.
  ldp_params olh;
  REQUIRE(ldp_params_frequency(&olh, LDP_MECH_OLH, 100, 1.0, 0, 0, nullptr) == LDP_OK);
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  ldp_status code = LDP_OK;
  (void)c_report(olh, &rng, "ok", &code);
  CHECK(code == LDP_INVALID_ARGUMENT);
}
