// The device half of the C API (ldp.h): thin checks of the C arguments around ldp::wire,
// ldp::random and ldp::device. No heap; the objects live in the caller's contexts.
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>

#include "context.h"
#include "ldp.h"
#include "ldp/base/status.h"
#include "ldp/device/bernstein.h"
#include "ldp/device/context.h"
#include "ldp/device/distribution.h"
#include "ldp/device/frequency.h"
#include "ldp/device/glm.h"
#include "ldp/device/kent_support.h"
#include "ldp/device/kway_marginals.h"
#include "ldp/device/mean.h"
#include "ldp/device/projected_unit.h"
#include "ldp/device/public_coin.h"
#include "ldp/device/smooth_queries.h"
#include "ldp/device/string.h"
#include "ldp/device/unit_vector.h"
#include "ldp/device/user_level.h"
#include "ldp/device/vector_mean.h"
#include "ldp/wire/bernstein_params.h"
#include "ldp/wire/distribution_params.h"
#include "ldp/wire/marginals.h"
#include "ldp/wire/mean_params.h"
#include "ldp/wire/mechanism.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/projunit_params.h"
#include "ldp/wire/public_coin_params.h"
#include "ldp/wire/report.h"
#include "ldp/wire/smooth_params.h"
#include "ldp/wire/string_params.h"
#include "ldp/wire/unit_vector_params.h"
#include "ldp/wire/vector_params.h"

namespace capi = ldp::capi;
using capi::code;
using capi::live;
using capi::params_context;
using capi::rng_context;
using ldp::status;

static_assert(LDP_STATUS_COUNT == ldp::status_count);
static_assert(LDP_PARAMS_MAX_ENCODED_SIZE >= ldp::wire::params_max_size);
static_assert(LDP_DEVICE_SECRET_SIZE == ldp::device::device_secret_size);
static_assert(LDP_LOSS_CALLER == static_cast<int>(ldp::wire::loss_kind::caller) &&
              LDP_LOSS_SQUARED == static_cast<int>(ldp::wire::loss_kind::squared) &&
              LDP_LOSS_LOGISTIC == static_cast<int>(ldp::wire::loss_kind::logistic) &&
              LDP_LOSS_HINGE == static_cast<int>(ldp::wire::loss_kind::hinge));

namespace ldp::capi {

void set_params(ldp_params* out, const wire::params& block) noexcept {
  auto* context = new (out->opaque.bytes) params_context;
  context->block = block;
  context->fingerprint = wire::fingerprint(block);
}

}  // namespace ldp::capi

namespace {

// Leaves a context that failed to initialize refused by live().
template <class Storage>
void clear(Storage* storage) noexcept {
  std::memset(storage->opaque.bytes, 0, sizeof storage->opaque.bytes);
}

// What each randomizer needs in its workspace, in bytes (whole 8-byte words): its device context's.
std::size_t workspace_bytes(const ldp::wire::params& p) noexcept {
  using ldp::device::family;
  switch (ldp::device::family_of(p.mech)) {
    case family::frequency: return ldp::device::frequency_context::workspace_size(p);
    case family::mean: return ldp::device::mean_context::workspace_size(p);
    case family::vector_mean:  // bernstein: its N loss values first (bernstein_randomizer)
      return ldp::device::bernstein_value_count(p) * sizeof(int64_t) +
             ldp::device::vector_mean_context::workspace_size(p);
    case family::user_level: return ldp::device::user_level_context::workspace_size(p);
    case family::unit_vector: return ldp::device::unit_vector_context::workspace_size(p);
    case family::projected_unit: return ldp::device::projected_unit_context::workspace_size(p);
    case family::string: return ldp::device::string_context::workspace_size(p);
    case family::distribution: return ldp::device::distribution_context::workspace_size(p);
    case family::kent_support: return ldp::device::kent_support_context::workspace_size(p);
    case family::public_coin: return ldp::device::public_coin_context::workspace_size(p);
    case family::glm: return ldp::device::glm_context::workspace_size(p);
    case family::none:
    case family::sparse_projection:
    case family::winsorized: return 0;  // no randomizer of ldp.h takes these blocks
  }
  return 0;
}

// The argument checks every randomizer shares; on success *written is 0 until a report is written.
struct randomizer_call {
  const params_context* p;
  rng_context* r;
  bool ok;

