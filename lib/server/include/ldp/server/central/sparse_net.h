// Ghazi et al. 2024, Algorithm 7 (docs/mechanisms.md I.3.3): the sparse exponential mechanism, pure
// epsilon-DP ERM without smoothness, central (replace-one, public n). Convex losses with s-sparse
// gradients have an approximately optimal solution that is k-sparse (the paper's Lemma 7.3), so the
// exponential mechanism over a net of k-sparse points of the feasible set pays log |net| ~ k log d,
// not d. The net is enumerated, so this is for toy sizes (the paper calls it inefficient).
//
// [impl] Choices the paper leaves open:
//   - Feasible set: the l1 ball of radius R (sparsifiable, the paper's (9)). Net: every w whose
//     entries are integer multiples of R / q with at most k non-zero entries and ||w||_1 <= R.
//   - Scores: each loss f_i(w) is clamped to [0, B] (B the public range, the paper's A.4) and rounded
//     to the grid B 2^-f, so U(w) = sum_i l_i(w) is an integer with sensitivity exactly 2^f; P(w) is
//     proportional to exp(-eps' U(w) / (2 2^f)), eps' = floor(eps 2^20) / 2^20 <= eps.
//   - Sampling is exact (rational arithmetic only): propose a net point uniformly, accept with
//     Bernoulli(exp(-eps' (U(w) - min U) / (2 2^f))) (exact_sampling.h), repeat. The running time
//     depends on the data (at most |net| proposals on average): a timing channel on the server only.
#ifndef LDP_SERVER_CENTRAL_SPARSE_NET_H
#define LDP_SERVER_CENTRAL_SPARSE_NET_H

#include <cstdint>
#include <functional>
#include <vector>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/random/drbg.h"

namespace ldp::server {

struct sparse_net_options {
  uint32_t d = 0;                  // dimension, >= 1
  uint32_t sparsity = 1;           // k, in [1, d]
  uint32_t levels = 1;             // q >= 1: entries are multiples of R / q
  double radius = 1;               // R > 0
  std::size_t n = 0;               // samples, public, >= 1
  double loss_bound = 1;           // B > 0: every loss is clamped to [0, B]
  double epsilon = 1;              // in (0, 40]
  uint32_t frac_bits = 20;         // f in [1, 30]: the loss grid B 2^-f
  uint64_t max_points = 1u << 20;  // refuse nets larger than this
};

// The loss of sample i at w (d values).
using sparse_net_loss = std::function<double(std::size_t i, span<const double> w)>;

// The net, row-major (size x d), in lexicographic order of the integer multiples (c_0, ..., c_{d-1}),
// c_j in [-q, q]. invalid_argument for bad options or a net above max_points; overflow when memory
// runs out. Never throws.
[[nodiscard]] status sparse_net(const sparse_net_options& options, std::vector<double>* points) noexcept;

// U(w) for every net point: sum_i round(clamp(f_i(w), 0, B) 2^f / B). invalid_argument for a
// non-finite loss or bad options; overflow for a sum past 2^62. Never throws.
[[nodiscard]] status sparse_net_scores(const sparse_net_options& options, span<const double> points,
                                       const sparse_net_loss& loss, std::vector<uint64_t>* scores) noexcept;

// The implemented level floor(epsilon 2^20) / 2^20 (0 for an invalid epsilon).
double sparse_net_epsilon(double epsilon) noexcept;

// One exact draw of the exponential mechanism from the scores (the net's size = scores.size() >= 1).
// *index receives the chosen point. invalid_argument for bad options or empty scores.
[[nodiscard]] status sparse_net_draw(const sparse_net_options& options, span<const uint64_t> scores, random::drbg& rng,
                                     std::size_t* index) noexcept;

struct sparse_net_choice {
  std::vector<double> w;    // the chosen net point (DP)
  double epsilon_impl = 0;  // sparse_net_epsilon(epsilon)
  uint64_t net_size = 0;
};

// Algorithm 7: the net, the scores, one draw. The conditions of the three calls above.
[[nodiscard]] status sparse_exponential_mechanism(const sparse_net_options& options, const sparse_net_loss& loss,
                                                  random::drbg& rng, sparse_net_choice* out) noexcept;

}  // namespace ldp::server

#endif
