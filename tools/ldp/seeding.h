// Where the tool's randomness comes from (docs/cli.md "Randomness"): every 32-byte seed is
// SipHash-2-4 under the fixed key "ldp-tool-seed-v1" of (seed, purpose, index, j) for j = 0..3
// (seed, purpose and index as 8-byte little-endian words, j as one byte), the four outputs in
// order. Device block b (devices [b * 4096, (b + 1) * 4096)) draws from a ChaCha20 DRBG keyed by
// derive_seed(--seed, device_block, b), so the bytes do not depend on the thread count. Public
// seeds (CMS/HCMS hash functions, vector-mean rotation signs) are parameters, not simulation
// randomness: derive_seed(--public-seed, hash_seed or rotation_seed, 0). A simulation tool, not a
// key derivation: device secrets never come from here.
#ifndef LDP_TOOLS_SEEDING_H
#define LDP_TOOLS_SEEDING_H

#include <cstdint>

#include "ldp/wire/params.h"

namespace ldp::tools {

// kent: round-1 voters draw from derive_seed(--seed, vote_block, b), round-2 users from device_block.
// The central-DP releases' server DRBG (sparse-projection, winsorized-mean) is derive_seed(S,
// server_noise, 0), S the release seed (ldp estimate --release-seed).
// kent with --dim d > 1 runs fold f's fleets with the simulation seed fold_seed_of(--seed, f).
// winsorized-mean query q: rotation signs derive_seed(--public-seed, rotation_seed, q), PrivateRange
// draws from derive_seed(--seed, server_noise, q), and the release uses the release seed
// release_seed_of(--seed, q), so ldp estimate --release-seed repeats it on the saved round-2 state.
enum class seed_purpose : uint64_t {
  device_block = 1,
  hash_seed = 2,
  rotation_seed = 3,
  vote_block = 4,
  server_noise = 5,
  fold_seed = 6,
  release_seed = 7,
  randomizer_call = 8
};

// Devices per seeding block.
inline constexpr uint64_t devices_per_block = 4096;

void derive_seed(uint64_t seed, seed_purpose purpose, uint64_t index, unsigned char out[wire::seed_size]);
// The first 8 bytes, little-endian, of derive_seed(seed, fold_seed, fold): each fold's devices draw
// from their own streams (folds with one seed would share their noise).
uint64_t fold_seed_of(uint64_t seed, uint32_t fold);
// The first 8 bytes, little-endian, of derive_seed(seed, release_seed, query): winsorized-mean's
// release seed of query q, printed by simulate for ldp estimate.
uint64_t release_seed_of(uint64_t seed, uint64_t query);
// The first 8 bytes, little-endian, of derive_seed(seed, randomizer_call, call): the simulation seed
// of call `call` >= 1 of the Python package's Randomizer(seed).randomize (call 0 uses `seed` itself,
// as ldp simulate --seed does), so later calls draw fresh randomness.
uint64_t call_seed_of(uint64_t seed, uint64_t call);

}  // namespace ldp::tools

#endif
