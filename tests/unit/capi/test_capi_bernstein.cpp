// The local Bernstein mechanism through the C API (ldp.h: ldp_params_bernstein,
// ldp_randomize_bernstein, ldp_randomize_bernstein_loss; docs/c_api.md, docs/mechanisms.md H.1)
// against the C++ API it wraps: the same block, fingerprint and epsilon, the workspace of 16 N bytes,
// the same report bytes for the same seed (built-in and caller loss), and the statuses of bad
// arguments (nothing written, the generator untouched).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "device_context.h"
#include "ldp.h"
#include "ldp/device/bernstein.h"
#include "ldp/wire.h"

using ldp::status;
using ldp::wire::loss_kind;

namespace {

using bytes = std::vector<unsigned char>;

const uint8_t rng_seed[LDP_SEED_SIZE] = {0x36, 0x0b, 0x1e};

// The C caller loss: (w_0 - c)^2 + w_1 / 2 with c at `user`.
double c_loss(const double* w, uint32_t p, const void* user) {
  const double c = *static_cast<const double*>(user);
  return (w[0] - c) * (w[0] - c) + (p > 1 ? w[1] / 2 : 0.0);
}

double c_nan_loss(const double*, uint32_t, const void*) { return std::numeric_limits<double>::quiet_NaN(); }

// The C++ report of the same call, from a DRBG of the same seed.
template <class Report>
bytes cxx_report(const ldp::wire::params& p, Report report) {
  ldp::random::drbg rng(rng_seed);
  ldp::test::owned_context<ldp::device::vector_mean_context> c(p);
  REQUIRE(c.code == status::ok);
  std::vector<int64_t> values(ldp::device::bernstein_value_count(p));
  bytes out(ldp::wire::max_report_size(p));
  std::size_t size = 0;
  REQUIRE(report(c.context, values, rng, out, &size) == status::ok);
  out.resize(size);
  return out;
}

}  // namespace

TEST_CASE("ldp_params_bernstein is make_bernstein; the workspace holds the values and the noisy coordinates") {
  ldp_params c;
  REQUIRE(ldp_params_bernstein(&c, 2, 3, LDP_LOSS_LOGISTIC, 16, 1.5) == LDP_OK);
  const auto cxx = ldp::wire::make_bernstein(2, 3, loss_kind::logistic, 16, 1.5);
  REQUIRE(cxx.code == status::ok);
  CHECK(ldp_params_mechanism(&c) == LDP_MECH_BERNSTEIN);
  CHECK(ldp_params_fingerprint(&c) == ldp::wire::fingerprint(cxx.block));
  CHECK(ldp_params_epsilon(&c) == cxx.epsilon_impl);
  CHECK(ldp_report_max_size(&c) == ldp::wire::max_report_size(cxx.block));
  CHECK(ldp_workspace_size(&c) == 16 * 16);
  CHECK(std::string(ldp_mechanism_name(LDP_MECH_BERNSTEIN)) == "bernstein");
  CHECK(ldp_params_bernstein(&c, 17, 1, LDP_LOSS_SQUARED, 16, 1.0) == LDP_INVALID_ARGUMENT);  // N = 2^17
  CHECK(ldp_params_mechanism(&c) == 0);
  CHECK(ldp_params_bernstein(&c, 2, 3, 4, 16, 1.0) == LDP_INVALID_ARGUMENT);  // no such loss
  CHECK(ldp_params_bernstein(&c, 2, 3, LDP_LOSS_SQUARED, 33, 1.0) == LDP_INVALID_ARGUMENT);
  CHECK(ldp_params_bernstein(nullptr, 2, 3, LDP_LOSS_SQUARED, 16, 1.0) == LDP_INVALID_ARGUMENT);
}

