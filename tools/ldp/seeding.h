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

#include "ldp/random/drbg.h"
#include "ldp/wire/params.h"

namespace ldp::tools {

// kent: round-1 voters draw from derive_seed(--seed, vote_block, b), round-2 users from device_block.
// The central-DP releases' server DRBG (sparse-projection, winsorized-mean) is derive_seed(S,
// server_noise, 0), S the release seed (ldp estimate --release-seed).
// kent with --dim d > 1 runs fold f's fleets with the simulation seed fold_seed_of(--seed, f).
// winsorized-mean query q: rotation signs derive_seed(--public-seed, rotation_seed, q), PrivateRange
// draws from derive_seed(--seed, server_noise, q), and the release uses the release seed
// release_seed_of(--seed, q), so ldp estimate --release-seed repeats it on the saved round-2 state.
// simulate --days (docs/cli.md "Several days"): device i's 32-byte memoization secret is
// derive_seed(--seed, device_secret, i), the same every day; day k's value changes draw from
// derive_seed(--seed, value_change, k).
// ldp train (docs/cli.md "ldp train"): the held-out split shuffles with derive_seed(--seed, train_split,
// 0); the users' devices draw, in user order, from derive_seed(--seed, device_block, 0).
enum class seed_purpose : uint64_t {
  device_block = 1,
  hash_seed = 2,
  rotation_seed = 3,
  vote_block = 4,
  server_noise = 5,
  fold_seed = 6,
  release_seed = 7,
  randomizer_call = 8,
  device_secret = 9,
  value_change = 10,
  string_draw = 11,
  train_split = 12
};

// Devices per seeding block.
inline constexpr uint64_t devices_per_block = 4096;

void derive_seed(uint64_t seed, seed_purpose purpose, uint64_t index, unsigned char out[wire::seed_size]);
// A ChaCha20 DRBG keyed by derive_seed(seed, purpose, index), on the kernel table this CPU runs
// fastest (kernels::select, as the server): the tables give the same bytes, so the choice changes
// the simulation's speed, never its output (the fleet's DRBG on the compile-time SSE2 table was
// most of `ldp demo`'s time, issue 19).
random::drbg seeded_drbg(uint64_t seed, seed_purpose purpose, uint64_t index);
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
// The simulation seed of day `day` of simulate --days: `seed` for day 0 (so day 0 is the batch of a
// run without --days), call_seed_of(seed, day) after it (day k is the Python Randomizer's call k).
uint64_t day_seed_of(uint64_t seed, uint64_t day);

}  // namespace ldp::tools

#endif
