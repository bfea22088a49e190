/* The board of examples/c/firmware_example.c on a Cortex-M with STM32F4-style peripherals: the
 * TRNG, ADC and USART data registers. Polled, no interrupts; the image is built and scanned for
 * heap and exception symbols (cmake/check_firmware.cmake), not run. */
#include "board.h"

#define TRNG_DR (*(volatile uint32_t*)0x50060808u)
#define ADC1_DR (*(volatile uint32_t*)0x4001204cu)
#define USART1_SR (*(volatile uint32_t*)0x40011000u)
#define USART1_DR (*(volatile uint32_t*)0x40011004u)
#define USART_SR_TXE 0x80u

int board_entropy(uint8_t* out, size_t size) {
  uint32_t word = 0;
  size_t i;
  for (i = 0; i < size; ++i) {
    if (i % 4 == 0) word = TRNG_DR; /* 32 random bits per read */
    out[i] = (uint8_t)(word >> (8 * (i % 4)));
  }
  return 0;
}

/* The top four bits of a 12-bit conversion: one of 16 states. */
uint32_t board_read_item(void) { return (ADC1_DR >> 8) & 15u; }

void board_write(const char* text, size_t size) {
  size_t i;
  for (i = 0; i < size; ++i) {
    while ((USART1_SR & USART_SR_TXE) == 0) {
    }
    USART1_DR = (uint8_t)text[i];
  }
}

int main(void) { return app_main(); }
