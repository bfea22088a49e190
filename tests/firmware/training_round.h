/* A device's side of a training round in C99 over ldp.h (docs/c_api.md "Training rounds"): linked
 * into the Cortex-M4 C image (board_cortex_m.c) and run on the host by
 * tests/unit/capi/test_capi_training.cpp. */
#ifndef LDP_TESTS_FIRMWARE_TRAINING_ROUND_H
#define LDP_TESTS_FIRMWARE_TRAINING_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "ldp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest model this device takes: its float workspace is static, 2 d entries. */
#define TRAINING_ROUND_MAX_DIM 64

/* Return codes of training_round, apart from those of app_main (1 .. 6) in the same image. */
enum training_round_code {
  TRAINING_ROUND_OK = 0,
  TRAINING_ROUND_BROADCAST = 21, /* the broadcast does not decode */
  TRAINING_ROUND_TOO_LARGE = 22, /* d above TRAINING_ROUND_MAX_DIM or out_count */
  TRAINING_ROUND_GRADIENT = 23   /* ldp_user_gradient_f32 refused */
};

/* Peeks the broadcast (size bytes), then writes the contribution of `count` samples (p float
 * features each, one float label each) under `bound` to out[0, d); *status receives the failing
 * call's status (LDP_OK on success). */
int training_round(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound, const float* features,
                   const float* labels, size_t count, int64_t* out, size_t out_count, ldp_status* status);

/* The example round's broadcast: a logistic model of p = 3 features in binary32, round 7, weights
 * (0.5, -0.25, 1, 0.125) (the last the bias); test_capi_training.cpp checks the bytes are
 * ldp_model_broadcast_encode's. A device receives them from the server each round. */
#define TRAINING_ROUND_EXAMPLE_SIZE 44
extern const uint8_t training_round_example[TRAINING_ROUND_EXAMPLE_SIZE];

#ifdef __cplusplus
}
#endif

#endif