  randomizer_call(const ldp_params* params, ldp_rng* rng, const void* workspace, size_t workspace_size,
                  const uint8_t* out, size_t capacity, size_t* written) noexcept
      : p(live<params_context>(params)), r(live<rng_context>(rng)) {
    ok = p != nullptr && r != nullptr && written != nullptr && (out != nullptr || capacity == 0) &&
         (workspace != nullptr || workspace_size == 0) &&
         reinterpret_cast<uintptr_t>(workspace) % alignof(uint64_t) == 0;
    if (ok) *written = 0;
  }
};

// A device context of the block on the caller's workspace, then use(context)'s status.
template <class Context, class Use>
ldp_status on_context(const randomizer_call& call, void* workspace, size_t workspace_size, Use use) noexcept {
  Context context;
  const status s = Context::init({static_cast<std::byte*>(workspace), workspace_size}, call.p->block, &context);
  if (s != status::ok) return code(s);
  return code(use(context));
}

// A device context of the block on the caller's workspace, then one report of x.
template <class Context, class Input>
ldp_status randomize_with(const randomizer_call& call, Input x, void* workspace, size_t workspace_size, uint8_t* out,
                          size_t capacity, size_t* written) noexcept {
  return on_context<Context>(call, workspace, workspace_size, [&](Context& context) {
    return context.randomize(x, call.r->rng, {out, capacity}, ldp::device::framing::report, written);
  });
}

// The bernstein randomizers (docs/mechanisms.md H.1): the workspace holds the N loss values, then the
// vector context's; report(context, values) computes the values and randomizes them.
template <class Report>
ldp_status bernstein_randomizer(const randomizer_call& call, void* workspace, size_t workspace_size,
                                Report report) noexcept {
  const std::size_t n = ldp::device::bernstein_value_count(call.p->block);
  if (n == 0) return code(status::invalid_argument);
  const std::size_t value_bytes = n * sizeof(int64_t);
  if (workspace_size < value_bytes) return code(status::workspace_too_small);
  const ldp::span<int64_t> values(static_cast<int64_t*>(workspace), n);
  using ldp::device::vector_mean_context;
  return on_context<vector_mean_context>(call, static_cast<std::byte*>(workspace) + value_bytes,
                                         workspace_size - value_bytes,
                                         [&](vector_mean_context& context) { return report(context, values); });
}

// The builders' common end: the block in *params, or a cleared context and the builder's status.
ldp_status publish(ldp_params* params, const ldp::wire::derived_params& derived) noexcept {
  if (derived.code != status::ok) {
    clear(params);
    return code(derived.code);
  }
  capi::set_params(params, derived.block);
  return code(status::ok);
}

}  // namespace

