// The loss an application supplies to the Bernstein learners when their block's loss is `caller`
// (docs/mechanisms.md H.0): shared by the bernstein device (H.1) and the public-coin devices (H.2,
// H.3).
#ifndef LDP_DEVICE_LOSS_FN_H
#define LDP_DEVICE_LOSS_FN_H

#include <cstdint>

namespace ldp::device {

// The loss at parameters w in [0, 1]^p (H.0's set C), meant in [0, 1] (the devices clamp it; a NaN
// is invalid_argument before anything is drawn); `user` is the caller's pointer, passed through.
using loss_fn = double (*)(const double* w, uint32_t p, const void* user) noexcept;

}  // namespace ldp::device

#endif
