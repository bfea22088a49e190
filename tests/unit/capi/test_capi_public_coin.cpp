// The public-coin learners through the C API (docs/c_api.md "Public-coin learners", mechanisms.md
// H.2, H.3): ldp_params_public_coin gives the wire derivation's block, ldp_randomize_public_coin and
// its caller-loss variant give the C++ context's bytes for the same generator, and the refusals.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp.h"
#include "ldp/device/public_coin.h"
#include "ldp/wire.h"

using ldp::status;

namespace {

const uint8_t public_seed[LDP_SEED_SIZE] = {0x70, 0x75, 0x62};

ldp::wire::public_coin_shape shape(ldp::wire::loss_kind loss) {
  ldp::wire::public_coin_shape s;
  s.dim = 2;
  s.grid = 2;
  s.loss = loss;
  s.users = 500;
  s.frac_bits = 8;
  s.strings = 8;
  for (std::size_t i = 0; i < LDP_SEED_SIZE; ++i) s.seed[i] = public_seed[i];
  return s;
}

// A caller loss: the squared distance of w to (0.25, 0.75), halved (in [0, 1] on the square).
double distance_loss(const double* w, uint32_t p, const void* user) {
  const double* target = static_cast<const double*>(user);
  double sum = 0;
  for (uint32_t j = 0; j < p; ++j) sum += (w[j] - target[j]) * (w[j] - target[j]);
  return sum / 2;
}

double distance_loss_noexcept(const double* w, uint32_t p, const void* user) noexcept {
  return distance_loss(w, p, user);
}

}  // namespace

TEST_CASE("public-coin blocks and reports through the C API equal the C++ ones") {
  for (ldp_mechanism m : {LDP_MECH_BERNSTEIN_1BIT, LDP_MECH_BERNSTEIN_GENPROT}) {
    for (ldp::wire::loss_kind loss : {ldp::wire::loss_kind::logistic, ldp::wire::loss_kind::caller}) {
      const double eps = 1.5;
      const auto made = m == LDP_MECH_BERNSTEIN_1BIT ? ldp::wire::make_bernstein_1bit(eps, shape(loss))
                                                     : ldp::wire::make_bernstein_genprot(eps, shape(loss));
      REQUIRE(made.code == status::ok);
      ldp_params p;
      REQUIRE(ldp_params_public_coin(&p, m, 2, 2, static_cast<uint32_t>(loss), 500, 8, 8, eps, public_seed) == LDP_OK);
      CHECK(ldp_params_mechanism(&p) == m);
      CHECK(ldp_params_epsilon(&p) == made.epsilon_impl);
      const size_t ws = ldp_workspace_size(&p);
      CHECK(ws == 2 * sizeof(double));
      std::vector<uint64_t> workspace(ws / 8);
      std::vector<uint64_t> cxx_workspace(ws / 8);
      ldp::device::public_coin_context ctx;
      REQUIRE(ldp::device::public_coin_context::init(
                  ldp::span<std::byte>(reinterpret_cast<std::byte*>(cxx_workspace.data()), ws), made.block, &ctx) ==
              status::ok);
      const uint8_t seed[LDP_SEED_SIZE] = {0x31};
      ldp::random::drbg cxx_rng(seed);
      ldp_rng rng;
      REQUIRE(ldp_rng_init(&rng, seed) == LDP_OK);
      const double target[2] = {0.25, 0.75};
      for (uint32_t user = 0; user < 30; ++user) {
        const double x[2] = {0.1 * (user % 10), 0.5};
        const double label = user % 2;
        ldp::device::learner_example e;
        e.user = user;
        if (loss == ldp::wire::loss_kind::caller) {
          e.loss = distance_loss_noexcept;
          e.loss_user = target;
        } else {
          e.x = x;
          e.dim = 2;
          e.label = label;
        }
        std::vector<uint8_t> expected(ldp::wire::max_report_size(made.block)), got(ldp_report_max_size(&p));
        size_t expected_size = 0, got_size = 0;
        REQUIRE(ctx.randomize(e, cxx_rng, expected, ldp::device::framing::report, &expected_size) == status::ok);
        const ldp_status s =
            loss == ldp::wire::loss_kind::caller
                ? ldp_randomize_public_coin_loss(&p, &rng, user, distance_loss, target, workspace.data(), ws,
                                                 got.data(), got.size(), &got_size)
                : ldp_randomize_public_coin(&p, &rng, user, x, 2, label, workspace.data(), ws, got.data(), got.size(),
                                            &got_size);
        REQUIRE(s == LDP_OK);
        expected.resize(expected_size);
        got.resize(got_size);
        CHECK(got == expected);
      }
    }
  }
}

