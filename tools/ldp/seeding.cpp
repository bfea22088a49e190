#include "seeding.h"

#include "ldp/base/bits.h"
#include "ldp/kernels/kernel_table.h"
#include "ldp/platform/cpu.h"
#include "ldp/wire/checksum.h"

namespace ldp::tools {

void derive_seed(uint64_t seed, seed_purpose purpose, uint64_t index, unsigned char out[wire::seed_size]) {
  static const unsigned char key[16] = {'l', 'd', 'p', '-', 't', 'o', 'o', 'l', '-', 's', 'e', 'e', 'd', '-', 'v', '1'};
  unsigned char input[25];
  store_le64(input, seed);
  store_le64(input + 8, static_cast<uint64_t>(purpose));
  store_le64(input + 16, index);
  for (unsigned j = 0; j < wire::seed_size / 8; ++j) {
    input[24] = static_cast<unsigned char>(j);
    store_le64(out + 8 * j, wire::siphash24(key, input));
  }
}

random::drbg seeded_drbg(uint64_t seed, seed_purpose purpose, uint64_t index) {
  static const kernels::table& fastest = kernels::select(platform::detect_cpu());
  unsigned char key[wire::seed_size];
  derive_seed(seed, purpose, index, key);
  return random::drbg(key, fastest);
}

namespace {

uint64_t first_word(uint64_t seed, seed_purpose purpose, uint64_t index) {
  unsigned char out[wire::seed_size];
  derive_seed(seed, purpose, index, out);
  return load_le64(out);
}

}  // namespace

uint64_t fold_seed_of(uint64_t seed, uint32_t fold) { return first_word(seed, seed_purpose::fold_seed, fold); }

uint64_t release_seed_of(uint64_t seed, uint64_t query) { return first_word(seed, seed_purpose::release_seed, query); }

uint64_t call_seed_of(uint64_t seed, uint64_t call) { return first_word(seed, seed_purpose::randomizer_call, call); }

uint64_t day_seed_of(uint64_t seed, uint64_t day) { return day == 0 ? seed : call_seed_of(seed, day); }

}  // namespace ldp::tools
