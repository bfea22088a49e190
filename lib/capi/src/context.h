// The objects behind the opaque C contexts of ldp.h, shared by the device and server halves of the
// C API. Each lives inside its caller-provided storage (placement new) behind a tag, so that a
// context that was never initialized, or was wiped, is refused instead of read.
#ifndef LDP_CAPI_CONTEXT_H
#define LDP_CAPI_CONTEXT_H

#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "ldp.h"
#include "ldp/random/drbg.h"
#include "ldp/wire/params.h"

namespace ldp::capi {

struct params_context {
  static constexpr uint32_t tag = 0x7064706cu;  // "ldpp"
  uint32_t magic = tag;
  uint64_t fingerprint = 0;  // cached: every report carries it
  wire::params block;
};

struct rng_context {
  static constexpr uint32_t tag = 0x7264706cu;  // "ldpr"
  explicit rng_context(const unsigned char seed[random::drbg::seed_size]) noexcept : rng(seed) {}
  uint32_t magic = tag;
  random::drbg rng;
};

// The C structs must hold the objects: LDP_RNG_SIZE follows LDP_CONFIG_DRBG_BLOCKS.
static_assert(sizeof(params_context) <= sizeof(ldp_params) && alignof(params_context) <= alignof(ldp_params));
static_assert(sizeof(rng_context) <= sizeof(ldp_rng) && alignof(rng_context) <= alignof(ldp_rng));
static_assert(std::is_standard_layout_v<params_context> && std::is_standard_layout_v<rng_context>,
              "the tag is read at offset 0 before the object is known to exist");
static_assert(LDP_SEED_SIZE == random::drbg::seed_size && LDP_SEED_SIZE == wire::seed_size);

// The live object in `storage`, or null when its tag is not there.
template <class Context, class Storage>
Context* live(Storage* storage) noexcept {
  if (storage == nullptr) return nullptr;
  uint32_t magic = 0;
  std::memcpy(&magic, storage->opaque.bytes, sizeof magic);
  if (magic != Context::tag) return nullptr;
  return std::launder(reinterpret_cast<Context*>(storage->opaque.bytes));
}

template <class Context, class Storage>
const Context* live(const Storage* storage) noexcept {
  return live<Context>(const_cast<Storage*>(storage));
}

inline ldp_status code(status s) noexcept { return static_cast<ldp_status>(s); }

// Stores a validated block in *out (which may hold anything before).
void set_params(ldp_params* out, const wire::params& block) noexcept;

}  // namespace ldp::capi

#endif
