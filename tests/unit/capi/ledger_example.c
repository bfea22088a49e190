/* The privacy ledger from C99 (docs/c_api.md "The privacy ledger"): storage callbacks over a RAM
 * "flash", a use case with a daily budget, and reports that are sent only after their charge
 * returned LDP_OK; a device with nothing to report sends the dummy item d - 1 under the same block. */
#include "ledger_example.h"

#include <string.h>

#define DOMAIN 17u /* 16 items and the dummy item 16 */

static ldp_status flash_read(void* context, uint32_t slot, uint32_t offset, uint8_t* out, uint32_t size) {
  const uint8_t* flash = (const uint8_t*)context;
  if (slot > 1 || offset > LEDGER_EXAMPLE_SLOT_SIZE || size > LEDGER_EXAMPLE_SLOT_SIZE - offset) {
    return LDP_INVALID_ARGUMENT;
  }
  memcpy(out, flash + slot * LEDGER_EXAMPLE_SLOT_SIZE + offset, size);
  return LDP_OK;
}

/* NOR flash: programming only clears bits. */
static ldp_status flash_write(void* context, uint32_t slot, uint32_t offset, const uint8_t* bytes, uint32_t size) {
  uint8_t* flash = (uint8_t*)context;
  uint32_t i;
  if (slot > 1 || offset > LEDGER_EXAMPLE_SLOT_SIZE || size > LEDGER_EXAMPLE_SLOT_SIZE - offset) {
    return LDP_INVALID_ARGUMENT;
  }
  for (i = 0; i < size; ++i) flash[slot * LEDGER_EXAMPLE_SLOT_SIZE + offset + i] &= bytes[i];
  return LDP_OK;
}

static ldp_status flash_erase(void* context, uint32_t slot) {
  if (slot > 1) return LDP_INVALID_ARGUMENT;
  memset((uint8_t*)context + slot * LEDGER_EXAMPLE_SLOT_SIZE, 0xFF, LEDGER_EXAMPLE_SLOT_SIZE);
  return LDP_OK;
}

static void note(ledger_example_result* r, ldp_status s) {
  if (r->first_error == LDP_OK) r->first_error = s;
}

ledger_example_result ledger_example_run(uint8_t* flash, uint64_t now) {
  static const uint8_t seed[LDP_SEED_SIZE] = {7, 7, 7};
  ledger_example_result r;
  ldp_ledger_storage storage;
  ldp_ledger ledger;
  uint8_t record[LEDGER_EXAMPLE_SLOT_SIZE]; /* the workspace: a record as large as a slot */
  ldp_params params;
  ldp_rng rng;
  uint8_t report[64];
  size_t size = 0;
  ldp_status s;
  unsigned i;

  memset(&r, 0, sizeof r);
  storage.read = flash_read;
  storage.write = flash_write;
  storage.erase = flash_erase;
  storage.context = flash;
  storage.slot_size = LEDGER_EXAMPLE_SLOT_SIZE;
  storage.erased_byte = 0xFF;
  s = ldp_ledger_open(&ledger, &storage, record, sizeof record);
  if (s != LDP_OK) {
    note(&r, s);
    return r;
  }
  /* At every boot: nothing is written when the use case is already configured this way. */
  note(&r, ldp_ledger_configure(&ledger, LEDGER_EXAMPLE_USE_CASE, LEDGER_EXAMPLE_BUDGET, LEDGER_EXAMPLE_DAY));
  note(&r, ldp_params_frequency(&params, LDP_MECH_GRR, DOMAIN, 0.25, 0, 0, NULL));
  note(&r, ldp_rng_init(&rng, seed));
  if (r.first_error != LDP_OK) return r;
  r.epsilon = ldp_params_epsilon(&params);
  for (i = 0; i < 10; ++i) {
    const int nothing = i % 3 == 0;
    const uint32_t item = nothing ? DOMAIN - 1 : i % (DOMAIN - 1);
    s = ldp_randomize_item(&params, &rng, item, NULL, 0, report, sizeof report, &size);
    if (s != LDP_OK) {
      note(&r, s);
      break;
    }
    s = ldp_ledger_charge(&ledger, LEDGER_EXAMPLE_USE_CASE, r.epsilon, now);
    if (s == LDP_BUDGET_EXHAUSTED) {
      memset(report, 0, sizeof report); /* withheld: never sent */
      ++r.refused;
      continue;
    }
    if (s != LDP_OK) {
      note(&r, s);
      break;
    }
    /* Here the report would be sent. */
    ++r.released;
    if (nothing) {
      ++r.dummies;
      r.dummy_size = size;
    } else {
      r.real_size = size;
    }
  }
  note(&r, ldp_ledger_remaining(&ledger, LEDGER_EXAMPLE_USE_CASE, now, &r.remaining));
  ldp_rng_wipe(&rng);
  return r;
}
