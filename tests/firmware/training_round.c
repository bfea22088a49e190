/* A device's training round in C99 (training_round.h): no heap, the workspace is static. */
#include "training_round.h"

int training_round(const uint8_t* broadcast, size_t size, const ldp_gradient_bound* bound, const float* features,
                   const float* labels, size_t count, int64_t* out, size_t out_count, ldp_status* status) {
  static float workspace[LDP_GRADIENT_WORKSPACE_COUNT(TRAINING_ROUND_MAX_DIM)];
  ldp_model_header header;
  *status = ldp_model_broadcast_peek(broadcast, size, &header);
  if (*status != LDP_OK) return TRAINING_ROUND_BROADCAST;
  if (header.dim > TRAINING_ROUND_MAX_DIM || header.dim > out_count) return TRAINING_ROUND_TOO_LARGE;
  *status = ldp_user_gradient_f32(broadcast, size, bound, features, labels, count, workspace,
                                  sizeof workspace / sizeof workspace[0], out, out_count);
  return *status == LDP_OK ? TRAINING_ROUND_OK : TRAINING_ROUND_GRADIENT;
}

/* "LDPM", version 1, logistic, binary32, reserved 0, p = 3, C = 1, round 7, the four weights, the
 * CRC32C (docs/wire_format.md 10). */
const uint8_t training_round_example[TRAINING_ROUND_EXAMPLE_SIZE] = {
    0x4c, 0x44, 0x50, 0x4d, 0x01, 0x02, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
    0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3f, 0x00, 0x00,
    0x80, 0xbe, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x3e, 0xa8, 0x6b, 0x89, 0xdd};
