// The C API of kway-marginals (docs/c_api.md): ldp_params_kway_marginals builds the wire block,
// ldp_randomize_record writes a report the server decodes, and bad records and blocks are refused.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "ldp.h"
#include "ldp/wire.h"

TEST_CASE("ldp_params_kway_marginals and ldp_randomize_record") {
  ldp_params params{};
  REQUIRE(ldp_params_kway_marginals(&params, 6, 2, 0, 1.0) == LDP_OK);
  CHECK(ldp_params_mechanism(&params) == LDP_MECH_KWAY_MARGINALS);
  CHECK(ldp_params_epsilon(&params) <= 1.0);
  CHECK(ldp_params_kway_marginals(&params, 6, 7, 0, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_kway_marginals(nullptr, 6, 2, 0, 1.0) == LDP_INVALID_ARGUMENT);
  REQUIRE(ldp_params_kway_marginals(&params, 6, 2, 0, 1.0) == LDP_OK);

  const size_t need = ldp_workspace_size(&params);
  CHECK(need == 21 * sizeof(int64_t));
  std::vector<uint64_t> workspace((need + 7) / 8);
  ldp_rng rng{};
  const uint8_t seed[32] = {1, 2, 3};
  REQUIRE(ldp_rng_init(&rng, seed) == LDP_OK);
  std::vector<uint8_t> out(ldp_report_max_size(&params));
  size_t written = 0;
  REQUIRE(ldp_randomize_record(&params, &rng, 0b110011, workspace.data(), need, out.data(), out.size(), &written) ==
          LDP_OK);
  CHECK(written > 10);
  const auto block = ldp::wire::make_kway_marginals(6, 2, 0, 1.0).block;
  ldp::wire::report r;
  CHECK(ldp::wire::decode_report(block, ldp::wire::fingerprint(block), {out.data(), written}, &r) == ldp::status::ok);
  CHECK(r.count == 21);
  CHECK(ldp_randomize_record(&params, &rng, uint64_t{1} << 6, workspace.data(), need, out.data(), out.size(),
                             &written) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_randomize_record(&params, &rng, 1, workspace.data(), need - 8, out.data(), out.size(), &written) ==
        LDP_WORKSPACE_TOO_SMALL);
  const int64_t x[21] = {};
  CHECK(ldp_randomize_vector(&params, &rng, x, 21, workspace.data(), need, out.data(), out.size(), &written) ==
        LDP_INVALID_ARGUMENT);
}