TEST_CASE("ldp_randomize_bernstein and _loss write the C++ reports for the same seed") {
  ldp_rng rng;
  std::vector<uint64_t> workspace(32);
  bytes out(LDP_PARAMS_MAX_ENCODED_SIZE + 16 * 10);
  std::size_t written = 0;

  ldp_params builtin;
  REQUIRE(ldp_params_bernstein(&builtin, 2, 3, LDP_LOSS_HINGE, 16, 1.0) == LDP_OK);
  const auto builtin_cxx = ldp::wire::make_bernstein(2, 3, loss_kind::hinge, 16, 1.0).block;
  const double x[2] = {0.25, 0.75};
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  REQUIRE(ldp_randomize_bernstein(&builtin, &rng, x, 2, 1.0, workspace.data(), 8 * workspace.size(), out.data(),
                                  out.size(), &written) == LDP_OK);
  CHECK(bytes(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(written)) ==
        cxx_report(builtin_cxx, [&](auto& c, auto& values, auto& r, auto& o, auto* size) {
          return ldp::device::randomize_bernstein(c, ldp::span<const double>(x), 1.0, values, r, o,
                                                  ldp::device::framing::report, size);
        }));

  ldp_params caller;
  REQUIRE(ldp_params_bernstein(&caller, 2, 3, LDP_LOSS_CALLER, 12, 2.0) == LDP_OK);
  const auto caller_cxx = ldp::wire::make_bernstein(2, 3, loss_kind::caller, 12, 2.0).block;
  const double centre = 0.4;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  REQUIRE(ldp_randomize_bernstein_loss(&caller, &rng, c_loss, &centre, workspace.data(), 8 * workspace.size(),
                                       out.data(), out.size(), &written) == LDP_OK);
  CHECK(bytes(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(written)) ==
        cxx_report(caller_cxx, [&](auto& c, auto& values, auto& r, auto& o, auto* size) {
          return ldp::device::randomize_caller_loss(
              c, [&](const double* w) { return c_loss(w, 2, &centre); }, values, r, o, ldp::device::framing::report,
              size);
        }));
}

TEST_CASE("the C API's bernstein statuses: wrong block or loss, sizes, NaN, a small workspace") {
  ldp_rng rng;
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  std::vector<uint64_t> workspace(32);
  bytes out(512);
  std::size_t written = 7;
  ldp_params builtin, caller, vector;
  REQUIRE(ldp_params_bernstein(&builtin, 2, 3, LDP_LOSS_SQUARED, 16, 1.0) == LDP_OK);
  REQUIRE(ldp_params_bernstein(&caller, 2, 3, LDP_LOSS_CALLER, 16, 1.0) == LDP_OK);
  REQUIRE(ldp_params_laplace_vector(&vector, 16, 0.0, 1.0, 16, 1.0) == LDP_OK);
  const double x[2] = {0.5, 0.5}, nan_x[2] = {0.5, std::numeric_limits<double>::quiet_NaN()};
  const double centre = 0.5;
  const std::size_t ws = 8 * workspace.size();
  const auto builtin_call = [&](const ldp_params* p, const double* xs, uint32_t dim, double y, std::size_t bytes) {
    return ldp_randomize_bernstein(p, &rng, xs, dim, y, workspace.data(), bytes, out.data(), out.size(), &written);
  };
  const auto caller_call = [&](const ldp_params* p, ldp_loss_fn f, std::size_t bytes) {
    return ldp_randomize_bernstein_loss(p, &rng, f, &centre, workspace.data(), bytes, out.data(), out.size(), &written);
  };
  CHECK(builtin_call(&caller, x, 2, 1.0, ws) == LDP_INVALID_ARGUMENT);  // the block asks for a caller loss
  CHECK(written == 0);
  CHECK(caller_call(&builtin, c_loss, ws) == LDP_INVALID_ARGUMENT);  // the block has a built-in loss
  CHECK(builtin_call(&vector, x, 2, 1.0, ws) == LDP_INVALID_ARGUMENT);
  CHECK(builtin_call(&builtin, x, 1, 1.0, ws) == LDP_INVALID_ARGUMENT);  // p differs
  CHECK(builtin_call(&builtin, nullptr, 2, 1.0, ws) == LDP_INVALID_ARGUMENT);
  CHECK(builtin_call(&builtin, nan_x, 2, 1.0, ws) == LDP_INVALID_ARGUMENT);
  CHECK(builtin_call(&builtin, x, 2, std::numeric_limits<double>::quiet_NaN(), ws) == LDP_INVALID_ARGUMENT);
  CHECK(caller_call(&caller, c_nan_loss, ws) == LDP_INVALID_ARGUMENT);
  CHECK(caller_call(&caller, nullptr, ws) == LDP_INVALID_ARGUMENT);
  CHECK(builtin_call(&builtin, x, 2, 1.0, ws - 8) == LDP_WORKSPACE_TOO_SMALL);
  CHECK(builtin_call(&builtin, x, 2, 1.0, 8 * 16 - 8) == LDP_WORKSPACE_TOO_SMALL);  // not even the values
  // Nothing above drew from the generator: the next report is the first report of the seed.
  REQUIRE(builtin_call(&builtin, x, 2, 1.0, ws) == LDP_OK);
  const bytes first(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(written));
  REQUIRE(ldp_rng_init(&rng, rng_seed) == LDP_OK);
  REQUIRE(builtin_call(&builtin, x, 2, 1.0, ws) == LDP_OK);
  CHECK(bytes(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(written)) == first);
}