extern "C" {

const char* ldp_status_name(ldp_status s) noexcept { return ldp::status_name(static_cast<status>(s)); }

const char* ldp_mechanism_name(ldp_mechanism m) noexcept {
  return m > UINT8_MAX ? "" : ldp::wire::mechanism_name(static_cast<ldp::wire::mechanism>(m));
}

ldp_status ldp_check_abi(size_t rng_size, size_t params_size) noexcept {
  const bool fits = rng_size >= sizeof(rng_context) && params_size >= sizeof(params_context);
  return code(fits ? status::ok : status::invalid_argument);
}

ldp_status ldp_rng_init(ldp_rng* rng, const uint8_t seed[LDP_SEED_SIZE]) noexcept {
  if (rng == nullptr || seed == nullptr) return code(status::invalid_argument);
  new (rng->opaque.bytes) rng_context(seed);
  return code(status::ok);
}

void ldp_rng_wipe(ldp_rng* rng) noexcept {
  rng_context* context = live<rng_context>(rng);
  if (context == nullptr) return;
  context->~rng_context();  // the DRBG erases its key and buffer
  clear(rng);
}

ldp_status ldp_params_decode(ldp_params* params, const uint8_t* block, size_t size) noexcept {
  if (params == nullptr || (block == nullptr && size != 0)) return code(status::invalid_argument);
  clear(params);
  ldp::wire::params decoded;
  const status s = ldp::wire::decode_params({block, size}, &decoded);
  if (s != status::ok) return code(s);
  capi::set_params(params, decoded);
  return code(status::ok);
}

ldp_status ldp_params_encode(const ldp_params* params, uint8_t* out, size_t capacity, size_t* written) noexcept {
  const params_context* context = live<params_context>(params);
  if (context == nullptr || written == nullptr || (out == nullptr && capacity != 0)) {
    return code(status::invalid_argument);
  }
  *written = 0;
  return code(ldp::wire::encode_params(context->block, {out, capacity}, written));
}

ldp_status ldp_params_frequency(ldp_params* params, ldp_mechanism mechanism, uint32_t d, double epsilon, uint32_t rows,
                                uint32_t columns, const uint8_t hash_seed[LDP_SEED_SIZE]) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  const bool sketch = mechanism == LDP_MECH_CMS || mechanism == LDP_MECH_HCMS || mechanism == LDP_MECH_FLH;
  if (mechanism > UINT8_MAX || (sketch && hash_seed == nullptr)) {
    clear(params);
    return code(status::invalid_argument);
  }
  return publish(params, ldp::wire::make_frequency_oracle(static_cast<ldp::wire::mechanism>(mechanism), epsilon, d,
                                                          rows, columns, hash_seed));
}

ldp_status ldp_params_numeric(ldp_params* params, ldp_mechanism mechanism, double lo, double hi, uint32_t frac_bits,
                              double epsilon) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  switch (mechanism) {
    case LDP_MECH_LAPLACE: return publish(params, ldp::wire::make_laplace(lo, hi, frac_bits, epsilon));
    case LDP_MECH_DUCHI: return publish(params, ldp::wire::make_duchi(lo, hi, frac_bits, epsilon));
    default: clear(params); return code(status::invalid_argument);
  }
}

ldp_status ldp_params_laplace_vector(ldp_params* params, uint32_t d, double lo, double hi, uint32_t frac_bits,
                                     double epsilon) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_laplace_vector(d, lo, hi, frac_bits, epsilon));
}

ldp_status ldp_params_bernstein(ldp_params* params, uint32_t p, uint32_t k, uint32_t loss, uint32_t frac_bits,
                                double epsilon) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  if (!ldp::wire::is_loss_kind(loss)) {
    clear(params);
    return code(status::invalid_argument);
  }
  return publish(params, ldp::wire::make_bernstein(p, k, static_cast<ldp::wire::loss_kind>(loss), frac_bits, epsilon));
}

ldp_status ldp_params_kway_marginals(ldp_params* params, uint32_t p, uint32_t k, uint32_t frac_bits,
                                     double epsilon) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_kway_marginals(p, k, frac_bits, epsilon));
}

ldp_status ldp_params_smooth_queries(ldp_params* params, uint32_t p, uint32_t t, uint32_t frac_bits,
                                     double epsilon) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_smooth_queries(p, t, frac_bits, epsilon));
}

ldp_status ldp_params_public_coin(ldp_params* params, ldp_mechanism mechanism, uint32_t p, uint32_t k, uint32_t loss,
                                  uint32_t users, uint32_t frac_bits, uint32_t strings, double epsilon,
                                  const uint8_t seed[LDP_SEED_SIZE]) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  if (seed == nullptr || !ldp::wire::is_loss_kind(loss)) {
    clear(params);
    return code(status::invalid_argument);
  }
  ldp::wire::public_coin_shape shape;
  shape.dim = p;
  shape.grid = k;
  shape.loss = static_cast<ldp::wire::loss_kind>(loss);
  shape.users = users;
  shape.frac_bits = frac_bits;
  shape.strings = strings;
  std::memcpy(shape.seed, seed, LDP_SEED_SIZE);
  switch (mechanism) {
    case LDP_MECH_BERNSTEIN_1BIT: return publish(params, ldp::wire::make_bernstein_1bit(epsilon, shape));
    case LDP_MECH_BERNSTEIN_GENPROT: return publish(params, ldp::wire::make_bernstein_genprot(epsilon, shape));
    default: clear(params); return code(status::invalid_argument);
  }
}

