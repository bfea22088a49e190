/* What firmware_example.c needs from its board (docs/c_api.md, "The firmware example"). The host
 * build (board_host.c) simulates a fleet on a PC; tests/firmware/board_cortex_m.c maps the same
 * calls to a Cortex-M's TRNG and UART registers. */
#ifndef LDP_EXAMPLE_BOARD_H
#define LDP_EXAMPLE_BOARD_H

#include <stddef.h>
#include <stdint.h>

/* `size` bytes from the hardware random number generator; 0 on success. */
int board_entropy(uint8_t* out, size_t size);

/* The value this device reports: an item in [0, 16), e.g. the state a sensor is in. */
uint32_t board_read_item(void);

/* Sends text over the serial line (or radio) to the collector. */
void board_write(const char* text, size_t size);

/* The application: called by the board's startup code; 0 on success. */
int app_main(void);

#endif
