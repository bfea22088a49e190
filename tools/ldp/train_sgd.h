// The interactive baseline of ldp train (docs/mechanisms.md H.7): LDP SGD whose gradients travel
// through one of ldpkit's own vector-mean mechanisms, each user speaking once.
#ifndef LDP_TOOLS_TRAIN_SGD_H
#define LDP_TOOLS_TRAIN_SGD_H

#include <cstdint>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/random/drbg.h"
#include "mechanism_options.h"
#include "train_methods.h"
#include "train_users.h"

namespace ldp::tools {

// The vector mechanisms --sgd-mechanism takes: the tool's mechanisms on vectors in an L2 ball.
inline constexpr const char* sgd_mechanisms = "privunitg l2-ball vector-mean projunit fastprojunit";
inline constexpr const char* default_sgd_mechanism = "privunitg";

// The pieces --loss and --model share (docs/mechanisms.md H.7, I.4): the block of --sgd-mechanism at
// --epsilon for vectors of `dim` coordinates in the L2 ball of `radius`; T (--steps, default
// round(sqrt n), at most n: each user speaks once); one step's batch, users [first, first + count)
// with their vectors (dim each, row-major, inside the ball), through the block's device program and
// aggregator into the server's mean estimate (dim values), the costs added to `cost`.
parameter_block ldp_sgd_block(const train_settings& s, uint32_t dim, double radius);
uint64_t ldp_sgd_steps(const train_settings& s, uint64_t users);
std::vector<double> ldp_sgd_batch_mean(const parameter_block& block, span<const double> vectors, uint64_t first,
                                       uint64_t count, uint64_t seed, random::drbg& rng, device_cost& cost);

// --method ldp-sgd: the users split into T consecutive batches (T = --steps, default round(sqrt n));
// batch t's devices randomize their gradient at the current w (clipped to the L2 ball of the
// loss's gradient bound), the server's mean estimate takes a projected AdaGrad-norm step on
// [0, 1]^p, and the solution is the average of the last T - floor(T/2) iterates.
train_result solve_ldp_sgd(const train_data& data, const train_settings& settings);

}  // namespace ldp::tools

#endif