ldp_status ldp_params_vector_mean(ldp_params* params, ldp_mechanism mechanism, uint32_t d, double radius,
                                  uint32_t frac_bits, double epsilon, double beta,
                                  const uint8_t rotation_seed[LDP_SEED_SIZE]) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  if (rotation_seed == nullptr) {
    clear(params);
    return code(status::invalid_argument);
  }
  switch (mechanism) {
    case LDP_MECH_VECTOR_DUCHI:
      return publish(params, ldp::wire::make_vector_duchi(d, radius, frac_bits, epsilon, beta, rotation_seed));
    case LDP_MECH_VECTOR_LAPLACE:
      return publish(params, ldp::wire::make_vector_laplace(d, radius, frac_bits, epsilon, beta, rotation_seed));
    default: clear(params); return code(status::invalid_argument);
  }
}

ldp_status ldp_params_unit_vector(ldp_params* params, ldp_mechanism mechanism, uint32_t d, double radius,
                                  uint32_t frac_bits, double epsilon) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  switch (mechanism) {
    case LDP_MECH_L2_BALL: return publish(params, ldp::wire::make_l2_ball(d, radius, frac_bits, epsilon));
    case LDP_MECH_PRIVUNITG: return publish(params, ldp::wire::make_privunitg(d, radius, frac_bits, epsilon));
    default: clear(params); return code(status::invalid_argument);
  }
}

ldp_status ldp_params_projected_unit(ldp_params* params, ldp_mechanism mechanism, uint32_t d, uint32_t k, double radius,
                                     uint32_t frac_bits, double epsilon) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  switch (mechanism) {
    case LDP_MECH_PROJUNIT: return publish(params, ldp::wire::make_projunit(d, k, radius, frac_bits, epsilon));
    case LDP_MECH_FASTPROJUNIT: return publish(params, ldp::wire::make_fastprojunit(d, k, radius, frac_bits, epsilon));
    default: clear(params); return code(status::invalid_argument);
  }
}

ldp_status ldp_params_pem(ldp_params* params, double epsilon, uint32_t length, uint32_t eta, uint32_t d,
                          uint32_t g) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_pem(epsilon, length, eta, d, g));
}

ldp_status ldp_params_treehist(ldp_params* params, double epsilon, uint32_t length, uint32_t eta, uint32_t rows,
                               uint32_t columns, const uint8_t hash_seed[LDP_SEED_SIZE], uint32_t d) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_treehist(epsilon, length, eta, rows, columns, hash_seed, d));
}

ldp_status ldp_params_sfp(ldp_params* params, double epsilon, uint32_t length, uint32_t rows, uint32_t columns,
                          const uint8_t hash_seed[LDP_SEED_SIZE], uint32_t d) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_sfp(epsilon, length, rows, columns, hash_seed, d));
}

ldp_status ldp_params_square_wave(ldp_params* params, double epsilon, uint32_t buckets, double lo, double hi,
                                  uint32_t frac_bits, int64_t half_width) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_square_wave(epsilon, buckets, lo, hi, frac_bits, half_width));
}

ldp_status ldp_params_hierarchical(ldp_params* params, double epsilon, uint32_t buckets, uint32_t branching, double lo,
                                   double hi, uint32_t frac_bits) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_hierarchical(epsilon, buckets, branching, lo, hi, frac_bits));
}

ldp_status ldp_params_haar(ldp_params* params, double epsilon, uint32_t buckets, double lo, double hi,
                           uint32_t frac_bits) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_haar(epsilon, buckets, lo, hi, frac_bits));
}

ldp_status ldp_params_glm_copies(ldp_params* params, double epsilon, double delta, uint32_t p, uint32_t degree,
                                 uint32_t frac_bits) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  const ldp::wire::glm_shape shape{p, degree, frac_bits == 0 ? ldp::wire::glm_default_frac_bits : frac_bits};
  return publish(params, ldp::wire::make_glm_copies(epsilon, delta, shape));
}

