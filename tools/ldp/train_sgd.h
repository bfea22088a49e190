// The interactive baseline of ldp train (docs/mechanisms.md H.7): LDP SGD whose gradients travel
// through one of ldpkit's own vector-mean mechanisms, each user speaking once.
#ifndef LDP_TOOLS_TRAIN_SGD_H
#define LDP_TOOLS_TRAIN_SGD_H

#include "train_methods.h"

namespace ldp::tools {

// The vector mechanisms --sgd-mechanism takes: the tool's mechanisms on vectors in an L2 ball.
inline constexpr const char* sgd_mechanisms = "privunitg l2-ball vector-mean projunit fastprojunit";
inline constexpr const char* default_sgd_mechanism = "privunitg";

// --method ldp-sgd: the users split into T consecutive batches (T = --steps, default round(sqrt n));
// batch t's devices randomize their gradient at the current w (clipped to the L2 ball of the
// loss's gradient bound), the server's mean estimate takes a projected AdaGrad-norm step on
// [0, 1]^p, and the solution is the average of the last T - floor(T/2) iterates.
train_result solve_ldp_sgd(const train_data& data, const train_settings& settings);

}  // namespace ldp::tools

#endif
