// Memoization keys (docs/mechanisms.md, "Memoized randomness"): the coins of a permanent response
// are a deterministic function of a device secret, so a device that reports the same value again
// redraws nothing and needs no table of past responses. A permanent response is a fresh
// random::drbg seeded by memo_seed(); the per-report (instantaneous) coins still come from the
// device's ordinary DRBG.
#ifndef LDP_DEVICE_MEMO_H
#define LDP_DEVICE_MEMO_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/status.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/random/drbg.h"

namespace ldp::device {

// 32 secret bytes the firmware draws once from its entropy source and keeps (docs/security_model.md:
// whoever reads it can undo the permanent stage). Never sent.
inline constexpr std::size_t device_secret_size = 32;

// What a memoized draw is for. `value`: the permanent response of one input (an item, a grid point);
// `device`: draws that stay fixed for the device whatever its value (an OLH hash seed, an α offset).
enum class memo_purpose : uint32_t { value = 0, device = 1 };

// Where a memoized stream belongs: one use case (the ledger's 32-bit id) under one parameter block
// (its fingerprint). A new block gets new permanent responses, and so spends the longitudinal
// budget again.
struct memo_scope {
  uint32_t use_case = 0;
  uint64_t fingerprint = 0;
};

// The 32-byte DRBG seed of (scope, purpose, input): the first 32 bytes of ChaCha20 block `purpose`
// under the device secret with nonce fingerprint (8 bytes LE) || use_case (4 bytes LE), taken as a
// key, then the first 32 bytes of block `input` under that key with nonce "ldp memo v1" (12 bytes,
// zero padded). Two block computations; distinct inputs give independent seeds (ChaCha20 as a PRF).
void memo_seed(const kernels::table& k, const unsigned char secret[device_secret_size], memo_scope scope,
               memo_purpose purpose, uint32_t input, unsigned char out[random::drbg::seed_size]) noexcept;

}  // namespace ldp::device

#endif