ldp_status ldp_params_to_fixed(const ldp_params* params, double x, int64_t* out) noexcept {
  const params_context* context = live<params_context>(params);
  if (context == nullptr || out == nullptr || !context->block.has(ldp::wire::field::frac_bits)) {
    return code(status::invalid_argument);
  }
  return code(ldp::wire::to_fixed(x, static_cast<unsigned>(context->block.get(ldp::wire::field::frac_bits)), out));
}

ldp_mechanism ldp_params_mechanism(const ldp_params* params) noexcept {
  const params_context* context = live<params_context>(params);
  return context == nullptr ? 0 : static_cast<ldp_mechanism>(context->block.mech);
}

double ldp_params_epsilon(const ldp_params* params) noexcept {
  const params_context* context = live<params_context>(params);
  return context == nullptr ? std::numeric_limits<double>::quiet_NaN() : ldp::wire::implemented_epsilon(context->block);
}

uint64_t ldp_params_fingerprint(const ldp_params* params) noexcept {
  const params_context* context = live<params_context>(params);
  return context == nullptr ? 0 : context->fingerprint;
}

size_t ldp_report_max_size(const ldp_params* params) noexcept {
  const params_context* context = live<params_context>(params);
  return context == nullptr ? 0 : ldp::wire::max_report_size(context->block);
}

size_t ldp_workspace_size(const ldp_params* params) noexcept {
  const params_context* context = live<params_context>(params);
  return context == nullptr ? 0 : workspace_bytes(context->block);
}

ldp_status ldp_randomize_item(const ldp_params* params, ldp_rng* rng, uint32_t item, void* workspace,
                              size_t workspace_size, uint8_t* out, size_t capacity, size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok) return code(status::invalid_argument);
  return randomize_with<ldp::device::frequency_context>(call, item, workspace, workspace_size, out, capacity, written);
}

ldp_status ldp_randomize_string(const ldp_params* params, ldp_rng* rng, const uint8_t* bytes, size_t size,
                                void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok || (bytes == nullptr && size != 0)) return code(status::invalid_argument);
  return randomize_with<ldp::device::string_context>(call, ldp::span<const unsigned char>(bytes, size), workspace,
                                                     workspace_size, out, capacity, written);
}

ldp_status ldp_randomize_value(const ldp_params* params, ldp_rng* rng, int64_t x, uint8_t* out, size_t capacity,
                               size_t* written) noexcept {
  const randomizer_call call(params, rng, nullptr, 0, out, capacity, written);
  if (!call.ok) return code(status::invalid_argument);
  // The distribution family's inner OLH needs no workspace, so neither does any of its blocks.
  if (ldp::device::family_of(call.p->block.mech) == ldp::device::family::distribution) {
    return randomize_with<ldp::device::distribution_context>(call, x, nullptr, 0, out, capacity, written);
  }
  return randomize_with<ldp::device::mean_context>(call, x, nullptr, 0, out, capacity, written);
}

ldp_status ldp_randomize_vector(const ldp_params* params, ldp_rng* rng, const int64_t* x, size_t d, void* workspace,
                                size_t workspace_size, uint8_t* out, size_t capacity, size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok || (x == nullptr && d != 0)) return code(status::invalid_argument);
  const ldp::span<const int64_t> input(x, d);
  if (ldp::device::family_of(call.p->block.mech) == ldp::device::family::unit_vector) {
    return randomize_with<ldp::device::unit_vector_context>(call, input, workspace, workspace_size, out, capacity,
                                                            written);
  }
  if (ldp::device::family_of(call.p->block.mech) == ldp::device::family::projected_unit) {
    return randomize_with<ldp::device::projected_unit_context>(call, input, workspace, workspace_size, out, capacity,
                                                               written);
  }
  return randomize_with<ldp::device::vector_mean_context>(call, input, workspace, workspace_size, out, capacity,
                                                          written);
}

