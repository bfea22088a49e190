/* A device-side C program (docs/c_api.md): seed the DRBG from the TRNG, load the parameter block
 * the server distributed, randomize the device's item, send the report as one line of hex. Every
 * buffer is static or on the stack: no heap. Compiles as C99 for a PC (board_host.c) and for
 * Cortex-M4 (tests/firmware). */
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "example_params.h"
#include "ldp.h"

/* Buffers sized for the block in example_params.h; the code checks that they suffice. */
#define REPORT_CAPACITY 64
#define WORKSPACE_WORDS 4

/* Volatile stores: the compiler may not drop them as dead, so the seed does not linger in RAM. */
static void wipe(uint8_t* bytes, size_t size) {
  volatile uint8_t* b = bytes;
  size_t i;
  for (i = 0; i < size; ++i) b[i] = 0;
}

static void send_hex_line(const uint8_t* bytes, size_t size) {
  static const char digits[] = "0123456789abcdef";
  char line[2 * REPORT_CAPACITY + 1];
  size_t i;
  for (i = 0; i < size; ++i) {
    line[2 * i] = digits[bytes[i] >> 4];
    line[2 * i + 1] = digits[bytes[i] & 15];
  }
  line[2 * size] = '\n';
  board_write(line, 2 * size + 1);
}

int app_main(void) {
  static ldp_params params; /* in .bss: a few hundred bytes */
  static ldp_rng rng;       /* about 2 KiB with the default LDP_CONFIG_DRBG_BLOCKS */
  uint64_t workspace[WORKSPACE_WORDS];
  uint8_t report[REPORT_CAPACITY];
  uint8_t seed[LDP_SEED_SIZE];
  size_t size = 0;
  ldp_status status;

  /* Catches a header compiled with other settings than the library. */
  if (ldp_check_abi(sizeof rng, sizeof params) != LDP_OK) return 1;

  status = ldp_params_decode(&params, example_params_block, sizeof example_params_block);
  if (status != LDP_OK) return 2;
  if (ldp_report_max_size(&params) > sizeof report || ldp_workspace_size(&params) > sizeof workspace) {
    return 3;
  }

  if (board_entropy(seed, sizeof seed) != 0) return 4;
  status = ldp_rng_init(&rng, seed);
  wipe(seed, sizeof seed);
  if (status != LDP_OK) return 5;

  status =
      ldp_randomize_item(&params, &rng, board_read_item(), workspace, sizeof workspace, report, sizeof report, &size);
  ldp_rng_wipe(&rng); /* one report per boot here; a long-lived task keeps the generator */
  if (status != LDP_OK) return 6;
  send_hex_line(report, size);
  return 0;
}
