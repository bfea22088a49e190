/* The board of firmware_example.c simulated on a PC: `firmware_example [devices]` boots that many
 * simulated devices (default 1), each with its own seed and item, and prints one report per line.
 * The seeds are derived from the device number so that runs are reproducible: a real board reads
 * its TRNG (tests/firmware/board_cortex_m.c). */
#include <stdio.h>
#include <stdlib.h>

#include "board.h"

static uint32_t device; /* the simulated device being booted */

/* A 32-bit mixer (splitmix-style) to spread device numbers. */
static uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

int board_entropy(uint8_t* out, size_t size) {
  size_t i;
  for (i = 0; i < size; ++i) out[i] = (uint8_t)mix(device * 64U + (uint32_t)i);
  return 0;
}

/* A skewed population: item k with probability 2^-(k+1) (k < 15), the rest on item 15. */
uint32_t board_read_item(void) {
  uint32_t h = mix(device ^ 0x9e3779b9U), item = 0;
  while (item < 15 && (h & 1U) == 0) {
    h >>= 1;
    ++item;
  }
  return item;
}

void board_write(const char* text, size_t size) { fwrite(text, 1, size, stdout); }

int main(int argc, char** argv) {
  unsigned long devices = 1;
  if (argc > 1) {
    char* end = NULL;
    devices = strtoul(argv[1], &end, 10);
    if (argc > 2 || *end != '\0' || devices == 0 || devices > 100000000UL) {
      fprintf(stderr, "usage: %s [devices, 1 to 100000000]\n", argv[0]);
      return 2;
    }
  }
  for (device = 0; device < devices; ++device) {
    const int rc = app_main();
    if (rc != 0) {
      fprintf(stderr, "device %lu: app_main failed with %d\n", (unsigned long)device, rc);
      return 1;
    }
  }
  return 0;
}
