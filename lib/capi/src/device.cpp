// The device half of the C API (ldp.h): thin checks of the C arguments around ldp::wire,
// ldp::random and ldp::device. No heap; the objects live in the caller's contexts.
#include <limits>
#include <cstdint>
#include <cstring>
#include <new>

#include "context.h"
#include "ldp.h"
#include "ldp/base/status.h"
#include "ldp/device/frequency.h"
#include "ldp/wire/mechanism.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/report.h"

namespace capi = ldp::capi;
using capi::code;
using capi::live;
using capi::params_context;
using capi::rng_context;
using ldp::status;

static_assert(LDP_STATUS_COUNT == ldp::status_count);
static_assert(LDP_PARAMS_MAX_ENCODED_SIZE >= ldp::wire::params_max_size);

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

}  // namespace

extern "C" {

const char* ldp_status_name(ldp_status s) noexcept {
  return ldp::status_name(static_cast<status>(s));
}

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

ldp_status ldp_params_encode(const ldp_params* params, uint8_t* out, size_t capacity,
                             size_t* written) noexcept {
  const params_context* context = live<params_context>(params);
  if (context == nullptr || written == nullptr || (out == nullptr && capacity != 0)) {
    return code(status::invalid_argument);
  }
  *written = 0;
  return code(ldp::wire::encode_params(context->block, {out, capacity}, written));
}

ldp_status ldp_params_frequency(ldp_params* params, ldp_mechanism mechanism, uint32_t d, double epsilon,
                                uint32_t rows, uint32_t columns,
                                const uint8_t hash_seed[LDP_SEED_SIZE]) noexcept {
  if (params == nullptr) return code(status::invalid_argument);
  clear(params);
  const bool sketch = mechanism == LDP_MECH_CMS || mechanism == LDP_MECH_HCMS;
  if (mechanism > UINT8_MAX || (sketch && hash_seed == nullptr)) return code(status::invalid_argument);
  const ldp::wire::derived_params derived = ldp::wire::make_frequency_oracle(
      static_cast<ldp::wire::mechanism>(mechanism), epsilon, d, rows, columns, hash_seed);
  if (derived.code != status::ok) return code(derived.code);
  capi::set_params(params, derived.block);
  return code(status::ok);
}

ldp_mechanism ldp_params_mechanism(const ldp_params* params) noexcept {
  const params_context* context = live<params_context>(params);
  return context == nullptr ? 0 : static_cast<ldp_mechanism>(context->block.mech);
}

double ldp_params_epsilon(const ldp_params* params) noexcept {
  const params_context* context = live<params_context>(params);
  return context == nullptr ? std::numeric_limits<double>::quiet_NaN()
                         : ldp::wire::implemented_epsilon(context->block);
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
  return context == nullptr ? 0 : ldp::device::workspace_words(context->block) * sizeof(uint64_t);
}

ldp_status ldp_randomize_item(const ldp_params* params, ldp_rng* rng, uint32_t item, void* workspace,
                              size_t workspace_size, uint8_t* out, size_t capacity,
                              size_t* written) noexcept {
  const params_context* p = live<params_context>(params);
  rng_context* r = live<rng_context>(rng);
  if (p == nullptr || r == nullptr || written == nullptr || (out == nullptr && capacity != 0) ||
      (workspace == nullptr && workspace_size != 0) ||
      reinterpret_cast<uintptr_t>(workspace) % alignof(uint64_t) != 0) {
    return code(status::invalid_argument);
  }
  *written = 0;
  const ldp::span<uint64_t> words(static_cast<uint64_t*>(workspace), workspace_size / sizeof(uint64_t));
  return code(ldp::device::randomize(p->block, p->fingerprint, item, r->rng, words, {out, capacity},
                                     written));
}

}  // extern "C"