ldp_status ldp_randomize_bernstein(const ldp_params* params, ldp_rng* rng, const double* x, uint32_t p, double y,
                                   void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                   size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok || (x == nullptr && p != 0)) return code(status::invalid_argument);
  return bernstein_randomizer(call, workspace, workspace_size, [&](auto& context, ldp::span<int64_t> values) {
    return ldp::device::randomize_bernstein(context, ldp::span<const double>(x, p), y, values, call.r->rng,
                                            {out, capacity}, ldp::device::framing::report, written);
  });
}

ldp_status ldp_randomize_bernstein_loss(const ldp_params* params, ldp_rng* rng, ldp_loss_fn loss, const void* user,
                                        void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                        size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok || loss == nullptr) return code(status::invalid_argument);
  const auto dim = static_cast<uint32_t>(call.p->block.get(ldp::wire::field::vector_dim));
  return bernstein_randomizer(call, workspace, workspace_size, [&](auto& context, ldp::span<int64_t> values) {
    return ldp::device::randomize_caller_loss(
        context, [&](const double* w) { return loss(w, dim, user); }, values, call.r->rng, {out, capacity},
        ldp::device::framing::report, written);
  });
}

ldp_status ldp_randomize_record(const ldp_params* params, ldp_rng* rng, uint64_t record, void* workspace,
                                size_t workspace_size, uint8_t* out, size_t capacity, size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok) return code(status::invalid_argument);
  return on_context<ldp::device::vector_mean_context>(
      call, workspace, workspace_size, [&](ldp::device::vector_mean_context& context) {
        return ldp::device::randomize_kway_marginals(context, record, call.r->rng, {out, capacity},
                                                     ldp::device::framing::report, written);
      });
}

ldp_status ldp_randomize_smooth_queries(const ldp_params* params, ldp_rng* rng, const int64_t* x, size_t p,
                                        void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                        size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok || (x == nullptr && p != 0)) return code(status::invalid_argument);
  return on_context<ldp::device::vector_mean_context>(
      call, workspace, workspace_size, [&](ldp::device::vector_mean_context& context) {
        return ldp::device::randomize_smooth_queries(context, ldp::span<const int64_t>(x, p), call.r->rng,
                                                     {out, capacity}, ldp::device::framing::report, written);
      });
}

namespace {

// A C loss and its pointer, behind the device's noexcept loss_fn (a C function cannot throw).
struct c_loss {
  ldp_loss_fn fn;
  const void* user;
};

double call_c_loss(const double* w, uint32_t p, const void* user) noexcept {
  const auto* c = static_cast<const c_loss*>(user);
  return c->fn(w, p, c->user);
}

ldp_status randomize_public_coin(const randomizer_call& call, const ldp::device::learner_example& e, void* workspace,
                                 size_t workspace_size, uint8_t* out, size_t capacity, size_t* written) noexcept {
  if (ldp::device::family_of(call.p->block.mech) != ldp::device::family::public_coin) {
    return code(status::invalid_argument);
  }
  return randomize_with<ldp::device::public_coin_context>(call, e, workspace, workspace_size, out, capacity, written);
}

}  // namespace

ldp_status ldp_randomize_public_coin(const ldp_params* params, ldp_rng* rng, uint32_t user, const double* x, uint32_t p,
                                     double y, void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                     size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok || x == nullptr) return code(status::invalid_argument);
  ldp::device::learner_example e;
  e.user = user;
  e.x = x;
  e.dim = p;
  e.label = y;
  return randomize_public_coin(call, e, workspace, workspace_size, out, capacity, written);
}

ldp_status ldp_randomize_public_coin_loss(const ldp_params* params, ldp_rng* rng, uint32_t user, ldp_loss_fn loss,
                                          const void* loss_user, void* workspace, size_t workspace_size, uint8_t* out,
                                          size_t capacity, size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok || loss == nullptr) return code(status::invalid_argument);
  const c_loss wrapped{loss, loss_user};
  ldp::device::learner_example e;
  e.user = user;
  e.loss = call_c_loss;
  e.loss_user = &wrapped;
  return randomize_public_coin(call, e, workspace, workspace_size, out, capacity, written);
}