TEST_CASE("the C API refuses bad public-coin arguments") {
  ldp_params p;
  CHECK(ldp_params_public_coin(&p, LDP_MECH_BERNSTEIN_1BIT, 2, 2, 9, 500, 8, 0, 1.0, public_seed) ==
        LDP_INVALID_ARGUMENT);  // loss 9
  CHECK(ldp_params_public_coin(&p, LDP_MECH_BERNSTEIN_1BIT, 2, 2, 1, 8, 8, 0, 1.0, public_seed) ==
        LDP_INVALID_ARGUMENT);  // 8 users, 9 groups
  CHECK(ldp_params_public_coin(&p, LDP_MECH_BERNSTEIN_GENPROT, 1, 1, 1, 100, 8, 2, 1.0, public_seed) ==
        LDP_INVALID_ARGUMENT);  // T = 2 cannot reach epsilon 1 (H.3)
  CHECK(ldp_params_public_coin(&p, LDP_MECH_DUCHI, 1, 1, 1, 100, 8, 0, 1.0, public_seed) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_public_coin(&p, LDP_MECH_BERNSTEIN_1BIT, 1, 1, 1, 100, 8, 0, 1.0, nullptr) == LDP_INVALID_ARGUMENT);
  REQUIRE(ldp_params_public_coin(&p, LDP_MECH_BERNSTEIN_1BIT, 1, 1, 1, 100, 8, 0, 1.0, public_seed) == LDP_OK);
  ldp_rng rng;
  const uint8_t seed[LDP_SEED_SIZE] = {1};
  REQUIRE(ldp_rng_init(&rng, seed) == LDP_OK);
  uint64_t workspace[1];
  uint8_t out[64];
  size_t written = 0;
  const double x = 0.5, nan = std::nan("");
  CHECK(ldp_randomize_public_coin(&p, &rng, 100, &x, 1, 1, workspace, 8, out, sizeof out, &written) ==
        LDP_INVALID_ARGUMENT);  // user n
  CHECK(ldp_randomize_public_coin(&p, &rng, 3, &x, 2, 1, workspace, 8, out, sizeof out, &written) ==
        LDP_INVALID_ARGUMENT);  // p does not match
  CHECK(ldp_randomize_public_coin(&p, &rng, 3, &nan, 1, 1, workspace, 8, out, sizeof out, &written) ==
        LDP_INVALID_ARGUMENT);  // a NaN loss
  CHECK(ldp_randomize_public_coin(&p, &rng, 3, &x, 1, 1, workspace, 0, out, sizeof out, &written) ==
        LDP_WORKSPACE_TOO_SMALL);
  CHECK(ldp_randomize_public_coin_loss(&p, &rng, 3, distance_loss, nullptr, workspace, 8, out, sizeof out, &written) ==
        LDP_INVALID_ARGUMENT);  // a built-in-loss block takes no caller loss
  CHECK(ldp_randomize_public_coin(&p, &rng, 3, &x, 1, 1, workspace, 8, out, sizeof out, &written) == LDP_OK);
  CHECK(written == ldp_report_max_size(&p));
}
