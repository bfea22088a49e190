/* The board of examples/c/firmware_example.c on a Cortex-M with STM32F4-style peripherals: the
 * TRNG, ADC and USART data registers. Polled, no interrupts; the image is built and scanned for
 * heap and exception symbols (cmake/check_firmware.cmake), not run. */
#include "board.h"
#include "training_round.h"

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

/* A training round's contribution (training_round.h, docs/c_api.md "Training rounds") from two
 * samples of three ADC readings in [0, 1], labelled by the top bit of a fourth: the image links
 * ldp_model_broadcast_peek and ldp_user_gradient_f32. */
static int device_training_round(void) {
  float features[6];
  float labels[2];
  int64_t contribution[4];
  ldp_gradient_bound bound;
  ldp_model_header header;
  ldp_status status;
  size_t i;
  int code;
  for (i = 0; i < 6; ++i) features[i] = (float)(ADC1_DR & 0xfffu) / 4095.0f;
  for (i = 0; i < 2; ++i) labels[i] = (float)((ADC1_DR >> 11) & 1u);
  /* The round's bounds come with the round's parameters; here the example's own digest. */
  if (ldp_model_broadcast_peek(training_round_example, sizeof training_round_example, &header) != LDP_OK) return 31;
  bound.model_digest = header.digest;
  bound.max_samples = 2;
  bound.frac_bits = 16;
  bound.radius_fixed = 65536; /* G = 1 */
  code = training_round(training_round_example, sizeof training_round_example, &bound, features, labels, 2,
                        contribution, 4, &status);
  if (code != TRAINING_ROUND_OK) return code;
  board_write((const char*)contribution, sizeof contribution);
  return 0;
}

int main(void) {
  const int code = app_main();
  return code != 0 ? code : device_training_round();
}