ldp_status ldp_randomize_observations(const ldp_params* params, ldp_rng* rng, const int64_t* observations, size_t count,
                                      void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                                      size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok || (observations == nullptr && count != 0)) return code(status::invalid_argument);
  if (ldp::device::family_of(call.p->block.mech) == ldp::device::family::kent_support) {  // C.1 M4a's vote
    return randomize_with<ldp::device::kent_support_context>(call, ldp::span<const int64_t>(observations, count),
                                                             workspace, workspace_size, out, capacity, written);
  }
  return randomize_with<ldp::device::user_level_context>(call, ldp::span<const int64_t>(observations, count), workspace,
                                                         workspace_size, out, capacity, written);
}

ldp_status ldp_randomize_glm(const ldp_params* params, ldp_rng* rng, const int64_t* x, size_t p, int64_t label,
                             void* workspace, size_t workspace_size, uint8_t* out, size_t capacity,
                             size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok || (x == nullptr && p != 0)) return code(status::invalid_argument);
  const ldp::span<const int64_t> features(x, p);
  return on_context<ldp::device::glm_context>(call, workspace, workspace_size, [&](ldp::device::glm_context& context) {
    return context.randomize(features, label, call.r->rng, {out, capacity}, ldp::device::framing::report, written);
  });
}

ldp_status ldp_params_frequency_memoized(ldp_params* params, ldp_mechanism mechanism, uint32_t d,
                                         double epsilon_longitudinal, double epsilon_report) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  if (mechanism > UINT8_MAX) {
    clear(params);
    return code(status::invalid_argument);
  }
  return publish(params, ldp::wire::make_memoized_oracle(static_cast<ldp::wire::mechanism>(mechanism),
                                                         epsilon_longitudinal, epsilon_report, d));
}

double ldp_params_longitudinal_epsilon(const ldp_params* params) noexcept {
  const params_context* context = live<params_context>(params);
  return context == nullptr ? std::numeric_limits<double>::quiet_NaN()
                            : ldp::wire::longitudinal_epsilon(context->block);
}

ldp_status ldp_randomize_item_memoized(const ldp_params* params, ldp_rng* rng, uint32_t item,
                                       const uint8_t secret[LDP_DEVICE_SECRET_SIZE], uint32_t use_case, void* workspace,
                                       size_t workspace_size, uint8_t* out, size_t capacity, size_t* written) noexcept {
  const randomizer_call call(params, rng, workspace, workspace_size, out, capacity, written);
  if (!call.ok || secret == nullptr) return code(status::invalid_argument);
  using ldp::device::frequency_context;
  return on_context<frequency_context>(call, workspace, workspace_size, [&](frequency_context& context) {
    return context.randomize_memoized(item, {secret, use_case}, call.r->rng, {out, capacity},
                                      ldp::device::framing::report, written);
  });
}

// ---- Memoized numeric telemetry (docs/mechanisms.md E.2, E.3) --------------------------------------

ldp_status ldp_params_memoized_duchi(ldp_params* params, double lo, double hi, uint32_t frac_bits, double epsilon,
                                     uint32_t grid, double flip) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_memoized_duchi(lo, hi, frac_bits, epsilon, grid, flip));
}

ldp_status ldp_randomize_value_memoized(const ldp_params* params, ldp_rng* rng,
                                        const uint8_t secret[LDP_DEVICE_SECRET_SIZE], uint32_t use_case, int64_t x,
                                        uint8_t* out, size_t capacity, size_t* written) noexcept {
  const randomizer_call call(params, rng, nullptr, 0, out, capacity, written);
  if (!call.ok || secret == nullptr) return code(status::invalid_argument);
  using ldp::device::mean_context;
  return on_context<mean_context>(call, nullptr, 0, [&](mean_context& context) {
    return context.randomize_memoized(x, {secret, use_case}, call.r->rng, {out, capacity}, ldp::device::framing::report,
                                      written);
  });
}

ldp_status ldp_params_dbitflip(ldp_params* params, uint32_t k, uint32_t sampled, double epsilon) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  return publish(params, ldp::wire::make_dbitflip(epsilon, k, sampled));
}

}  // extern "C"
