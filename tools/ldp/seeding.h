// Where the simulation's randomness comes from (docs/cli.md "Randomness"): every 32-byte seed the
// tool uses is SipHash-2-4 under the fixed key "ldp-tool-seed-v1", applied to
// (--seed, purpose, index, word j) for j = 0..3, each an 8-byte little-endian input (the word j as
// one byte). Device block b (devices [b * 4096, (b + 1) * 4096)) draws from a ChaCha20 DRBG keyed by
// derive_seed(seed, device_block, b), so the output does not depend on the thread count; public
// seeds (CMS/HCMS hash functions) use their own purpose. A simulation tool, not a key derivation:
// device secrets never come from here. Public seeds derive from --public-seed instead of --seed.
#ifndef LDP_TOOLS_SEEDING_H
#define LDP_TOOLS_SEEDING_H

#include <cstdint>

#include "ldp/wire/params.h"

namespace ldp::tools {

enum class seed_purpose : uint64_t { device_block = 1, hash_seed = 2 };

// Devices per seeding block.
inline constexpr uint64_t devices_per_block = 4096;

void derive_seed(uint64_t seed, seed_purpose purpose, uint64_t index, unsigned char out[wire::seed_size]);

}  // namespace ldp::tools

#endif
